// `vigil do --net allow=` (SupervisorArgs::user_network): the sandbox has a
// network namespace of its own, so that the sentry's resolver can answer
// its names there as it does a container's (docs/policy.md, "Egress by
// name"), and reaches the host's network through slirp4netns, user-mode
// networking as rootless podman uses it: a tap device in the sandbox
// (10.0.2.100, gateway 10.0.2.2), whose TCP and UDP slirp4netns makes again
// as sockets of the caller's in the host's namespace, and a DNS forwarder
// at 10.0.2.3 to the host's nameservers, which the resolver asks. The
// host's loopback is not made reachable (--disable-host-loopback): what
// the sandbox may reach is the allow-list's to say, and the sentry still
// decides every connect and send before slirp4netns sees a packet.
//
// Started by the supervisor before it joins the container's namespaces,
// from the host's (or the user's) own; it ends when the supervisor does
// (its exit descriptor is the supervisor's pipe).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/strings.h"
#include "runtime/linux/namespaces.h"
#include "runtime/process/hooks.h"
#include "runtime/process/wait.h"
#include "supervisor/supervisor_process.h"

namespace vigil::supervisor {
namespace {

// How long slirp4netns may take to bring the tap device up.
constexpr int kReadyTimeoutMs = 10'000;
// The descriptors slirp4netns is told of.
constexpr int kReadyFd = 3;
constexpr int kExitFd = 4;

[[noreturn]] void ExecSlirp(const std::vector<std::string>& argv, int ready, int exit) {
  // Before the descriptors are moved: no signal of the supervisor's
  // blocked set may stay blocked, and it dies with the supervisor.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(null, 1) < 0 || ::dup2(null, 2) < 0 ||
      ::dup2(ready, kReadyFd) < 0 || ::dup2(exit, kExitFd) < 0) {
    ::_exit(127);
  }
  ::close_range(kExitFd + 1, ~0U, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  ::_exit(127);
}

}  // namespace

Result<void> Supervisor::StartUserNetwork() {
  if (!args_.user_network) return {};
  // Its tap device: a user's slirp4netns opens it as the user, which
  // Debian's udev allows (0666) but a host without udev may not.
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) {
    return FailErrno(
        "--net allow=: slirp4netns, which gives the sandbox the host's network, cannot open "
        "/dev/net/tun (as a user it needs the mode 0666 Debian's udev gives it)");
  }
  int ready[2];
  int exit[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return FailErrno("pipe for slirp4netns");
  UniqueFd ready_read(ready[0]);
  UniqueFd ready_write(ready[1]);
  if (::pipe2(exit, O_CLOEXEC) != 0) return FailErrno("pipe for slirp4netns");
  UniqueFd exit_read(exit[0]);
  user_network_exit_.Reset(exit[1]);
  std::vector<std::string> argv = {"slirp4netns",
                                   "--configure",
                                   "--mtu=65520",
                                   "--disable-host-loopback",
                                   "--enable-seccomp",
                                   StrCat("--ready-fd=", kReadyFd),
                                   StrCat("--exit-fd=", kExitFd)};
  // A user's sandbox: its network namespace belongs to its user namespace,
  // which slirp4netns joins first.
  if (runtime::CreatesUserNamespace(LinuxSpec())) {
    argv.push_back(StrCat("--userns-path=/proc/", init_pid_, "/ns/user"));
  }
  argv.push_back(StrCat(init_pid_));
  argv.push_back("tap0");
  const pid_t pid = ::fork();
  if (pid < 0) return FailErrno("fork for slirp4netns");
  if (pid == 0) ExecSlirp(argv, ready_write.Get(), exit_read.Get());
  user_network_pid_ = pid;
  ready_write.Reset();
  Result<bool> up = runtime::PollReadable(ready_read.Get(), kReadyTimeoutMs);
  char byte = 0;
  if (up && *up && ::read(ready_read.Get(), &byte, 1) == 1) return {};
  runtime::KillAndReap(pid);
  user_network_pid_ = 0;
  return Fail(
      "--net allow=: slirp4netns did not bring up the sandbox's network (it gives a sandbox of "
      "its own the host's network; is it installed? apt-get install slirp4netns)");
}

}  // namespace vigil::supervisor
