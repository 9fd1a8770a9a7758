// A timer on the sentry's event loop for tests that poll for what the
// supervisor is woken for (SIGCHLD, pidfds): calls `tick` every `period`
// from the loop until destroyed.
#pragma once

#include <gtest/gtest.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>

#include "base/unique_fd.h"
#include "sentry/loop/event_loop.h"

namespace vigil::sentry {

class LoopTicker {
 public:
  LoopTicker(EventLoop& loop, std::chrono::milliseconds period, std::function<void()> tick)
      : loop_(loop), timer_(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period).count();
    const timespec interval{.tv_sec = ns / 1'000'000'000, .tv_nsec = ns % 1'000'000'000};
    const itimerspec spec{.it_interval = interval, .it_value = interval};
    EXPECT_TRUE(timer_ && ::timerfd_settime(timer_.Get(), 0, &spec, nullptr) == 0);
    const int fd = timer_.Get();
    EXPECT_TRUE(loop_.Watch(fd, [fd, tick = std::move(tick)](std::uint32_t) {
      std::uint64_t expirations = 0;
      if (::read(fd, &expirations, sizeof expirations) == sizeof expirations) tick();
    }));
  }
  LoopTicker(const LoopTicker&) = delete;
  LoopTicker& operator=(const LoopTicker&) = delete;
  ~LoopTicker() { loop_.Unwatch(timer_.Get()); }

 private:
  EventLoop& loop_;
  UniqueFd timer_;
};

}  // namespace vigil::sentry
