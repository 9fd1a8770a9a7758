// The seccomp user-notification interface (seccomp_unotify(2)) as the
// sentry uses it: raw ioctls on a listener descriptor.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "sentry/core/tracee.h"

namespace vigil::sentry::unotify {

struct Notification {
  std::uint64_t id = 0;
  SyscallEvent event;
};

// Checks at start-up that the kernel's notification structures are the
// ones this build knows (they only ever grow), and says what is missing.
Result<void> CheckKernelSupport();

// SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6): the kernel wakes the
// supervisor and the notified task on the same CPU, which turns a ~30 µs
// cross-CPU round trip into ~2 µs on these machines (docs/design.md).
Result<void> EnableSyncWakeUp(int listener);

// The next notification; fails with ENOENT when the notifying task went
// away between the wake-up and the read.
Result<Notification> Receive(int listener);

// SECCOMP_IOCTL_NOTIF_ID_VALID: the task still waits for answer `id`.
bool IdValid(int listener, std::uint64_t id);

// Answers `id`: the syscall returns `value`, or fails with `error` when
// non-zero. ENOENT (the task no longer waits) is not an error here.
Result<void> Respond(int listener, std::uint64_t id, std::int64_t value, int error);

// Lets the syscall of `id` run in the kernel as the task made it
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE). ENOENT is not an error here either.
Result<void> RespondContinue(int listener, std::uint64_t id);

// Installs `fd` in the notified task and answers `id` with its number, in
// one step (SECCOMP_ADDFD_FLAG_SEND, docs/design.md, rule 7).
Result<int> AddFdAndRespond(int listener, std::uint64_t id, int fd, bool cloexec);

}  // namespace vigil::sentry::unotify
