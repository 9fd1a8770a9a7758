// The user-notification backend: serves every listener of a container (the
// init's and each exec'd process's) from the event loop, one fiber per
// notification.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "sentry/core/sandbox.h"
#include "sentry/core/tracee.h"
#include "sentry/core/verdict.h"
#include "sentry/loop/event_loop.h"
#include "sentry/notify/exec_watch.h"
#include "sentry/notify/known_threads.h"

namespace vigil::sentry {

// The process behind a decision, for the audit log.
struct ProcessIdentity {
  pid_t pid = 0;           // its thread group, as the sentry sees it
  std::string executable;  // empty when it could not be read
};

// Everything the audit log records about one decision.
struct DecisionRecord {
  const SyscallEvent& event;
  const Verdict& verdict;
  const AuditArgs& args;
  std::chrono::nanoseconds latency;
  // Looked up on request only: most decisions are not logged.
  const std::function<ProcessIdentity()>& identity;
};

class UnotifyServer {
 public:
  using Observer = std::function<void(const DecisionRecord&)>;

  UnotifyServer(EventLoop& loop, const Sandbox& sandbox, Observer observer)
      : loop_(loop),
        sandbox_(sandbox),
        observer_(std::move(observer)),
        threads_(loop),
        execs_([this](const ExecWatch::Approved& approved, pid_t pid, const std::string& mapped) {
          RecordKilledExec(approved, pid, mapped);
        }) {
    if (sandbox.personality_may_differ) threads_.AssumePersonalityMayDiffer();
  }
  UnotifyServer(const UnotifyServer&) = delete;
  UnotifyServer& operator=(const UnotifyServer&) = delete;

  // Serves `listener` until every task using its filter is gone.
  Result<void> AddListener(UniqueFd listener);
  std::size_t listener_count() const { return listeners_.size(); }

  // A process joins whose execution domain may not be PER_LINUX (an exec
  // from a caller under setarch).
  void AssumePersonalityMayDiffer() { threads_.AssumePersonalityMayDiffer(); }

  const KnownThreads& threads() const { return threads_; }

  // A child event from the supervisor's waitid loop; true when it was the
  // stop of a thread whose exec the sentry verifies (exec_watch.h).
  bool OnChildEvent(const siginfo_t& child) { return execs_.OnChildEvent(child); }

 private:
  void OnReady(int listener, std::uint32_t events);
  void Serve(int listener, const SyscallEvent& event, std::uint64_t id);
  // Sends `verdict` as the answer to `id`; false when nobody waits for it.
  bool Answer(int listener, std::uint64_t id, Verdict& verdict);
  void WatchExec(const SyscallEvent& event, const AuditArgs& args, Verdict& verdict);
  void RecordKilledExec(const ExecWatch::Approved& approved, pid_t pid, const std::string& mapped);
  ProcessIdentity IdentityOf(pid_t tid, KnownThread* thread);

  EventLoop& loop_;
  const Sandbox& sandbox_;
  Observer observer_;
  KnownThreads threads_;
  ExecWatch execs_;
  std::map<int, UniqueFd> listeners_;
};

}  // namespace vigil::sentry
