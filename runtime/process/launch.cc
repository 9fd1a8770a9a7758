#include "runtime/process/launch.h"

#include "base/syscalls.h"
#include "runtime/linux/exec.h"
#include "runtime/linux/identity.h"

namespace vigil::runtime {

Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           int preserve_fds) {
  RETURN_IF_ERROR(DropBoundingSet(process));
  RETURN_IF_ERROR(BecomeUser(process));
  // No descriptor of the runtime's survives into the container
  // (CVE-2024-21626 leaked one as the cwd).
  RETURN_IF_ERROR(CloexecFrom(3 + static_cast<unsigned>(preserve_fds)));
  return Exec(executable, process.args, process.env);
}

}  // namespace vigil::runtime
