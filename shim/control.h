// The supervisor's control socket (ROOT/ID/control.sock): how `start` (and
// later `exec`) reach a running supervisor. One SOCK_SEQPACKET message per
// request and per reply: "start" -> "ok" or "error <one line>"; "listener"
// with a seccomp listener attached (an exec'd process's, for the sentry);
// "trim" (give the heap back, before a memory release); "paused" and
// "resumed" (the timeout's clock stops and goes on).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::shim {

// Binds and listens on `path` (removing a stale socket first).
Result<UniqueFd> ListenControl(const std::string& path);

// Sends `request` (with `fd` attached if >= 0) to the supervisor listening
// on `path` and returns its reply; an "error ..." reply becomes an Error
// with that text.
Result<std::string> CallControl(const std::string& path, std::string_view request, int fd = -1);

// Reads one request from an accepted connection; an attached descriptor
// goes to `fd`.
Result<std::string> ReadRequest(int conn, UniqueFd* fd);

// Replies "ok" or "error <message>".
void Reply(int conn, const Result<void>& result);

}  // namespace vigil::shim
