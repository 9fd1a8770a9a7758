// The answers to the calls the ptrace platform's channel guard filter stops
// because they name the descriptor channel (kDescriptorChannelFd;
// BuildChannelGuardFilter in sentry/table/sentry_filter.h): as if that
// descriptor were not open, so
// that nothing the workload does closes or replaces it. A program that
// closes every descriptor it did not open (close_range(3, ~0U), as
// Python's subprocess does before an exec) closes all the others and keeps
// the channel, and what it execs can still be handed files.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "sentry/core/tracee.h"
#include "sentry/ptrace/injection.h"

namespace vigil::sentry::channel_guard {

struct Answer {
  // The syscall runs as asked (it did not name the channel after all: a
  // close_range whose bounds had high bits set);
  bool run_as_asked = false;
  // or it returns `error` (or 0) at once;
  int error = 0;
  // or these calls run in its place (a close_range split around the
  // channel), and the last one's result is the syscall's.
  std::deque<InjectedCall> calls;
};

// The answer to `event`, or nullopt if it is not a call the guard stops.
std::optional<Answer> AnswerFor(const SyscallEvent& event);

}  // namespace vigil::sentry::channel_guard
