#include "sentry/loop/event_loop.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace vigil::sentry {
namespace {

struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
    read_end.Reset(fds[0]);
    write_end.Reset(fds[1]);
  }
  UniqueFd read_end, write_end;
};

std::unique_ptr<EventLoop> NewLoop(std::size_t fibers = 4) {
  Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create(fibers, 32 * 1024);
  EXPECT_TRUE(loop) << loop.error().message;
  return std::move(*loop);
}

TEST(EventLoop, FiberRunsToCompletionImmediately) {
  auto loop = NewLoop();
  bool ran = false;
  loop->Spawn([&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_EQ(loop->SuspendedFibers(), 0u);
}

TEST(EventLoop, WaitingFiberResumesWhenItsDescriptorIsReady) {
  auto loop = NewLoop();
  Pipe pipe;
  std::vector<std::string> trace;
  loop->Spawn([&] {
    trace.push_back("waiting");
    ASSERT_TRUE(loop->Wait(pipe.read_end.Get(), EPOLLIN));
    char c = 0;
    EXPECT_EQ(::read(pipe.read_end.Get(), &c, 1), 1);
    trace.push_back(std::string("woke with ") + c);
  });
  EXPECT_EQ(trace, std::vector<std::string>{"waiting"});
  EXPECT_EQ(loop->SuspendedFibers(), 1u);
  ASSERT_EQ(::write(pipe.write_end.Get(), "x", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return trace.size() == 2; }));
  EXPECT_EQ(trace.back(), "woke with x");
  EXPECT_EQ(loop->SuspendedFibers(), 0u);
}

// The pool grows in chunks when every stack is in use, up to its most: a
// workload whose calls wait cannot exhaust the first chunk and starve the
// rest, and FewFibersLeft tells a caller how close the most is.
TEST(EventLoop, ThePoolGrowsInChunksUpToItsMost) {
  Result<std::unique_ptr<EventLoop>> created = EventLoop::Create(2, 32 * 1024, 5);
  ASSERT_TRUE(created) << created.error().message;
  EventLoop& loop = **created;
  std::vector<Pipe> pipes(6);
  int started = 0;
  for (Pipe& pipe : pipes) {
    loop.Spawn([&] {
      ++started;
      ASSERT_TRUE(loop.Wait(pipe.read_end.Get(), EPOLLIN));
    });
  }
  EXPECT_EQ(started, 5) << "two chunks of two and one of one";
  EXPECT_EQ(loop.SuspendedFibers(), 5u);
  EXPECT_TRUE(loop.FewFibersLeft(1));
  ASSERT_EQ(::write(pipes[0].write_end.Get(), "x", 1), 1);
  ASSERT_TRUE(loop.Run([&] { return started == 6; }));
  EXPECT_EQ(loop.SuspendedFibers(), 5u) << "the queued task took the freed stack";
  for (Pipe& pipe : pipes) (void)!::write(pipe.write_end.Get(), "x", 1);
  ASSERT_TRUE(loop.Run([&] { return loop.SuspendedFibers() == 0; }));
  EXPECT_FALSE(loop.FewFibersLeft(1));
}

// More tasks than stacks: the rest wait in the queue and run as stacks free.
TEST(EventLoop, TasksBeyondThePoolAreQueued) {
  auto loop = NewLoop(2);
  std::vector<Pipe> pipes(5);
  int finished = 0;
  for (Pipe& pipe : pipes) {
    loop->Spawn([&] {
      ASSERT_TRUE(loop->Wait(pipe.read_end.Get(), EPOLLIN));
      ++finished;
    });
  }
  EXPECT_EQ(loop->SuspendedFibers(), 2u);
  for (Pipe& pipe : pipes) ASSERT_EQ(::write(pipe.write_end.Get(), "x", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return finished == 5; }));
}

TEST(EventLoop, WaitOutsideAFiberIsAnError) {
  auto loop = NewLoop();
  Pipe pipe;
  EXPECT_FALSE(loop->Wait(pipe.read_end.Get(), EPOLLIN));
}

TEST(EventLoop, WatchCallsBackUntilUnwatched) {
  auto loop = NewLoop();
  Pipe pipe;
  int calls = 0;
  ASSERT_TRUE(loop->Watch(pipe.read_end.Get(), [&](std::uint32_t events) {
    EXPECT_TRUE(events & EPOLLIN);
    char c;
    while (::read(pipe.read_end.Get(), &c, 1) == 1) {
    }
    if (++calls == 2) loop->Unwatch(pipe.read_end.Get());
  }));
  ASSERT_EQ(::write(pipe.write_end.Get(), "a", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return calls == 1; }));
  ASSERT_EQ(::write(pipe.write_end.Get(), "b", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return calls == 2; }));
  // Unwatched: the descriptor can be watched again.
  EXPECT_TRUE(loop->Watch(pipe.read_end.Get(), [](std::uint32_t) {}));
}

// The prologue precedes every callback but a skipped watch's, every
// resumed fiber, and the caller's code once Run returns.
TEST(EventLoop, ThePrologueRunsBeforeEverythingButSkippedWatches) {
  auto loop = NewLoop();
  std::vector<std::string> trace;
  loop->SetPrologue([&] { trace.push_back("prologue"); });
  Pipe hot, plain, waited;
  auto drain = [](int fd) {
    char c;
    while (::read(fd, &c, 1) == 1) {
    }
  };
  ASSERT_TRUE(loop->Watch(
      hot.read_end.Get(),
      [&](std::uint32_t) {
        drain(hot.read_end.Get());
        trace.push_back("hot");
      },
      EventLoop::Prologue::kSkip));
  ASSERT_TRUE(loop->Watch(plain.read_end.Get(), [&](std::uint32_t) {
    drain(plain.read_end.Get());
    trace.push_back("plain");
  }));
  loop->Spawn([&] {
    ASSERT_TRUE(loop->Wait(waited.read_end.Get(), EPOLLIN));
    trace.push_back("resumed");
  });
  ASSERT_EQ(::write(hot.write_end.Get(), "h", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return !trace.empty(); }));
  EXPECT_EQ(trace, (std::vector<std::string>{"hot", "prologue"}));
  trace.clear();
  ASSERT_EQ(::write(plain.write_end.Get(), "p", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return !trace.empty(); }));
  EXPECT_EQ(trace, (std::vector<std::string>{"prologue", "plain", "prologue"}));
  trace.clear();
  ASSERT_EQ(::write(waited.write_end.Get(), "w", 1), 1);
  ASSERT_TRUE(loop->Run([&] { return !trace.empty(); }));
  EXPECT_EQ(trace, (std::vector<std::string>{"prologue", "resumed", "prologue"}));
}

// A fiber that overflows its stack hits the guard page below it: the process
// dies with SIGSEGV instead of writing into the neighbouring stack (which a
// first, suspended fiber holds here, so the overflow would land in mapped
// memory without the guard).
TEST(EventLoop, StackOverflowHitsTheGuardPage) {
  EXPECT_DEATH(
      {
        auto loop = NewLoop(2);
        Pipe pipe;
        loop->Spawn([&] { (void)loop->Wait(pipe.read_end.Get(), EPOLLIN); });
        loop->Spawn([] {
          volatile char big[34 * 1024];  // the stacks are 32 KiB
          big[0] = 1;
          big[sizeof big - 1] = big[0];
        });
      },
      "");
}

}  // namespace
}  // namespace vigil::sentry
