#include "runtime/process/launch.h"

#include <sys/socket.h>
#include <unistd.h>

#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/linux/exec.h"
#include "runtime/linux/identity.h"
#include "runtime/linux/landlock.h"
#include "runtime/linux/rlimits.h"
#include "runtime/linux/scheduling.h"

namespace vigil::runtime {

namespace {

// A profile that notifies (SCMP_ACT_NOTIFY) makes a listener, which is the
// seccomp agent's: the runtime copies it (pidfd_getfd) from the number
// announced here and sends it to the agent before saying proceed. Until
// then a notified syscall would wait, so the process does none but the
// announcement (send, which a notifying rule may not name) and the wait
// for the answer (its notification waits for the agent, which has the
// listener by then). Its own copy closes here, before the exec.
Result<void> InstallProfile(const LaunchOptions& options) {
  if (options.seccomp == nullptr) return {};
  ASSIGN_OR_RETURN(UniqueFd listener, seccomp::LoadSeccomp(*options.seccomp));
  if (!listener) return {};
  RETURN_IF_ERROR(options.channel->Send(MessageType::kAgentListener, StrCat(listener.Get())));
  return options.channel->Expect(MessageType::kProceed).map([](Message) {});
}

// The ptrace platform's descriptor channel: a socket pair whose one end
// the process keeps as descriptor `number` for good (not close-on-exec: its
// programs need it), and whose other end goes to the sentry, which sends
// the files it opens for the process through it. The kept end is shut for
// writing: the workload can only receive what the sentry sends it. Returns
// the sentry's end.
Result<UniqueFd> OpenDescriptorChannel(int number) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return FailErrno("socketpair for the sentry's descriptor channel");
  }
  UniqueFd kept(ends[0]), sentry_end(ends[1]);
  if (::shutdown(kept.Get(), SHUT_WR) != 0) return FailErrno("shutdown the descriptor channel");
  if (::dup3(kept.Get(), number, 0) < 0) {
    return FailErrno(StrCat("the ptrace platform keeps descriptor ", number,
                            " for the sentry, which needs RLIMIT_NOFILE above it"));
  }
  return sentry_end;
}

// From here on every syscall of this process goes through the sentry's
// filter. The runtime takes its own copy of the listener (pidfd_getfd) from
// the number announced here, hands it to the sentry, and says proceed; only
// then may a mediated syscall come. Announcing goes by send(2), which stays
// on the fast path. On the ptrace platform the process is traced first: a
// mediated syscall without a tracer would fail with ENOSYS.
Result<void> InstallSentry(const LaunchOptions& options) {
  if (options.sentry == nullptr) return {};
  if (const PtracePlatform* ptrace = options.ptrace; ptrace != nullptr) {
    if (ptrace->channel_fd < 3 + options.preserve_fds) {
      return Fail(StrCat("--preserve-fds=", options.preserve_fds, " reaches descriptor ",
                         ptrace->channel_fd, ", which the ptrace platform keeps for the sentry"));
    }
    ASSIGN_OR_RETURN(UniqueFd channel, OpenDescriptorChannel(ptrace->channel_fd));
    RETURN_IF_ERROR(options.channel->Send(MessageType::kSentryTracee, StrCat(channel.Get())));
    RETURN_IF_ERROR(options.channel->Expect(MessageType::kProceed));
    channel.Reset();  // the sentry has its copy
    RETURN_IF_ERROR(seccomp::LoadSeccomp(*options.sentry).map([](UniqueFd) {}));
    return seccomp::LoadSeccomp(*ptrace->channel_guard).map([](UniqueFd) {});
  }
  ASSIGN_OR_RETURN(UniqueFd listener, seccomp::LoadSeccomp(*options.sentry));
  RETURN_IF_ERROR(options.channel->Send(MessageType::kSentryListener, StrCat(listener.Get())));
  RETURN_IF_ERROR(options.channel->Expect(MessageType::kProceed));
  return {};
}

// The sentry's filter first: its handshake needs send and recv, which a
// profile need not allow. The OCI profile last, so that after it comes only
// what runc does after its own: the execve, and without no_new_privs the
// user switch. The kernel runs both filters and takes the stricter verdict
// whatever their order. A profile that notifies goes first instead: once
// the sentry's filter is in, it refuses new listeners (a workload holding
// one could answer its own syscalls before a tracing sentry saw them), and
// this one is made for the agent.
Result<void> InstallSeccomp(const LaunchOptions& options) {
  const bool for_agent = options.seccomp != nullptr && options.seccomp->has_notify;
  if (for_agent) RETURN_IF_ERROR(InstallProfile(options));
  RETURN_IF_ERROR(InstallSentry(options));
  if (!for_agent) RETURN_IF_ERROR(InstallProfile(options));
  return {};
}

}  // namespace

Result<std::string> PrepareProcess(const config::Process& process) {
  RETURN_IF_ERROR(ApplyRlimits(process.rlimits));
  if (process.scheduler) RETURN_IF_ERROR(ApplyScheduler(*process.scheduler));
  if (process.io_priority) RETURN_IF_ERROR(ApplyIoPriority(*process.io_priority));
  if (::chdir(process.cwd.c_str()) != 0) return FailErrno(StrCat("chdir to cwd ", process.cwd));
  return LookPath(process.args[0], process.env);
}

Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           const LaunchOptions& options) {
  // No descriptor of the runtime's survives into the container
  // (CVE-2024-21626 leaked one as the cwd). Marked before any filter, so a
  // profile need not allow close_range; what is opened after is
  // close-on-exec, or (the ptrace platform's channel) meant to stay.
  RETURN_IF_ERROR(CloexecFrom(3 + static_cast<unsigned>(options.preserve_fds)));
  // Read before any filter or the user switch, which may lose /etc/passwd.
  const std::vector<std::string> env = WithHome(process.env, process.user.uid);
  // Landlock next: landlock_restrict_self needs CAP_SYS_ADMIN (held until
  // the user switch) or no_new_privs (which the process may not ask for),
  // and the filters come after it so that its setup syscalls never meet
  // them. Paths are the container's: the root was entered already.
  if (options.landlock != nullptr) {
    for (const config::LandlockRuleset& layer : *options.landlock) {
      RETURN_IF_ERROR_WRAP(ApplyLandlock(layer), "apply the policy's Landlock ruleset");
    }
  }
  // Loading a filter needs no_new_privs or CAP_SYS_ADMIN. With no_new_privs
  // the filters come last, so the profile only has to allow execve;
  // without, they come while the capability is still held, and the profile
  // must allow the user switch too (runc's order).
  if (!process.no_new_privileges) RETURN_IF_ERROR(InstallSeccomp(options));
  RETURN_IF_ERROR(DropBoundingSet(process));
  RETURN_IF_ERROR(BecomeUser(process));
  if (process.no_new_privileges) RETURN_IF_ERROR(InstallSeccomp(options));
  if (options.before_exec) RETURN_IF_ERROR(options.before_exec());
  return Exec(executable, process.args, env);
}

}  // namespace vigil::runtime
