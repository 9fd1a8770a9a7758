#include "sentry/handlers/lookup.h"

#include <fcntl.h>

#include <optional>

#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

std::variant<UniqueFd, Verdict> LookUpDecided(HandlerContext& context, int dirfd,
                                              const std::string& given, bool follow) {
  Result<ThreadStatus> thread = context.tracee.Status();
  if (!thread) return Failed(thread.error(), Decision::kAllow);
  Result<std::string> path = ContainerPath(context.tracee, *thread, dirfd, given);
  if (!path) return Failed(path.error(), Decision::kAllow);
  Result<SharedFd> root = context.tracee.Root();
  if (!root) return Failed(root.error(), Decision::kAllow);
  Result<std::string> root_path = context.tracee.RootPath();
  if (!root_path) return Failed(root_path.error(), Decision::kAllow);
  WalkedFile file;
  Result<std::optional<OwnLinkTarget>> own_link =
      FollowOwnLink(context.tracee, *thread, *path, follow);
  if (!own_link) return Failed(own_link.error(), Decision::kAllow);
  if (std::optional<int> own = OwnDescriptor(*path, *thread)) {
    Result<UniqueFd> held = context.tracee.Descriptor(*own);
    if (!held) return Failed(held.error(), Decision::kAllow);
    file.file = std::move(*held);
  } else if (*own_link && (*own_link)->file) {
    file.file = std::move((*own_link)->file);  // /proc/self/exe
  } else {
    // Not following, /proc/self is the link in the container's procfs, not
    // the caller's directory it was rewritten to (paths.h).
    std::optional<std::string> link = follow ? std::nullopt : SelfLink(given);
    const std::string& walked = *own_link ? (*own_link)->path : link ? *link : *path;
    Result<bool> chrooted = context.tracee.Chrooted();
    if (!chrooted) return Failed(chrooted.error(), Decision::kAllow);
    Result<WalkedFile> resolved = WalkNaming(walked, !*chrooted, [&](std::uint64_t narrowing) {
      return ResolveAs(context, *thread, root->Get(), walked, O_PATH | (follow ? 0 : O_NOFOLLOW),
                       narrowing);
    });
    if (!resolved) return FailedLookup(context, resolved.error(), walked);
    file = std::move(*resolved);
  }
  Result<std::string> where = NameInRoot(file, *root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  context.AuditArg("resolved", *where);
  const config::FileAccess access = AccessFor(context, *where);
  if (int refused = Refusal(access, /*write=*/false))
    return Verdict::Fail(refused, Decision::kDeny);
  return std::move(file.file);
}

}  // namespace vigil::sentry
