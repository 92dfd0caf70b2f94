// GNU libmicrohttpd's C API (Debian libmicrohttpd-dev). Only includes and tiny helpers live
// here: MHD_start_daemon and MHD_get_daemon_info are variadic or return unions, which Swift
// cannot call or read directly.
#ifndef MISSIONTRACK_CMICROHTTPD_SHIM_H
#define MISSIONTRACK_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <microhttpd.h>

// The unescaper of MHD_OPTION_UNESCAPE_CALLBACK (microhttpd.h names no type for it).
typedef size_t (*missiontrack_mhd_unescaper)(void *cls, struct MHD_Connection *c, char *s);

// The URI logger of MHD_OPTION_URI_LOG_CALLBACK: sees the request target as sent, before
// any decoding; what it returns is the request's first context.
typedef void *(*missiontrack_mhd_uri_logger)(void *cls, const char *uri, struct MHD_Connection *c);

// Starts a daemon bound to `address` with a pool of `threads` epoll threads, each limit set
// (`per_address_limit` 0 for none), decoding the path and query with `unescape`, showing each
// raw target to `log_uri` and each connection's start and end to `notify`.
static inline struct MHD_Daemon *missiontrack_mhd_start(
    unsigned int flags, const struct sockaddr *address, unsigned int threads,
    unsigned int connection_limit, unsigned int per_address_limit, unsigned int idle_timeout_s,
    size_t memory_limit, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    missiontrack_mhd_unescaper unescape, missiontrack_mhd_uri_logger log_uri, void *log_context,
    MHD_NotifyConnectionCallback notify, void *notify_context) {
  return MHD_start_daemon(
      flags, 0, NULL, NULL, handler, handler_context,
      MHD_OPTION_SOCK_ADDR, address,
      MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
      MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
      MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_s,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
      MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
      MHD_OPTION_URI_LOG_CALLBACK, log_uri, log_context,
      MHD_OPTION_END);
}

// The port the daemon listens on (the one the system picked for port 0), or 0.
static inline uint16_t missiontrack_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

// The server thread (libmicrohttpd's worker daemon) that serves `connection`, or NULL.
static inline struct MHD_Daemon *missiontrack_mhd_connection_daemon(
    struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
  return info == NULL ? NULL : info->daemon;
}

// The socket of `connection`, or -1.
static inline int missiontrack_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

// The epoll descriptor of a server thread (readable while the thread has work waiting), or -1.
static inline int missiontrack_mhd_epoll_fd(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
  return info == NULL ? -1 : info->epoll_fd;
}

// How many connections a server thread serves, suspended ones included.
static inline unsigned int missiontrack_mhd_connection_count(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return info == NULL ? 0 : info->num_connections;
}
#endif
