// What a handler sees of the workload thread that made a syscall, written
// once for every backend (seccomp user notification, ptrace): its
// registers, its memory, and whether it still waits for the answer.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"

namespace vigil::sentry {

// One intercepted syscall, as the kernel reported it: registers only. What
// they point to must be read once through the Tracee (docs/design.md, rule 2).
struct SyscallEvent {
  pid_t tid = 0;  // in the sentry's pid namespace
  int number = -1;
  std::array<std::uint64_t, 6> args{};
};

class Tracee {
 public:
  virtual ~Tracee() = default;

  // Copies workload memory. An address the workload cannot read fails with
  // EFAULT, as the syscall itself would.
  virtual Result<void> Read(std::uint64_t address, std::span<std::byte> out) = 0;
  virtual Result<void> Write(std::uint64_t address, std::span<const std::byte> data) = 0;

  // Whether the syscall still waits for this answer: false once the thread
  // died or was interrupted, after which nothing may be done on its behalf.
  virtual bool Valid() = 0;

  // The thread's execution domain (personality(2)): answers that the
  // kernel adjusts for it (uname under PER_LINUX32) must be adjusted alike.
  virtual Result<unsigned int> Personality() = 0;

  // A duplicate of the thread's descriptor `fd` (pidfd_getfd): the same
  // open file, to act on as the workload asked. EBADF if it has none.
  virtual Result<UniqueFd> Descriptor(int fd) = 0;

  // The thread's root and working directory (O_PATH), the bases for
  // resolving its paths inside the container (docs/design.md, rule 4). The
  // root is shared with what the sentry keeps about the thread (it changes
  // only by chroot), the working directory opened for each call.
  virtual Result<SharedFd> Root() = 0;
  virtual Result<UniqueFd> WorkingDirectory() = 0;

  // The file the thread's process executes (O_PATH), where /proc/self/exe
  // leads: the sentry follows that link for the workload, whose own walk
  // it never lets follow a magic link.
  virtual Result<UniqueFd> Executable() = 0;

  // Where the container's root is, as the sentry sees it (what PathInRoot
  // strips): the policy names files as the container does, whatever root
  // the thread chrooted to.
  virtual Result<std::string> RootPath() = 0;

  // Whether the thread's root is not the container's (it chrooted): its
  // paths then name files from its own root.
  virtual Result<bool> Chrooted() = 0;

  // Where the thread's working directory and its descriptor `fd` are, as
  // paths from its root (what it would see in /proc/self/cwd, fd/N): the
  // bases of its relative paths, walked from Root().
  virtual Result<std::string> WorkingDirectoryPath() = 0;
  virtual Result<std::string> DescriptorPath(int fd) = 0;

  // Its credentials and namespace ids (/proc/TID/status).
  virtual Result<ThreadStatus> Status() = 0;

  // Writes `value`'s bytes to `address`.
  template <typename T>
  Result<void> WriteObject(std::uint64_t address, const T& value) {
    return Write(address, std::as_bytes(std::span(&value, 1)));
  }
};

}  // namespace vigil::sentry
