#include "runtime/process/wait.h"

#include <sys/wait.h>

#include <cerrno>
#include <initializer_list>

namespace vigil::runtime {

sigset_t ForwardedSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH}) {
    sigaddset(&set, sig);
  }
  return set;
}

int ShellStatus(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  // __WALL: also a child cloned without SIGCHLD as its exit signal.
  while (::waitpid(pid, nullptr, __WALL) < 0 && errno == EINTR) {
  }
}

int WaitForwardingSignals(pid_t pid) {
  const sigset_t set = ForwardedSignals();
  sigset_t old;
  sigprocmask(SIG_BLOCK, &set, &old);
  int result = 255;
  while (true) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      result = ShellStatus(status);
      break;
    }
    if (done < 0 && errno != EINTR) break;
    siginfo_t info{};
    if (::sigwaitinfo(&set, &info) > 0 && info.si_signo != SIGCHLD) ::kill(pid, info.si_signo);
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return result;
}

}  // namespace vigil::runtime
