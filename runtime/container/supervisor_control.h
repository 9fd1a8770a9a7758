// The supervisor's control socket (ROOT/ID/control.sock): how the verbs
// reach a container's running supervisor. One SOCK_SEQPACKET message per
// request and one per reply ("ok" or "error <one line>"); a request is one
// of the typed ControlRequests below, and this file is its only codec.
// The server side is supervisor/supervisor_serve.cc.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::runtime {

enum class ControlVerb {
  kStart,     // run the init's program (`vigil start`)
  kListener,  // adopt an exec'd process by its seccomp listener (attached)
  kTracee,    // ptrace platform: adopt an exec'd process by its pidfd (attached)
  kTrim,      // give the heap's free pages back, before a memory release
  kPaused,    // the container was frozen: the timeout's clock stops
  kResumed,   // and thawed: the clock goes on with what was left
};

struct ControlRequest {
  ControlVerb verb = ControlVerb::kStart;
  // kTracee: the number of the sentry's end of the process's descriptor
  // channel, in the process (as its init announced it).
  std::string channel_number;

  // Whether the request comes with a descriptor.
  bool TakesDescriptor() const {
    return verb == ControlVerb::kListener || verb == ControlVerb::kTracee;
  }
};

// The wire form, and back: an error names what does not parse.
std::string EncodeControlRequest(const ControlRequest& request);
Result<ControlRequest> DecodeControlRequest(std::string_view text);

// Binds and listens on `path` (removing a stale socket first).
Result<UniqueFd> ListenControl(const std::string& path);

// Sends `request` (with `fd` attached if >= 0) to the supervisor listening
// on `path` and waits for its reply; an "error ..." reply becomes an Error
// with that text.
Result<void> CallSupervisor(const std::string& path, const ControlRequest& request, int fd = -1);

// Reads one request from an accepted connection; an attached descriptor
// goes to `fd`. A request that does not parse, or lacks its descriptor, is
// an error to reply with.
Result<ControlRequest> ReadControlRequest(int conn, UniqueFd* fd);

// Replies "ok" or "error <message>".
void Reply(int conn, const Result<void>& result);

}  // namespace vigil::runtime
