// inotify_add_watch under a file policy: the path resolved and decided like
// stat's, since a watch on a hidden directory would report the names of
// the files made in it. The watch is added by the sentry, on the
// workload's own inotify descriptor, to the very file it resolved (through
// /proc/self/fd, whose magic link leads to that inode), with the
// workload's credentials: the kernel checks its read permission there.
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>
#include <variant>

#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/lookup.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

Result<Verdict> HandleInotifyWatch(HandlerContext& context) {
  const auto& args = context.event.args;
  const int instance_fd = static_cast<int>(args[0]);
  const auto mask = static_cast<std::uint32_t>(args[2]);
  ASSIGN_OR_RETURN(std::string given, CopyPath(context.tracee, args[1]));
  if (!context.tracee.Valid()) return Verdict::Stale();
  context.AuditArg("path", given);
  ASSIGN_OR_RETURN(auto file,
                   LookUpDecided(context, AT_FDCWD, given, (mask & IN_DONT_FOLLOW) == 0));
  if (Verdict* refused = std::get_if<Verdict>(&file)) return std::move(*refused);
  const int target = std::get<UniqueFd>(file).Get();
  if (mask & IN_ONLYDIR) {
    struct stat st {};
    if (::fstat(target, &st) != 0) return Verdict::Fail(errno, Decision::kAllow);
    if (!S_ISDIR(st.st_mode)) return Verdict::Fail(ENOTDIR, Decision::kAllow);
  }
  ASSIGN_OR_RETURN(UniqueFd instance, context.tracee.Descriptor(instance_fd));
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  if (!context.tracee.Valid()) return Verdict::Stale();
  int watch;
  {
    ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
    // The link is followed to the resolved file, a symlink included; the
    // workload's IN_DONT_FOLLOW was honoured by the lookup.
    watch = ::inotify_add_watch(instance.Get(), StrCat("/proc/self/fd/", target).c_str(),
                                mask & ~IN_DONT_FOLLOW);
  }
  if (watch < 0) return Verdict::Fail(errno, Decision::kAllow);
  return Verdict::Return(watch, Decision::kAllow);
}

}  // namespace vigil::sentry
