// Test helpers: a filter cannot be removed, so each load happens in a forked
// child, which reports one number through its exit status.
#pragma once

#include <gmock/gmock.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/oci/seccomp.h"
#include "seccomp/profile.h"

namespace vigil::runtime::testing {

// Exit status of a child whose LoadSeccomp failed.
inline constexpr int kLoadFailed = 250;

// 0 if a raw syscall succeeded, else its errno. Under a filter the body may
// only make raw system calls: libc helpers could make syscalls the profile
// denies.
inline int ErrnoOf(long rc) { return rc < 0 ? errno : 0; }

// Forks a child that sets no_new_privs, loads `filter`, and _exits with
// body(listener fd or -1). Returns the child's pid; the caller waits.
inline pid_t SpawnUnderFilter(const seccomp::CompiledFilter& filter,
                              const std::function<int(int)>& body) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);  // SIGSYS would dump core
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  Result<UniqueFd> listener = seccomp::LoadSeccomp(filter);
  if (!listener) ::_exit(kLoadFailed);
  ::_exit(body(listener->Get()));
}

inline int WaitStatus(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Runs body() in a child under `filter`; returns its wait status.
inline int RunUnderFilter(const seccomp::CompiledFilter& filter, const std::function<int()>& body) {
  return WaitStatus(SpawnUnderFilter(filter, [&](int) { return body(); }));
}

MATCHER_P(Exited, code, "exited with status " + ::testing::PrintToString(code)) {
  if (WIFSIGNALED(arg)) *result_listener << "killed by signal " << WTERMSIG(arg);
  if (WIFEXITED(arg)) *result_listener << "exited with status " << WEXITSTATUS(arg);
  return WIFEXITED(arg) && WEXITSTATUS(arg) == code;
}

MATCHER_P(KilledBy, sig, "killed by signal " + ::testing::PrintToString(sig)) {
  if (WIFSIGNALED(arg)) *result_listener << "killed by signal " << WTERMSIG(arg);
  if (WIFEXITED(arg)) *result_listener << "exited with status " << WEXITSTATUS(arg);
  return WIFSIGNALED(arg) && WTERMSIG(arg) == sig;
}

inline config::SeccompSyscall Rule(std::vector<std::string> names, config::SeccompAction action,
                                   std::optional<std::uint32_t> errno_ret = std::nullopt,
                                   std::vector<config::SeccompArg> args = {}) {
  return config::SeccompSyscall{
      .names = std::move(names), .action = action, .errno_ret = errno_ret, .args = std::move(args)};
}

inline config::SeccompArg Arg(std::uint32_t index, config::SeccompOperator op, std::uint64_t value,
                              std::uint64_t value_two = 0) {
  return config::SeccompArg{.index = index, .value = value, .value_two = value_two, .op = op};
}

}  // namespace vigil::runtime::testing
