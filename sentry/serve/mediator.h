// Deciding one syscall, whichever backend caught it: the thread it came
// from (kept between its syscalls), the handler the syscall table names,
// what an observed syscall is about to change forgotten before it runs,
// and the audit record once it is answered. The backends (notify/,
// ptrace/) only receive syscalls and apply the verdicts.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "sentry/core/sandbox.h"
#include "sentry/core/tracee.h"
#include "sentry/core/verdict.h"
#include "sentry/loop/event_loop.h"
#include "sentry/serve/exec_approvals.h"
#include "sentry/serve/known_threads.h"

namespace vigil::sentry {

// Everything the audit log records about one decision.
struct DecisionRecord {
  const SyscallEvent& event;
  const Verdict& verdict;
  const AuditArgs& args;
  std::chrono::nanoseconds latency;
  // The process behind the decision, looked up on request only (most
  // decisions are not logged): returns its thread group as the sentry sees
  // it and writes its executable into `executable` (empty when it could not
  // be read), a string the audit keeps from record to record.
  const std::function<pid_t(std::string& executable)>& identity;
};

class Mediator {
 public:
  using Observer = std::function<void(const DecisionRecord&)>;

  Mediator(EventLoop& loop, const Sandbox& sandbox, Observer observer);
  Mediator(const Mediator&) = delete;
  Mediator& operator=(const Mediator&) = delete;

  // A syscall decided, not yet answered.
  struct Decided {
    Verdict verdict = Verdict::Fail(ENOSYS, Decision::kDeny);
    AuditArgs args;
    std::shared_ptr<KnownThread> thread;  // null when it could not be found
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  };

  // Decides `event` of thread event.tid; `still_waiting` is the backend's
  // anchor. A thread that is gone gives a kStale verdict, one that cannot
  // be anchored EPERM, a number the table does not know ENOSYS.
  Decided Decide(const SyscallEvent& event, const StillWaiting& still_waiting);

  // The audit record of `decided`, once answered.
  void Record(const SyscallEvent& event, const Decided& decided);

  // The audit record of an exec killed at PTRACE_EVENT_EXEC: the syscall as
  // approved, what it mapped instead.
  void RecordKilledExec(const ExecApprovals::Approved& approved, pid_t pid,
                        const std::string& mapped);

  // A process joins whose execution domain may not be PER_LINUX (an exec
  // from a caller under setarch).
  void AssumePersonalityMayDiffer() { threads_.AssumePersonalityMayDiffer(); }

  const KnownThreads& threads() const { return threads_; }

 private:
  pid_t IdentityOf(pid_t tid, KnownThread* thread, std::string& executable);

  EventLoop& loop_;
  const Sandbox& sandbox_;
  Observer observer_;
  KnownThreads threads_;
};

}  // namespace vigil::sentry
