#include "runtime/process/hooks.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "base/strings.h"
#include "base/syscalls.h"
#include "base/unique_fd.h"
#include "runtime/linux/exec.h"
#include "runtime/process/wait.h"

namespace vigil::runtime {
namespace {

// In a hook's child: into the placement's cgroups. Best effort: a hook
// that cannot leave (a cgroup removed meanwhile) still runs, charged to
// the container as it was before.
void JoinCgroups(const std::vector<std::string>& procs_files) {
  for (const std::string& file : procs_files) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)!::write(fd, "0", 1);  // 0: the writer itself
    ::close(fd);
  }
}

Result<void> RunHook(const config::Hook& hook, const std::string& state_json,
                     const HookPlacement& placement, const WaitReadable& wait) {
  // A socket rather than a pipe: send(MSG_NOSIGNAL) survives a hook that
  // exits without reading, with no SIGPIPE disposition to change.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return FailErrno("socketpair");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  UniqueFd pidfd;
  // No exit signal: a caller reaping its other children with waitid(P_ALL)
  // meanwhile (the supervisor) cannot take this one's status.
  ASSIGN_OR_RETURN(pid_t pid, CloneWithPidfd(0, &pidfd, /*exit_signal=*/0));
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(read_end.Get(), STDIN_FILENO);
    for (int ns : placement.namespaces) {
      if (::setns(ns, 0) != 0) ::_exit(127);
    }
    JoinCgroups(placement.cgroup_procs);
    // A hook gets its stdio and nothing else of the runtime's (or of
    // whoever started the runtime), as runc's hooks do.
    if (!CloexecFrom(3)) ::_exit(127);
    if (placement.profile != nullptr && !seccomp::LoadSeccomp(*placement.profile)) ::_exit(127);
    std::vector<std::string> args = hook.args.empty() ? std::vector{hook.path} : hook.args;
    (void)Exec(hook.path, args, hook.env);
    ::_exit(127);
  }
  read_end.Reset();
  // The hook may exit without reading its stdin; that is not an error.
  std::string_view rest = state_json;
  while (!rest.empty()) {
    ssize_t n = ::send(write_end.Get(), rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  write_end.Reset();

  Result<bool> ended = wait(pidfd.Get(), hook.timeout ? *hook.timeout * 1000 : -1);
  if (!ended || !*ended) {
    KillAndReap(pid);
    if (!ended) return tl::unexpected(ended.error());
    return Fail(StrCat("timed out after ", *hook.timeout, " s"));
  }
  int status = 0;
  while (::waitpid(pid, &status, __WALL) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status)) {
    return Fail(WEXITSTATUS(status) == 127 ? "exit status 127 (could it be executed?)"
                                           : StrCat("exit status ", WEXITSTATUS(status)));
  }
  // "error running hook" and the signal's name in lower case, as runc
  // reports it ("signal: bad system call"): scripts match them.
  std::string name = ::strsignal(WTERMSIG(status));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return Fail(StrCat("error running hook: killed by signal ", WTERMSIG(status), " (", name, ")"));
}

}  // namespace

Result<bool> PollReadable(int fd, int timeout_ms) {
  pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
  for (;;) {
    const int n = ::poll(&ready, 1, timeout_ms);
    if (n >= 0) return n > 0;
    if (errno != EINTR) return FailErrno("poll");
  }
}

const std::vector<config::Hook>& HooksOf(const config::Spec& spec, std::string_view kind) {
  static const std::vector<config::Hook> kNone;
  if (!spec.hooks) return kNone;
  const config::Hooks& h = *spec.hooks;
  if (kind == "prestart") return h.prestart;
  if (kind == "createRuntime") return h.create_runtime;
  if (kind == "createContainer") return h.create_container;
  if (kind == "startContainer") return h.start_container;
  if (kind == "poststart") return h.poststart;
  if (kind == "poststop") return h.poststop;
  return kNone;
}

Result<void> RunHooks(std::string_view kind, const std::vector<config::Hook>& hooks,
                      const config::State& state, const HookPlacement& placement,
                      const WaitReadable& wait) {
  if (hooks.empty()) return {};
  std::string state_json = config::DumpState(state);
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    RETURN_IF_ERROR_WRAP(RunHook(hooks[i], state_json, placement, wait),
                         StrCat("hooks.", kind, "[", i, "] ", hooks[i].path));
  }
  return {};
}

}  // namespace vigil::runtime
