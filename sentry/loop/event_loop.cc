#include "sentry/loop/event_loop.h"

#include <algorithm>
#include <cerrno>

namespace vigil::sentry {
namespace {

// epoll_event.data: the descriptor, whether a watch or a waiting fiber owns
// it, and which registration of that descriptor number it was. An event
// fetched in the same epoll_wait batch as the removal of its descriptor is
// stale; by the generation it is not taken for a new descriptor that got
// the same number meanwhile.
constexpr std::uint64_t kWaitTag = std::uint64_t{1} << 32;
constexpr int kGenerationShift = 33;

std::uint64_t Tag(int fd, bool wait, std::uint32_t generation) {
  return static_cast<std::uint32_t>(fd) | (wait ? kWaitTag : 0) |
         (std::uint64_t{generation} << kGenerationShift);
}

}  // namespace

Result<std::unique_ptr<EventLoop>> EventLoop::Create(std::size_t fibers, std::size_t stack_size,
                                                     std::size_t most_fibers) {
  UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return FailErrno("epoll_create1");
  most_fibers = std::max(fibers, most_fibers);
  ASSIGN_OR_RETURN(StackPool stacks, StackPool::Create(fibers, stack_size, most_fibers));
  return std::unique_ptr<EventLoop>(
      new EventLoop(std::move(epoll), std::move(stacks), most_fibers));
}

EventLoop::EventLoop(UniqueFd epoll, StackPool stacks, std::size_t most_fibers)
    : epoll_(std::move(epoll)), stacks_(std::move(stacks)), most_fibers_(most_fibers) {}

// Suspended fibers are unwound (Boost.Context does that when a fiber is
// destroyed) before their stacks go away.
EventLoop::~EventLoop() { waiting_.clear(); }

Result<void> EventLoop::Watch(int fd, Callback on_ready, Prologue prologue) {
  const std::uint32_t generation = NextGeneration();
  epoll_event ev{.events = EPOLLIN, .data = {.u64 = Tag(fd, false, generation)}};
  if (::epoll_ctl(epoll_.Get(), EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl add");
  watched_[fd] = {generation, std::make_shared<Callback>(std::move(on_ready)), prologue};
  return {};
}

void EventLoop::Unwatch(int fd) {
  if (watched_.erase(fd) != 0) ::epoll_ctl(epoll_.Get(), EPOLL_CTL_DEL, fd, nullptr);
}

void EventLoop::Spawn(std::function<void()> task) {
  if (in_fiber_ || stacks_.empty()) {
    queued_.push_back(std::move(task));
    return;
  }
  boost::context::fiber fiber(std::allocator_arg, PoolAllocator{&stacks_},
                              [this, task = std::move(task)](boost::context::fiber&& loop) mutable {
                                to_loop_ = std::move(loop);
                                task();
                                return std::move(to_loop_);
                              });
  Resume(std::move(fiber));
}

void EventLoop::Resume(boost::context::fiber&& fiber) {
  in_fiber_ = true;
  boost::context::fiber suspended = std::move(fiber).resume();
  in_fiber_ = false;
  // An empty continuation: the fiber finished and its stack is back in the
  // pool. Otherwise it yielded in Wait() and is parked on its descriptor.
  if (suspended) {
    waiting_.emplace(pending_wait_fd_, Parked{pending_wait_generation_, std::move(suspended)});
  }
  StartQueued();
}

void EventLoop::StartQueued() {
  while (!queued_.empty() && !stacks_.empty() && !in_fiber_) {
    std::function<void()> task = std::move(queued_.front());
    queued_.pop_front();
    RunPrologue();
    Spawn(std::move(task));
  }
}

Result<void> EventLoop::Wait(int fd, std::uint32_t events) {
  if (!in_fiber_) return Fail("EventLoop::Wait outside a fiber");
  if (waiting_.count(fd) != 0 || watched_.count(fd) != 0) {
    return Fail("EventLoop::Wait on a descriptor already in the loop");
  }
  const std::uint32_t generation = NextGeneration();
  epoll_event ev{.events = events | EPOLLONESHOT, .data = {.u64 = Tag(fd, true, generation)}};
  if (::epoll_ctl(epoll_.Get(), EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl add");
  pending_wait_fd_ = fd;
  pending_wait_generation_ = generation;
  to_loop_ = std::move(to_loop_).resume();
  ::epoll_ctl(epoll_.Get(), EPOLL_CTL_DEL, fd, nullptr);
  return {};
}

void EventLoop::Dispatch(const epoll_event& event) {
  const std::uint64_t tag = event.data.u64;
  const int fd = static_cast<int>(tag & 0xffffffff);
  const auto generation = static_cast<std::uint32_t>(tag >> kGenerationShift);
  if ((tag & kWaitTag) != 0) {
    auto it = waiting_.find(fd);
    if (it == waiting_.end() || it->second.generation != generation) return;
    boost::context::fiber fiber = std::move(it->second.fiber);
    waiting_.erase(it);
    RunPrologue();
    Resume(std::move(fiber));
    return;
  }
  auto it = watched_.find(fd);
  // Unwatched earlier in this batch, perhaps with its number taken again.
  if (it == watched_.end() || it->second.generation != generation) return;
  std::shared_ptr<Callback> callback = it->second.callback;  // survives an Unwatch from inside
  if (it->second.prologue == Prologue::kRun) RunPrologue();
  (*callback)(event.events);
}

Result<void> EventLoop::Run(const std::function<bool()>& done) {
  epoll_event events[16];
  Result<void> ran;
  while (ran && !done()) {
    int n = ::epoll_wait(epoll_.Get(), events, std::size(events), -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ran = FailErrno("epoll_wait");
    for (int i = 0; i < n; ++i) Dispatch(events[i]);
  }
  // What the caller does next is not a watch's work either.
  RunPrologue();
  return ran;
}

}  // namespace vigil::sentry
