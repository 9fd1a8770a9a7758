#include "supervisor/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "runtime/linux/namespaces.h"
#include "runtime/linux/session.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

using runtime::Channel;
using runtime::MessageType;

// Ends the supervisor the way the init ended, so the caller's waitpid sees
// the container's own exit.
[[noreturn]] void MirrorExit(const siginfo_t& exit) {
  if (exit.si_code == CLD_EXITED) ::_exit(exit.si_status);
  int sig = exit.si_status;
  // Do not dump the supervisor's core for the workload's crash.
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // a signal whose default action is not fatal
}

void RedirectStdioToNull() {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  ::close(null);
}

}  // namespace

void RunSupervisor(SupervisorArgs args, Channel to_create) {
  // The lock stays with `create` until it returns; the record is written
  // only by this process from now on.
  args.dir.Unlock();
  ::prctl(PR_SET_NAME, std::string(runtime::kSupervisorName).c_str(), 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  // Not dumpable: no process without CAP_SYS_PTRACE (a container's) may
  // trace the supervisor or open its /proc files, nor its init's until it
  // execs. A user's supervisor turns so only once its init is cloned
  // (SpawnInit): the user reads and writes that init's /proc files, which
  // an undumpable process keeps for the host's root.
  if (::geteuid() == 0) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // No terminal of the caller's: whatever the sentry opens for the
  // workload (/dev/tty) must not lead to the operator's. A session of its
  // own also keeps terminal-generated signals away: `run` forwards them.
  if (Result<void> left = runtime::LeaveTerminalSession(); !left)
    to_create.ExitWithError(left.error(), 1);
  Supervisor supervisor(std::move(args));
  if (Result<void> created = supervisor.Create(); !created) {
    supervisor.Undo();
    to_create.ExitWithError(created.error(), 1);
  }
  (void)to_create.Send(MessageType::kCreated, std::to_string(supervisor.init_pid()));
  to_create.Close();
  // The container holds create's stdio now; the caller's pipes must see EOF
  // when the container closes them, not when the supervisor does.
  RedirectStdioToNull();
  Result<siginfo_t> exit = supervisor.Supervise();
  supervisor.MarkStopped();
  supervisor.RemoveIfClientGone();
  if (!exit) ::_exit(255);
  MirrorExit(*exit);
}

}  // namespace vigil::supervisor
