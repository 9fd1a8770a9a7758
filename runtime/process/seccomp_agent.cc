#include "runtime/process/seccomp_agent.h"

#include <sys/socket.h>

#include <string>

#include "base/strings.h"
#include "base/syscalls.h"
#include "base/unix_socket.h"
#include "config/oci/spec.h"
#include "runtime/process/channel.h"

namespace vigil::runtime {

Result<void> HandToSeccompAgent(const config::Seccomp& profile, int pidfd,
                                std::string_view announced, pid_t pid, const config::State& state) {
  ASSIGN_OR_RETURN(int number, AnnouncedDescriptor(announced));
  ASSIGN_OR_RETURN(UniqueFd listener, PidfdGetfd(pidfd, number));
  // runc's words, which scripts and its tests match.
  Result<UniqueFd> agent = ConnectUnix(profile.listener_path, SOCK_STREAM);
  if (!agent) {
    return tl::unexpected(std::move(agent).error().Wrap(
        "failed to connect with seccomp agent specified in the seccomp profile"));
  }
  const std::string message =
      config::DumpContainerProcessState({.oci_version = std::string(config::kOciVersion),
                                         .pid = pid,
                                         .metadata = profile.listener_metadata,
                                         .state = state});
  RETURN_IF_ERROR_WRAP(SendWithFd(agent->Get(), message, listener.Get()),
                       StrCat("send the seccomp listener to ", profile.listener_path));
  return {};
}

}  // namespace vigil::runtime
