// What the supervisor needs of a sentry backend (user notification in
// notify/, ptrace in ptrace/): to take on each process of the container as
// it installs the sentry's filter, and the child events of the supervisor's
// waitid loop (ptrace stops reach a tracer there).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::sentry {

class Backend {
 public:
  virtual ~Backend() = default;

  // Process `pid` (the init, or one `exec` adds) installs the sentry's
  // filter. `connection` is the filter's listener for user notification
  // (which needs no pid: 0 when the caller has none); on the ptrace
  // platform, where the process waits to be traced before it loads the
  // filter so that no mediated syscall finds nobody to stop for, it is the
  // sentry's end of the process's descriptor channel.
  virtual Result<void> Adopt(pid_t pid, UniqueFd connection) = 0;

  // A child event from waitid(WEXITED): true when it was a ptrace stop the
  // backend dealt with; false for everything else, exits included (the
  // caller still sees the exits of its own children).
  virtual bool OnChildEvent(const siginfo_t& child) = 0;

  // A process joins whose execution domain may not be PER_LINUX (an exec
  // from a caller under setarch).
  virtual void AssumePersonalityMayDiffer() = 0;
};

}  // namespace vigil::sentry
