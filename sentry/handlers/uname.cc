// uname(2): the container's own hostname and domainname, the host's
// machine (i686 under PER_LINUX32) and version, and the configured kernel release, so the workload
// can be kept from fingerprinting the host kernel.
#include <sys/personality.h>

#include <algorithm>
#include <cstring>

#include "sentry/handlers/answer.h"

namespace vigil::sentry {

Result<Verdict> HandleUname(HandlerContext& context) {
  Result<utsname> names = context.sandbox.uts_names();
  if (!names) return Verdict::Fail(EIO, Decision::kEmulate);
  const std::string& release = context.sandbox.kernel_release;
  if (!release.empty()) {
    std::memset(names->release, 0, sizeof names->release);
    std::copy_n(release.begin(), std::min(release.size(), sizeof names->release - 1),
                names->release);
  }
  // The kernel reports a 32-bit machine to a PER_LINUX32 process (setarch
  // i686); so must the sentry.
  if (Result<unsigned int> persona = context.tracee.Personality();
      persona && (*persona & PER_MASK) == PER_LINUX32) {
    std::memset(names->machine, 0, sizeof names->machine);
    std::strcpy(names->machine, "i686");
  }
  context.AuditArg("release", names->release);
  return AnswerWithObject(context, context.event.args[0], *names, Decision::kEmulate);
}

}  // namespace vigil::sentry
