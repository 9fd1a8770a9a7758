#include "sentry/notify/unotify_server.h"

#include <sys/epoll.h>

#include <cerrno>

#include "base/log.h"
#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/notify/unotify.h"

namespace vigil::sentry {

Result<void> UnotifyServer::AddListener(UniqueFd listener) {
  RETURN_IF_ERROR(unotify::EnableSyncWakeUp(listener.Get()));
  const int fd = listener.Get();
  // The next notification is most likely the same workload thread's: its
  // credentials, which the last handler left, stay (ActingAs).
  RETURN_IF_ERROR(loop_.Watch(
      fd, [this, fd](std::uint32_t events) { OnReady(fd, events); }, EventLoop::Prologue::kSkip));
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
  const StillWaiting still_waiting = [listener, id] { return unotify::IdValid(listener, id); };
  Mediator::Decided decided = mediator_.Decide(event, still_waiting);
  if (decided.verdict.verify_exec) WatchExec(event, decided.args, decided.verdict);
  if (Answer(listener, id, decided.verdict)) mediator_.Record(event, decided);
}

bool UnotifyServer::Answer(int listener, std::uint64_t id, Verdict& verdict) {
  Result<void> sent;
  switch (verdict.kind) {
    case Verdict::Kind::kStale:
      return false;
    case Verdict::Kind::kInstallFd: {
      // Installed and answered in one step, so a descriptor never lands in
      // a thread that stopped waiting for it (docs/design.md, rule 7).
      Result<int> installed =
          unotify::AddFdAndRespond(listener, id, verdict.fd->Get(), verdict.cloexec);
      if (installed) {
        verdict.value = *installed;
        return true;
      }
      if (verdict.undo) verdict.undo();
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

void UnotifyServer::WatchExec(const SyscallEvent& event, const AuditArgs& args, Verdict& verdict) {
  // PTRACE_SEIZE, as the sentry.
  Result<void> watched = ActingAs::AsSentry();
  if (watched) {
    watched = execs_.Expect(event.tid, {.event = event,
                                        .args = args,
                                        .image = verdict.exec_image,
                                        .interpreter = verdict.exec_interpreter});
  }
  if (!watched) {
    log::Warning(watched.error().message);
    verdict = Verdict::Fail(EPERM, Decision::kDeny);
  }
}

}  // namespace vigil::sentry
