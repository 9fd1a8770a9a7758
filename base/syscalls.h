// Thin wrappers for system calls glibc 2.36 does not wrap (or wraps only in
// newer releases), so callers never write syscall(SYS_...) themselves.
#pragma once

#include <linux/openat2.h>
#include <signal.h>
#include <sys/types.h>

#include <cstdint>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil {

// A new process like fork(2), but with namespace flags and a pidfd for it.
// Returns 0 in the child and the child's pid in the parent; `pidfd` is set
// in the parent only. A child with an exit signal other than SIGCHLD (0:
// none) is a "clone" child, which only waits with __WCLONE or __WALL reap.
Result<pid_t> CloneWithPidfd(std::uint64_t flags, UniqueFd* pidfd, int exit_signal = SIGCHLD);

Result<UniqueFd> PidfdOpen(pid_t pid);
// A pidfd for one thread (PIDFD_THREAD, Linux 6.9): readable once that
// thread, not its whole process, has exited.
Result<UniqueFd> PidfdOpenThread(pid_t tid);
Result<void> PidfdSendSignal(int pidfd, int sig);
// The pid `pidfd` refers to, in this process's pid namespace (its
// /proc/self/fdinfo); ESRCH once that process has been reaped.
Result<pid_t> PidOfPidfd(int pidfd);

// pidfd_getfd(2): a duplicate (close-on-exec) of descriptor `fd` of the
// process `pidfd` refers to. Needs ptrace access to it.
Result<UniqueFd> PidfdGetfd(int pidfd, int fd);

// openat2(2) with `how`; O_CLOEXEC is always added.
Result<UniqueFd> Openat2(int dirfd, const char* path, std::uint64_t flags, std::uint64_t mode,
                         std::uint64_t resolve);

// close_range(2) with CLOSE_RANGE_CLOEXEC: marks every fd >= `first`
// (or from `first` to `last`) close-on-exec, so none leaks into the
// container (CVE-2024-21626).
Result<void> CloexecFrom(unsigned first);
Result<void> CloexecRange(unsigned first, unsigned last);

}  // namespace vigil
