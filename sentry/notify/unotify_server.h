// The user-notification backend: serves every listener of a container (the
// init's and each exec'd process's) from the event loop, one fiber per
// notification; the Mediator decides, this answers.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>

#include "base/unique_fd.h"
#include "sentry/core/sandbox.h"
#include "sentry/core/verdict.h"
#include "sentry/loop/event_loop.h"
#include "sentry/notify/exec_watch.h"
#include "sentry/serve/backend.h"
#include "sentry/serve/mediator.h"

namespace vigil::sentry {

class UnotifyServer final : public Backend {
 public:
  UnotifyServer(EventLoop& loop, const Sandbox& sandbox, Mediator::Observer observer)
      : loop_(loop),
        mediator_(loop, sandbox, std::move(observer)),
        execs_(
            [this](const ExecApprovals::Approved& approved, pid_t pid, const std::string& mapped) {
              mediator_.RecordKilledExec(approved, pid, mapped);
            }) {}
  UnotifyServer(const UnotifyServer&) = delete;
  UnotifyServer& operator=(const UnotifyServer&) = delete;

  // Serves `listener` until every task using its filter is gone.
  Result<void> AddListener(UniqueFd listener);
  std::size_t listener_count() const { return listeners_.size(); }

  // Backend: a process's listener is served like AddListener's.
  Result<void> Adopt(pid_t, UniqueFd listener) override { return AddListener(std::move(listener)); }
  void AssumePersonalityMayDiffer() override { mediator_.AssumePersonalityMayDiffer(); }
  // Stops of the threads whose exec the sentry verifies (exec_watch.h).
  bool OnChildEvent(const siginfo_t& child) override { return execs_.OnChildEvent(child); }

  const KnownThreads& threads() const { return mediator_.threads(); }

 private:
  void OnReady(int listener, std::uint32_t events);
  void Serve(int listener, const SyscallEvent& event, std::uint64_t id);
  // Sends `verdict` as the answer to `id`; false when nobody waits for it.
  bool Answer(int listener, std::uint64_t id, Verdict& verdict);
  // Seizes the thread before its exec may start; an exec that cannot be
  // verified does not run.
  void WatchExec(const SyscallEvent& event, const AuditArgs& args, Verdict& verdict);

  EventLoop& loop_;
  Mediator mediator_;
  ExecWatch execs_;
  std::map<int, UniqueFd> listeners_;
};

}  // namespace vigil::sentry
