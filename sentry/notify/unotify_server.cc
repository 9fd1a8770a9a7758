#include "sentry/notify/unotify_server.h"

#include <sys/epoll.h>

#include <cerrno>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "sentry/handlers/handler.h"
#include "sentry/notify/unotify.h"
#include "sentry/notify/unotify_tracee.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

Result<void> UnotifyServer::AddListener(UniqueFd listener) {
  RETURN_IF_ERROR(unotify::EnableSyncWakeUp(listener.Get()));
  const int fd = listener.Get();
  RETURN_IF_ERROR(loop_.Watch(fd, [this, fd](std::uint32_t events) { OnReady(fd, events); }));
  listeners_.emplace(fd, std::move(listener));
  return {};
}

void UnotifyServer::OnReady(int listener, std::uint32_t events) {
  if ((events & EPOLLIN) == 0) {
    // Hung up: no task uses this filter any more.
    loop_.Unwatch(listener);
    listeners_.erase(listener);
    return;
  }
  Result<unotify::Notification> notification = unotify::Receive(listener);
  if (!notification) {
    if (notification.error().code != ENOENT) log::Warning(notification.error().message);
    return;
  }
  loop_.Spawn([this, listener, n = *notification] { Serve(listener, n.event, n.id); });
}

void UnotifyServer::Serve(int listener, const SyscallEvent& event, std::uint64_t id) {
  const auto started = std::chrono::steady_clock::now();
  AuditArgs audit_args;
  Verdict verdict = Verdict::Fail(ENOSYS, Decision::kDeny);
  const SyscallEntry* entry = FindSyscall(event.number);
  Result<std::shared_ptr<KnownThread>> thread = threads_.Find(listener, id, event.tid);
  if (!thread) {
    if (thread.error().code == ENOENT) return;  // gone: nobody to answer
    log::Warning(thread.error().message);
    verdict = Verdict::Fail(EPERM, Decision::kDeny);  // cannot be mediated safely
  } else if (entry != nullptr) {
    UnotifyTracee tracee(listener, id, *thread, threads_.personality_may_differ());
    HandlerContext context{.event = event,
                           .tracee = tracee,
                           .sandbox = sandbox_,
                           .wait = [this](int fd, std::uint32_t events) {
                             return loop_.Wait(fd, events);
                           }};
    verdict = Handle(entry->handler, context);
    audit_args = std::move(context.audit_args);
    if (verdict.verify_exec) WatchExec(event, audit_args, verdict);
    // What an observed syscall changes is forgotten before it may run.
    threads_.Observe(entry->handler, event);
  }
  if (!Answer(listener, id, verdict) || !observer_) return;
  KnownThread* known = thread ? thread->get() : nullptr;
  const std::function<ProcessIdentity()> identity = [&] { return IdentityOf(event.tid, known); };
  observer_(DecisionRecord{.event = event,
                           .verdict = verdict,
                           .args = audit_args,
                           .latency = std::chrono::steady_clock::now() - started,
                           .identity = identity});
}

bool UnotifyServer::Answer(int listener, std::uint64_t id, Verdict& verdict) {
  Result<void> sent;
  switch (verdict.kind) {
    case Verdict::Kind::kStale:
      return false;
    case Verdict::Kind::kInstallFd: {
      // Installed and answered in one step, so a descriptor never lands in
      // a thread that stopped waiting for it (DESIGN.md §2 rule 7).
      Result<int> installed =
          unotify::AddFdAndRespond(listener, id, verdict.fd->Get(), verdict.cloexec);
      if (installed) {
        verdict.value = *installed;
        return true;
      }
      if (installed.error().code == ENOENT) return false;
      verdict = Verdict::Fail(installed.error().code, verdict.decision);
      sent = unotify::Respond(listener, id, 0, verdict.error);
      break;
    }
    case Verdict::Kind::kContinue:
      sent = unotify::RespondContinue(listener, id);
      break;
    case Verdict::Kind::kReturn:
      sent = unotify::Respond(listener, id, verdict.value, verdict.error);
      break;
  }
  if (!sent) log::Warning(sent.error().message);
  return true;
}

// Seizes the thread before its exec may start (exec_watch.h); an exec that
// cannot be verified does not run.
void UnotifyServer::WatchExec(const SyscallEvent& event, const AuditArgs& args, Verdict& verdict) {
  Result<void> watched =
      execs_.Expect(event.tid, {.event = event, .args = args, .image = verdict.exec_image});
  if (!watched) {
    log::Warning(watched.error().message);
    verdict = Verdict::Fail(EPERM, Decision::kDeny);
  }
}

// The audit record of an exec killed at PTRACE_EVENT_EXEC: the syscall as
// approved, what it mapped instead.
void UnotifyServer::RecordKilledExec(const ExecWatch::Approved& approved, pid_t pid,
                                     const std::string& mapped) {
  if (!observer_) return;
  const Verdict killed{.decision = Decision::kKill, .error = EACCES};
  AuditArgs args = approved.args;
  args.emplace_back("mapped", mapped);
  const std::function<ProcessIdentity()> identity = [&] {
    return ProcessIdentity{.pid = pid, .executable = mapped};
  };
  observer_(DecisionRecord{.event = approved.event,
                           .verdict = killed,
                           .args = args,
                           .latency = {},
                           .identity = identity});
}

// Read after the answer, so without a validity check: the thread may be
// gone by now, and the audit record then says less. Kept per thread (exec
// forgets it with the rest).
ProcessIdentity UnotifyServer::IdentityOf(pid_t tid, KnownThread* thread) {
  if (thread != nullptr && thread->executable) {
    return {.pid = thread->tgid, .executable = *thread->executable};
  }
  ProcessIdentity identity{.pid = tid};
  if (thread != nullptr && thread->status) {
    identity.pid = thread->status->tgid;
  } else if (Result<std::string> text = ReadFile(StrCat("/proc/", tid, "/status"), 16384)) {
    if (Result<ThreadStatus> status = ParseThreadStatus(*text)) identity.pid = status->tgid;
  }
  Result<std::string> executable = ReadLink(StrCat("/proc/", tid, "/exe"));
  if (executable) identity.executable = *executable;
  if (thread != nullptr && executable) {
    thread->tgid = identity.pid;
    thread->executable = identity.executable;
  }
  return identity;
}

}  // namespace vigil::sentry
