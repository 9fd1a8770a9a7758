#include "sentry/serve/mediator.h"

#include <cerrno>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/handler.h"
#include "sentry/serve/thread_tracee.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {
namespace {

// Fibers no handler may wait in (Decide's `wait`).
constexpr std::size_t kFibersKeptFromWaits = 16;

}  // namespace

Mediator::Mediator(EventLoop& loop, const Sandbox& sandbox, Observer observer)
    : loop_(loop), sandbox_(sandbox), observer_(std::move(observer)), threads_(loop) {
  if (sandbox.personality_may_differ) threads_.AssumePersonalityMayDiffer();
  // Handlers leave a workload's credentials on the loop thread for the
  // next notification (ActingAs); whatever else the loop runs is the
  // sentry's own work.
  loop.SetPrologue(&ActingAs::AsSentryOrExit);
}

Mediator::Decided Mediator::Decide(const SyscallEvent& event, const StillWaiting& still_waiting) {
  Decided decided;
  const SyscallEntry* entry = FindSyscall(event.number);
  Result<std::shared_ptr<KnownThread>> thread = threads_.Find(event.tid, still_waiting);
  if (!thread) {
    if (thread.error().code == ENOENT) {
      decided.verdict = Verdict::Stale();  // gone: nobody to answer
    } else {
      log::Warning(thread.error().message);
      decided.verdict = Verdict::Fail(EPERM, Decision::kDeny);  // cannot be mediated safely
    }
    return decided;
  }
  decided.thread = *thread;
  if (entry == nullptr) return decided;
  ThreadTracee tracee(still_waiting, decided.thread, threads_.personality_may_differ());
  HandlerContext context{.event = event,
                         .tracee = tracee,
                         .sandbox = sandbox_,
                         .wait = [this](int fd, std::uint32_t events) -> Result<void> {
                           // A call that would wait while nearly every
                           // fiber there can be waits already is answered as
                           // interrupted: the rest stay for the calls that
                           // do not wait (another thread's stat) and for the
                           // operator's requests (`vigil exec`).
                           if (loop_.FewFibersLeft(kFibersKeptFromWaits)) {
                             return FailErrno(EINTR, "every fiber a call may wait in is taken");
                           }
                           return loop_.Wait(fd, events);
                         }};
  decided.verdict = Handle(entry->handler, context);
  decided.args = std::move(context.audit_args);
  // The record's process and executable, read before the answer while the
  // thread surely lives: a process whose call is refused often ends at once
  // (a child whose exec failed), and read afterwards its executable would
  // be gone from the record. Once per thread (IdentityOf keeps them); the
  // caller's program, too, not the one an allowed exec is about to map.
  if (observer_ && !decided.thread->executable) {
    std::string executable;
    (void)IdentityOf(event.tid, decided.thread.get(), executable);
  }
  // What an observed syscall changes is forgotten before it may run.
  threads_.Observe(ChangesOf(entry->handler), event);
  return decided;
}

void Mediator::Record(const SyscallEvent& event, const Decided& decided) {
  if (!observer_) return;
  KnownThread* known = decided.thread.get();
  const std::function<pid_t(std::string&)> identity = [&](std::string& executable) {
    return IdentityOf(event.tid, known, executable);
  };
  observer_(DecisionRecord{.event = event,
                           .verdict = decided.verdict,
                           .args = decided.args,
                           .latency = std::chrono::steady_clock::now() - decided.started,
                           .identity = identity});
}

void Mediator::RecordKilledExec(const ExecApprovals::Approved& approved, pid_t pid,
                                const std::string& mapped) {
  if (!observer_) return;
  const Verdict killed{.decision = Decision::kKill, .error = EACCES};
  AuditArgs args = approved.args;
  args.push_back({"mapped", mapped});
  const std::function<pid_t(std::string&)> identity = [&](std::string& executable) {
    executable = mapped;
    return pid;
  };
  observer_(DecisionRecord{.event = approved.event,
                           .verdict = killed,
                           .args = args,
                           .latency = {},
                           .identity = identity});
}

// Read once per thread, before its first answer (Decide); for a thread the
// sentry could not keep (gone), after the answer and without a validity
// check, so that record then says less. Kept per thread (exec forgets it
// with the rest).
pid_t Mediator::IdentityOf(pid_t tid, KnownThread* thread, std::string& executable) {
  if (thread != nullptr && thread->executable) {
    executable = *thread->executable;
    return thread->tgid;
  }
  pid_t pid = tid;
  if (thread != nullptr && thread->status) {
    pid = thread->status->tgid;
  } else if (Result<std::string> text = ReadFile(StrCat("/proc/", tid, "/status"), 16384)) {
    if (Result<ThreadStatus> status = ParseThreadStatus(*text)) pid = status->tgid;
  }
  Result<std::string> link = ReadLink(StrCat("/proc/", tid, "/exe"));
  executable = link ? *link : std::string();
  if (thread != nullptr && link) {
    thread->tgid = pid;
    thread->executable = std::move(*link);
  }
  return pid;
}

}  // namespace vigil::sentry
