// The supervisor's one event loop (docs/design.md, rule 9): epoll over
// descriptors, with work that may have to wait run as Boost.Context fibers
// on pre-allocated stacks. A fiber that must wait for a descriptor yields
// to the loop instead of blocking it; everything runs on one thread.
#pragma once

#include <sys/epoll.h>

#include <boost/context/fiber.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/loop/stack_pool.h"

namespace vigil::sentry {

class EventLoop {
 public:
  // Receives the epoll events that fired (EPOLLIN, EPOLLHUP, ...).
  using Callback = std::function<void(std::uint32_t events)>;

  // `fibers` stacks of `stack_size` bytes, and more in chunks of that many
  // as they are all in use, up to `most_fibers` (at least `fibers`): at
  // most that many tasks are suspended at once; more wait in a queue until
  // one finishes.
  static Result<std::unique_ptr<EventLoop>> Create(std::size_t fibers = 64,
                                                   std::size_t stack_size = 64 * 1024,
                                                   std::size_t most_fibers = 0);
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;
  ~EventLoop();

  // Whether a watch's callback is preceded by the loop's prologue.
  enum class Prologue { kRun, kSkip };

  // Calls `on_ready` (on the loop, not in a fiber) whenever `fd` is
  // readable or hung up, until Unwatch. One watch per descriptor.
  Result<void> Watch(int fd, Callback on_ready, Prologue prologue = Prologue::kRun);
  void Unwatch(int fd);

  // Runs `prologue` before every callback, every fiber resumed from a Wait
  // and every queued task started, except the callbacks of watches made
  // with Prologue::kSkip, and when Run returns: state that work of one kind may leave behind for
  // the next of its kind, and everything else must not see (the sentry's
  // credentials, ActingAs).
  void SetPrologue(std::function<void()> prologue) { prologue_ = std::move(prologue); }

  // Runs `task` in a fiber: now, or once a stack is free (and, if called
  // from a fiber, after the caller yields or ends).
  void Spawn(std::function<void()> task);

  // From a fiber only: suspends it until `fd` has one of `events`
  // (EPOLLIN, EPOLLOUT; errors and hang-ups always wake it).
  Result<void> Wait(int fd, std::uint32_t events);

  bool InFiber() const { return in_fiber_; }
  std::size_t SuspendedFibers() const { return waiting_.size(); }
  // Whether fewer than `kept` of the most fibers there can be are left
  // beside the suspended ones: what a caller that may refuse to wait
  // (a handler, which answers as if interrupted) keeps for the rest.
  bool FewFibersLeft(std::size_t kept) const { return waiting_.size() + kept >= most_fibers_; }

  // Serves events until `done()` holds (checked before each wait).
  Result<void> Run(const std::function<bool()>& done);

 private:
  EventLoop(UniqueFd epoll, StackPool stacks, std::size_t most_fibers);
  void Resume(boost::context::fiber&& fiber);
  void StartQueued();
  void Dispatch(const epoll_event& event);

  UniqueFd epoll_;
  StackPool stacks_;
  std::size_t most_fibers_;
  struct Watched {
    std::uint32_t generation;
    std::shared_ptr<Callback> callback;
    Prologue prologue;
  };
  void RunPrologue() {
    if (prologue_) prologue_();
  }
  struct Parked {
    std::uint32_t generation;
    boost::context::fiber fiber;
  };
  // 31 bits, as they fit beside the descriptor in epoll_event.data.
  std::uint32_t NextGeneration() { return next_generation_++ & 0x7fffffff; }

  std::map<int, Watched> watched_;
  std::map<int, Parked> waiting_;  // fd -> the fiber waiting on it
  std::deque<std::function<void()>> queued_;
  std::function<void()> prologue_;
  // While a fiber runs: the loop's continuation, to switch back to.
  boost::context::fiber to_loop_;
  bool in_fiber_ = false;
  int pending_wait_fd_ = -1;  // set by Wait() just before it yields
  std::uint32_t pending_wait_generation_ = 0;
  std::uint32_t next_generation_ = 0;
};

}  // namespace vigil::sentry
