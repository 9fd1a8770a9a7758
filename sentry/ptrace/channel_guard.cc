#include "sentry/ptrace/channel_guard.h"

#include <linux/close_range.h>
#include <sys/syscall.h>

#include <cerrno>

#include "sentry/core/platform.h"

namespace vigil::sentry::channel_guard {
namespace {

constexpr unsigned kChannel = kDescriptorChannelFd;
constexpr std::uint64_t kCloseRangeFlags = CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC;

unsigned Descriptor(std::uint64_t arg) { return static_cast<unsigned>(arg); }

// close_range(first, last, flags) with first <= channel <= last: the parts
// below and above the channel, each closed as asked.
Answer CloseAround(const SyscallEvent& event) {
  const unsigned first = Descriptor(event.args[0]);
  const unsigned last = Descriptor(event.args[1]);
  const std::uint64_t flags = event.args[2];
  if ((flags & ~kCloseRangeFlags) != 0) return {.error = EINVAL};
  Answer answer;
  if (first < kChannel) answer.calls.push_back({SYS_close_range, {first, kChannel - 1, flags}});
  if (last > kChannel) answer.calls.push_back({SYS_close_range, {kChannel + 1, last, flags}});
  return answer;
}

}  // namespace

std::optional<Answer> AnswerFor(const SyscallEvent& event) {
  const bool first_is_channel = Descriptor(event.args[0]) == kChannel;
  switch (event.number) {
    case SYS_close:
    case SYS_dup:
    case SYS_fcntl:
      if (first_is_channel) return Answer{.error = EBADF};
      return std::nullopt;
    case SYS_dup2:
    case SYS_dup3:
      if (first_is_channel) return Answer{.error = EBADF};
      // The kernel's answer when the target is being installed by another
      // thread: a caller may retry, and none should.
      if (Descriptor(event.args[1]) == kChannel) return Answer{.error = EBUSY};
      return std::nullopt;
    case SYS_close_range:
      // As the kernel reads the bounds: their low 32 bits.
      if (Descriptor(event.args[0]) <= kChannel && Descriptor(event.args[1]) >= kChannel) {
        return CloseAround(event);
      }
      return Answer{.run_as_asked = true};
    default:
      return std::nullopt;
  }
}

}  // namespace vigil::sentry::channel_guard
