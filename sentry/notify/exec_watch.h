// Exec verification for the user-notification backend, which does not
// otherwise trace the workload: the exec'ing thread is ptrace-seized just
// before its exec is let through (with PTRACE_O_TRACEEXEC, and EXITKILL so
// that nothing it runs outlives the supervisor), verified when it stops at
// PTRACE_EVENT_EXEC (ExecApprovals), and detached if it mapped the
// approved file.
//
// Stops are reported to the supervisor, the tracer, through waitid (its
// SIGCHLD loop), which hands each to OnChildEvent. A thread whose exec
// failed stays seized until it exits or execs again; meanwhile each signal
// it receives stops it once on its way, and is passed on unchanged.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "base/result.h"
#include "sentry/serve/exec_approvals.h"

namespace vigil::sentry {

class ExecWatch {
 public:
  using Approved = ExecApprovals::Approved;

  explicit ExecWatch(ExecApprovals::OnKilled on_killed) : approvals_(std::move(on_killed)) {}

  // Seizes `tid` (once) and records what its next exec must map. Fails when
  // it cannot be traced (another tracer holds it): the exec must then be
  // refused, since it could not be verified.
  Result<void> Expect(pid_t tid, Approved approved);

  // A child event from waitid(WEXITED): true when it was a stop of a
  // seized thread, now dealt with; an exit forgets the thread (false, so
  // the caller still sees exits of its own children).
  bool OnChildEvent(const siginfo_t& child);

  std::size_t seized() const { return approvals_.size(); }

 private:
  ExecApprovals approvals_;
};

}  // namespace vigil::sentry
