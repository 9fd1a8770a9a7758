#include "runtime/process/wait.h"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <initializer_list>

namespace vigil::runtime {

int WaitForwardingSignals(pid_t pid) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH}) {
    sigaddset(&set, sig);
  }
  sigset_t old;
  sigprocmask(SIG_BLOCK, &set, &old);
  int result = 255;
  while (true) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
