// The libgps client API (Debian libgps-dev, API 11). Only includes and tiny helpers live here.
#ifndef MISSIONTRACK_CGPS_SHIM_H
#define MISSIONTRACK_CGPS_SHIM_H
#include <gps.h>
#include <errno.h>
#endif
