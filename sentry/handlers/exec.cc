#include "sentry/handlers/exec.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <variant>

#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/caller.h"
#include "sentry/handlers/exec_argv.h"
#include "sentry/handlers/exec_image.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

bool ExecRestricted(const config::Policy& policy) {
  return !policy.exec_allow.empty() || !policy.exec_from_writable || config::RestrictsFiles(policy);
}

namespace {

// The policy's refusal of executing `file` (its path in the container
// audited as `audit_as`): hidden or denied by the file rules, not on the
// allow-list, or on a writable mount under fromWritable: false.
std::optional<Verdict> RefuseExecutable(HandlerContext& context, int file,
                                        const std::string& root_path, std::string_view audit_as) {
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, file, root_path, /*write=*/false, audit_as);
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  const std::string& where = std::get<std::string>(decided);
  const config::Policy& policy = *context.sandbox.policy;
  // An allow-list names paths: a file without one (a memfd) is not on it.
  if (!policy.exec_allow.empty() && (where.empty() || !config::ExecAllowed(policy, where))) {
    return Verdict::Fail(EACCES, Decision::kDeny);
  }
  if (!policy.exec_from_writable) {
    struct statvfs fs {};
    if (::fstatvfs(file, &fs) != 0) return Verdict::Fail(errno, Decision::kAllow);
    if ((fs.f_flag & ST_RDONLY) == 0) return Verdict::Fail(EACCES, Decision::kDeny);
  }
  return std::nullopt;
}

// The loader (or any shared object) run as a program maps whatever file it
// is given (`ld.so /tmp/program`), and no exec check sees that mapping:
// under exec rules it runs only where an exec.allow entry names its path
// exactly, no pattern (docs/policy.md, "What exec rules cover").
std::optional<Verdict> RefuseLoader(HandlerContext& context, int image,
                                    const std::string& root_path) {
  const config::Policy& policy = *context.sandbox.policy;
  if (policy.exec_allow.empty() && policy.exec_from_writable) return std::nullopt;
  Result<std::string> where = PathInRoot(image, root_path);
  if (where && std::find(policy.exec_allow.begin(), policy.exec_allow.end(), *where) !=
                   policy.exec_allow.end()) {
    return std::nullopt;
  }
  context.AuditArg("refused", "a shared object run as a program (the loader)");
  return Verdict::Fail(EACCES, Decision::kDeny);
}

}  // namespace

Result<Verdict> CheckExec(HandlerContext& context) {
  const auto& a = context.event.args;
  const bool at = context.event.number == SYS_execveat;
  const int dirfd = at ? static_cast<int>(a[0]) : AT_FDCWD;
  const int flags = at ? static_cast<int>(a[4]) : 0;
  Result<std::string> given = CopyPath(context.tracee, at ? a[1] : a[0]);
  const bool descriptor = !given && given.error().code == ENOENT && (flags & AT_EMPTY_PATH);
  if (!given && !descriptor) return Failed(given.error(), Decision::kAllow);
  if (given) context.AuditArg("path", *given);
  AuditArgv(context, at ? a[2] : a[1]);
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(const Caller caller, CallerOf(context));
  ASSIGN_OR_RETURN(
      const std::string path,
      descriptor ? std::string() : ContainerPath(context.tracee, caller.thread, dirfd, *given));
  UniqueFd file;
  if (descriptor) {
    // fexecve: the file the workload holds.
    ASSIGN_OR_RETURN(file, context.tracee.Descriptor(dirfd));
  }
  // As the workload from here: the kernel resolves the file and its
  // interpreter with the caller's permissions.
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  if (!descriptor) {
    const int follow = (flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0;
    Result<UniqueFd> resolved = ResolveInRoot(caller.root.Get(), path, O_PATH | follow);
    if (!resolved) return FailedLookup(context, resolved.error(), path);
    file = std::move(*resolved);
  }
  if (std::optional<Verdict> refused =
          RefuseExecutable(context, file.Get(), caller.root_path, "resolved")) {
    return std::move(*refused);
  }
  // Every file the kernel opens to run the program meets the same check:
  // a "#!" line or PT_INTERP could otherwise run what the policy refuses.
  ASSIGN_OR_RETURN(const ExecPlan plan, PlanExec(caller.root.Get(), file.Get()));
  for (std::size_t i = 0; i < plan.interpreters.size(); ++i) {
    const std::string audit_as = i == 0 ? "interpreter" : StrCat("interpreter", i + 1);
    if (std::optional<Verdict> refused = RefuseExecutable(context, plan.interpreters[i].file.Get(),
                                                          caller.root_path, audit_as)) {
      return std::move(*refused);
    }
  }
  if (plan.shared_object) {
    const int image = plan.interpreters.empty() ? file.Get() : plan.interpreters.back().file.Get();
    if (std::optional<Verdict> refused = RefuseLoader(context, image, caller.root_path)) {
      return std::move(*refused);
    }
  }
  return Verdict::ContinueExec(plan.image, plan.elf_interpreter);
}

}  // namespace vigil::sentry
