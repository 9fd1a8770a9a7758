#include "sentry/notify/unotify_server.h"

#include <sys/epoll.h>

#include <cerrno>

#include "base/log.h"
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
  std::vector<std::pair<std::string, std::string>> audit_args;
  Verdict verdict = Verdict::Fail(ENOSYS, Decision::kDeny);
  Result<UnotifyTracee> tracee = UnotifyTracee::Open(listener, id, event.tid);
  if (!tracee) {
    if (tracee.error().code == ENOENT) return;  // gone: nobody to answer
    log::Warning(tracee.error().message);
    verdict = Verdict::Fail(EPERM, Decision::kDeny);  // cannot be mediated safely
  } else if (const SyscallEntry* entry = FindSyscall(event.number); entry != nullptr) {
    HandlerContext context{.event = event,
                           .tracee = *tracee,
                           .sandbox = sandbox_,
                           .wait = [this](int fd, std::uint32_t events) {
                             return loop_.Wait(fd, events);
                           }};
    verdict = Handle(entry->handler, context);
    audit_args = std::move(context.audit_args);
  }
  if (verdict.kind == Verdict::Kind::kStale) return;
  if (verdict.kind == Verdict::Kind::kInstallFd) {
    // Installed and answered in one step, so a descriptor never lands in a
    // thread that stopped waiting for it (DESIGN.md §2 rule 7).
    Result<int> installed =
        unotify::AddFdAndRespond(listener, id, verdict.fd->Get(), verdict.cloexec);
    if (!installed) {
      if (installed.error().code == ENOENT) return;
      verdict = Verdict::Fail(installed.error().code, verdict.decision);
    } else {
      verdict.value = *installed;
    }
  }
  if (verdict.kind != Verdict::Kind::kInstallFd) {
    if (Result<void> sent = unotify::Respond(listener, id, verdict.value, verdict.error); !sent) {
      log::Warning(sent.error().message);
    }
  }
  if (observer_) {
    observer_(DecisionRecord{.event = event,
                             .verdict = verdict,
                             .args = audit_args,
                             .latency = std::chrono::steady_clock::now() - started});
  }
}

}  // namespace vigil::sentry
