// SQLite's C API (Debian libsqlite3-dev). Only includes and tiny helpers live here.
#ifndef MISSIONTRACK_CSQLITE_SHIM_H
#define MISSIONTRACK_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type missiontrack_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
// sqlite3_config is variadic, which Swift cannot call. Turning off memory statistics removes
// a global mutex from every allocation; it must run before the first connection opens.
static inline int missiontrack_sqlite_disable_memstatus(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
