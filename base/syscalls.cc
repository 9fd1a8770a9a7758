#include "base/syscalls.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/file.h"
#include "base/strings.h"

namespace vigil {

Result<pid_t> CloneWithPidfd(std::uint64_t flags, UniqueFd* pidfd, int exit_signal) {
  int fd = -1;
  clone_args args;
  std::memset(&args, 0, sizeof args);
  args.flags = flags | CLONE_PIDFD;
  args.pidfd = reinterpret_cast<std::uintptr_t>(&fd);
  // A CLONE_PARENT child inherits its exit signal; the kernel refuses one.
  args.exit_signal = (flags & CLONE_PARENT) ? 0 : static_cast<std::uint64_t>(exit_signal);
  long pid = ::syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0) return FailErrno("clone3");
  if (pid > 0) pidfd->Reset(fd);
  return static_cast<pid_t>(pid);
}

Result<UniqueFd> PidfdOpen(pid_t pid) {
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return FailErrno("pidfd_open");
  return UniqueFd(static_cast<int>(fd));
}

Result<UniqueFd> PidfdOpenThread(pid_t tid) {
  constexpr unsigned int kPidfdThread = O_EXCL;  // the uapi's PIDFD_THREAD
  long fd = ::syscall(SYS_pidfd_open, tid, kPidfdThread);
  if (fd < 0) return FailErrno(StrCat("pidfd_open thread ", tid));
  return UniqueFd(static_cast<int>(fd));
}

Result<pid_t> PidOfPidfd(int pidfd) {
  ASSIGN_OR_RETURN(std::string info, ReadFile(StrCat("/proc/self/fdinfo/", pidfd), 4096));
  constexpr std::string_view kPid = "\nPid:\t";
  const std::size_t at = info.find(kPid);
  if (at == std::string::npos) return Fail(StrCat("descriptor ", pidfd, " is not a pidfd"));
  const pid_t pid = static_cast<pid_t>(std::atol(info.c_str() + at + kPid.size()));
  if (pid <= 0) return FailErrno(ESRCH, "the pidfd's process is gone");
  return pid;
}

Result<void> PidfdSendSignal(int pidfd, int sig) {
  if (::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) != 0) {
    return FailErrno("pidfd_send_signal");
  }
  return {};
}

Result<UniqueFd> PidfdGetfd(int pidfd, int fd) {
  long dup = ::syscall(SYS_pidfd_getfd, pidfd, fd, 0);
  if (dup < 0) return FailErrno(StrCat("pidfd_getfd of descriptor ", fd));
  return UniqueFd(static_cast<int>(dup));
}

Result<UniqueFd> Openat2(int dirfd, const char* path, std::uint64_t flags, std::uint64_t mode,
                         std::uint64_t resolve) {
  open_how how;
  std::memset(&how, 0, sizeof how);
  how.flags = flags | O_CLOEXEC;
  how.mode = mode;
  how.resolve = resolve;
  // A ".." walked under RESOLVE_BENEATH or IN_ROOT while any rename or mount
  // happens anywhere on the system fails with EAGAIN (the kernel cannot
  // prove it stayed inside): openat2(2) says to retry. A few times only:
  // someone renaming without pause still gets the EAGAIN. With
  // RESOLVE_CACHED, EAGAIN means "not in the cache" and is the answer.
  const bool retry =
      (resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT)) != 0 && (resolve & RESOLVE_CACHED) == 0;
  long fd = -1;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN || !retry) break;
  }
  if (fd < 0) return FailErrno(std::string("openat2 ") + path);
  return UniqueFd(static_cast<int>(fd));
}

Result<void> CloexecRange(unsigned first, unsigned last) {
  if (::syscall(SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC) != 0) {
    return FailErrno("close_range");
  }
  return {};
}

Result<void> CloexecFrom(unsigned first) { return CloexecRange(first, ~0u); }

}  // namespace vigil
