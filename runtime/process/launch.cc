#include "runtime/process/launch.h"

#include "base/strings.h"
#include "base/syscalls.h"
#include "runtime/linux/exec.h"
#include "runtime/linux/identity.h"
#include "runtime/linux/landlock.h"

namespace vigil::runtime {

namespace {

// A profile never notifies (CompileProfile refuses SCMP_ACT_NOTIFY), so it
// makes no listener.
Result<void> InstallProfile(const LaunchOptions& options) {
  if (options.seccomp == nullptr) return {};
  return LoadSeccomp(*options.seccomp).map([](UniqueFd) {});
}

// From here on every syscall of this process goes through the sentry's
// filter. The runtime takes its own copy of the listener (pidfd_getfd) from
// the number announced here, hands it to the sentry, and says proceed; only
// then may a mediated syscall come. Announcing goes by send(2), which stays
// on the fast path. On the ptrace platform the process is traced first: a
// mediated syscall without a tracer would fail with ENOSYS.
Result<void> InstallSentry(const LaunchOptions& options) {
  if (options.sentry == nullptr) return {};
  if (options.sentry_traced) {
    RETURN_IF_ERROR(options.channel->Send(MessageType::kSentryTracee));
    RETURN_IF_ERROR(options.channel->Expect(MessageType::kProceed));
    return LoadSeccomp(*options.sentry).map([](UniqueFd) {});
  }
  ASSIGN_OR_RETURN(UniqueFd listener, LoadSeccomp(*options.sentry));
  RETURN_IF_ERROR(options.channel->Send(MessageType::kSentryListener, StrCat(listener.Get())));
  RETURN_IF_ERROR(options.channel->Expect(MessageType::kProceed));
  return {};
}

// The OCI profile first, then the sentry's: the kernel runs both and takes
// the stricter verdict either way.
Result<void> InstallSeccomp(const LaunchOptions& options) {
  RETURN_IF_ERROR(InstallProfile(options));
  return InstallSentry(options);
}

}  // namespace

Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           const LaunchOptions& options) {
  // Landlock first: landlock_restrict_self needs CAP_SYS_ADMIN (held until
  // the user switch) or no_new_privs (which the process may not ask for),
  // and the filters come after it so that its setup syscalls never meet
  // them. Paths are the container's: the root was entered already.
  if (options.landlock != nullptr) {
    RETURN_IF_ERROR_WRAP(ApplyLandlock(*options.landlock), "apply the policy's Landlock ruleset");
  }
  // Loading a filter needs no_new_privs or CAP_SYS_ADMIN. With no_new_privs
  // it comes last, so the profile only has to allow close_range and execve;
  // without, it comes while the capability is still held, and the profile
  // must allow the user switch too (runc's order).
  if (!process.no_new_privileges) RETURN_IF_ERROR(InstallSeccomp(options));
  RETURN_IF_ERROR(DropBoundingSet(process));
  RETURN_IF_ERROR(BecomeUser(process));
  if (process.no_new_privileges) RETURN_IF_ERROR(InstallSeccomp(options));
  // No descriptor of the runtime's survives into the container
  // (CVE-2024-21626 leaked one as the cwd).
  RETURN_IF_ERROR(CloexecFrom(3 + static_cast<unsigned>(options.preserve_fds)));
  return Exec(executable, process.args, process.env);
}

}  // namespace vigil::runtime
