// SQLite's C API (Debian libsqlite3-dev). Only includes and tiny helpers live here.
#ifndef MISSIONTRACK_CSQLITE_SHIM_H
#define MISSIONTRACK_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type missiontrack_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
#endif
