// The supervisor's control socket (ROOT/ID/control.sock): how `start` (and
// later `exec`) reach a running supervisor. One SOCK_SEQPACKET message per
// request and per reply: "start" -> "ok" or "error <one line>".
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::shim {

// Binds and listens on `path` (removing a stale socket first).
Result<UniqueFd> ListenControl(const std::string& path);

// Sends `request` to the supervisor listening on `path` and returns its
// reply; an "error ..." reply becomes an Error with that text.
Result<std::string> CallControl(const std::string& path, std::string_view request);

// Reads one request from an accepted connection.
Result<std::string> ReadRequest(int conn);

// Replies "ok" or "error <message>".
void Reply(int conn, const Result<void>& result);

}  // namespace vigil::shim
