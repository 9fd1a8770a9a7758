// Unix-domain sockets: connecting by path and sending with a descriptor
// attached (SCM_RIGHTS), as the console socket, the seccomp listener
// protocol and vigil's own channels need.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil {

// A close-on-exec socket of `type` (SOCK_STREAM, SOCK_SEQPACKET) connected to
// `path`; a path too long for sockaddr_un is an error naming it.
Result<UniqueFd> ConnectUnix(const std::string& path, int type);

// A close-on-exec socket of `type` bound to `path` (a stale socket file is
// replaced) and listening; fails like ConnectUnix.
Result<UniqueFd> ListenUnix(const std::string& path, int type, int backlog);

// Sends all of `data` (one message on a SOCK_SEQPACKET socket), with `fd`
// (if >= 0) attached to the first sendmsg(2). No SIGPIPE; EINTR retried.
Result<void> SendWithFd(int socket, std::string_view data, int fd);

// Receives one message of at most `max` bytes; a descriptor attached to it
// (close-on-exec) goes to `fd`. A closed peer is an error with code EPIPE.
// EINTR retried.
Result<std::string> ReceiveWithFd(int socket, std::size_t max, UniqueFd* fd);

}  // namespace vigil
