#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* Fixed-argument forms of the variadic calls Swift cannot make, and the few socket calls the
   devnet's server needs (used by AdamantDevnet). */

/* A TCP socket bound to 127.0.0.1:port (0 picks a free port), listening or not, or -1 with errno
   set. With SO_REUSEPORT only sockets of this user that set it too can share the port: the devnet
   keeps a bound, never-listening one on each port for the server's whole life, and adds a
   listening one while it serves. */
static inline int adm_loopback_socket(uint16_t port, int listening) {
#ifdef SOCK_CLOEXEC
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
#else
    int fd = socket(AF_INET, SOCK_STREAM, 0);
#endif
    if (fd < 0) return -1;
    int on = 1;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0
        || bind(fd, (struct sockaddr *)&address, sizeof address) != 0
        || (listening && listen(fd, SOMAXCONN) != 0)) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The port a socket is bound to, or 0. */
static inline uint16_t adm_socket_port(int fd) {
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0 || address.sin_family != AF_INET) return 0;
    return ntohs(address.sin_port);
}

/* True once the peer has closed or reset the connection; never blocks. Data still unread (a
   pipelined request) counts as a peer that is still there. */
static inline int adm_peer_has_gone(int fd) {
    struct pollfd watched = { .fd = fd, .events = POLLIN, .revents = 0 };
    int ready = poll(&watched, 1, 0);
    if (ready < 0) return errno != EINTR;
    if (ready == 0) return 0;
    if (watched.revents & (POLLERR | POLLHUP | POLLNVAL)) return 1;
    char byte;
    ssize_t peeked = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked == 0) return 1;
    return peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

/* A daemon serving `listen_fd` (which it closes when stopped), one thread per connection, with
   an idle timeout in seconds and a hard cap on connections (the library closes any beyond it at
   once). */
static inline struct MHD_Daemon *adm_mhd_start(
    int listen_fd, unsigned int timeout_seconds, unsigned int connection_limit,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify, void *cls) {
    return MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ITC,
                            0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, cls,
                            MHD_OPTION_END);
}

/* The connection's socket, or -1. */
static inline int adm_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/* What the connection-started notification stored for the connection, or NULL. */
static inline void *adm_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}
#endif
