// Exec verification, whichever backend holds the thread. The sentry
// decides an execve on the file the path resolves to at entry and lets the
// call through; the kernel then looks the path up again, and a thread
// swapping a symlink in between would run another file. So the approval
// names the image the exec must map (sentry/handlers/exec_image.h), and
// when the exec is done, at PTRACE_EVENT_EXEC and before the new program's
// first instruction, the backend asks Verify: the process's /proc/PID/exe
// must be that file, and every file it has mapped must be that file or its
// approved ELF interpreter (nothing else is mapped at that point), or it is
// killed. A binfmt_misc handler, which the check does not foresee, makes
// the exe another file, and is killed the same way.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "sentry/core/tracee.h"
#include "sentry/core/verdict.h"

namespace vigil::sentry {

class ExecApprovals {
 public:
  // What an exec was approved as, kept until it completes.
  struct Approved {
    SyscallEvent event;           // the execve/execveat as caught
    AuditArgs args;               // its decoded arguments, as audited
    std::optional<FileId> image;  // nullopt: no image is the approved one
    // The ELF interpreter the image may map beside it; nullopt: none.
    std::optional<FileId> interpreter;
  };
  // Called for each exec killed because it mapped another file: the
  // approval, the process (its id after the exec) and what it mapped.
  using OnKilled = std::function<void(const Approved&, pid_t pid, const std::string& mapped)>;

  explicit ExecApprovals(OnKilled on_killed) : on_killed_(std::move(on_killed)) {}
  ExecApprovals(const ExecApprovals&) = delete;
  ExecApprovals& operator=(const ExecApprovals&) = delete;

  // Records what the next exec of `tid` must map (replacing an approval a
  // failed exec left).
  void Approve(pid_t tid, Approved approved) {
    approved_.insert_or_assign(tid, std::move(approved));
  }
  bool Has(pid_t tid) const { return approved_.contains(tid); }

  // At PTRACE_EVENT_EXEC of `pid` (stopped there; `execed` is the thread
  // that exec'd, which has taken the leader's id `pid` if it was another):
  // true when it mapped the approved files; otherwise it is killed with
  // SIGKILL before it runs, reported to OnKilled, and false.
  bool Verify(pid_t pid, pid_t execed);

  // The thread is gone (or no longer held): its approval with it.
  void Forget(pid_t tid) { approved_.erase(tid); }

  std::size_t size() const { return approved_.size(); }

 private:
  OnKilled on_killed_;
  std::map<pid_t, Approved> approved_;  // by thread id
};

}  // namespace vigil::sentry
