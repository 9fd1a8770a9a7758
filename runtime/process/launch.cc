#include "runtime/process/launch.h"

#include "base/syscalls.h"
#include "runtime/linux/exec.h"
#include "runtime/linux/identity.h"

namespace vigil::runtime {

namespace {

Result<void> InstallSeccomp(const LaunchOptions& options) {
  if (options.seccomp == nullptr) return {};
  ASSIGN_OR_RETURN(UniqueFd listener, LoadSeccomp(*options.seccomp));
  if (listener) {
    RETURN_IF_ERROR(options.channel->SendFd(MessageType::kSeccompListener, listener.Get()));
  }
  return {};
}

}  // namespace

Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           const LaunchOptions& options) {
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
