// The user-notification backend: serves every listener of a container (the
// init's and each exec'd process's) from the event loop, one fiber per
// notification.
#pragma once

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

namespace vigil::sentry {

// Everything the audit log records about one decision.
struct DecisionRecord {
  const SyscallEvent& event;
  const Verdict& verdict;
  const std::vector<std::pair<std::string, std::string>>& args;
  std::chrono::nanoseconds latency;
};

class UnotifyServer {
 public:
  using Observer = std::function<void(const DecisionRecord&)>;

  UnotifyServer(EventLoop& loop, const Sandbox& sandbox, Observer observer)
      : loop_(loop), sandbox_(sandbox), observer_(std::move(observer)) {}
  UnotifyServer(const UnotifyServer&) = delete;
  UnotifyServer& operator=(const UnotifyServer&) = delete;

  // Serves `listener` until every task using its filter is gone.
  Result<void> AddListener(UniqueFd listener);
  std::size_t listener_count() const { return listeners_.size(); }

 private:
  void OnReady(int listener, std::uint32_t events);
  void Serve(int listener, const SyscallEvent& event, std::uint64_t id);

  EventLoop& loop_;
  const Sandbox& sandbox_;
  Observer observer_;
  std::map<int, UniqueFd> listeners_;
};

}  // namespace vigil::sentry
