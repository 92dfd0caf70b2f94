// PostgreSQL's client library libpq (Debian libpq-dev). Only includes live here.
#ifndef MISSIONTRACK_CLIBPQ_SHIM_H
#define MISSIONTRACK_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
