// uname(2): the container's own hostname and domainname, the host's
// machine and version, and the configured kernel release, so the workload
// can be kept from fingerprinting the host kernel.
#include <cstring>

#include <algorithm>

#include "sentry/handlers/answer.h"

namespace vigil::sentry {

Verdict HandleUname(HandlerContext& context) {
  Result<utsname> names = context.sandbox.uts_names();
  if (!names) return Verdict::Fail(EIO, Decision::kEmulate);
  const std::string& release = context.sandbox.kernel_release;
  if (!release.empty()) {
    std::memset(names->release, 0, sizeof names->release);
    std::copy_n(release.begin(), std::min(release.size(), sizeof names->release - 1),
                names->release);
  }
  context.AuditArg("release", names->release);
  return AnswerWithObject(context, context.event.args[0], *names);
}

}  // namespace vigil::sentry
