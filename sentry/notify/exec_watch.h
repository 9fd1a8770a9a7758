// Exec verification for the user-notification backend. The sentry decides
// an execve on the file the path resolves to at entry and lets the call
// through (CONTINUE); the kernel then looks the path up again, and a
// thread swapping a symlink in between would run another file. So the
// exec'ing thread is ptrace-seized just before the CONTINUE (with
// PTRACE_O_TRACEEXEC, and EXITKILL so that nothing it runs outlives the
// supervisor); when the exec is done it stops at PTRACE_EVENT_EXEC, before
// the new program's first instruction, and its /proc/PID/exe is compared
// with the image the check approved: the same file is detached and runs,
// any other is killed.
//
// Stops are reported to the supervisor, the tracer, through waitid (its
// SIGCHLD loop), which hands each to OnChildEvent. A thread whose exec
// failed stays seized until it exits or execs again; meanwhile each signal
// it receives stops it once on its way, and is passed on unchanged.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "sentry/core/tracee.h"
#include "sentry/core/verdict.h"

namespace vigil::sentry {

class ExecWatch {
 public:
  // What an exec was approved as, kept until it completes.
  struct Approved {
    SyscallEvent event;           // the execve/execveat as notified
    AuditArgs args;               // its decoded arguments, as audited
    std::optional<FileId> image;  // nullopt: no image is the approved one
  };
  // Called for each exec killed because it mapped another file: the
  // approval, the process (its id after the exec) and what it mapped.
  using OnKilled = std::function<void(const Approved&, pid_t pid, const std::string& mapped)>;

  explicit ExecWatch(OnKilled on_killed) : on_killed_(std::move(on_killed)) {}
  ExecWatch(const ExecWatch&) = delete;
  ExecWatch& operator=(const ExecWatch&) = delete;

  // Seizes `tid` (once) and records what its next exec must map. Fails when
  // it cannot be traced (another tracer holds it): the exec must then be
  // refused, since it could not be verified.
  Result<void> Expect(pid_t tid, Approved approved);

  // A child event from waitid(WEXITED): true when it was a stop of a
  // seized thread, now dealt with; an exit forgets the thread (false, so
  // the caller still sees exits of its own children).
  bool OnChildEvent(const siginfo_t& child);

  std::size_t seized() const { return approved_.size(); }

 private:
  void Verify(pid_t pid);

  OnKilled on_killed_;
  std::map<pid_t, Approved> approved_;  // by thread id, as seized
};

}  // namespace vigil::sentry
