#include "sentry/handlers/lookup.h"

#include <fcntl.h>

#include <optional>
#include <string>
#include <utility>

#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {

Result<std::variant<WalkedFile, Verdict>> LookUp(HandlerContext& context,
                                                 const ThreadStatus& thread, int dirfd,
                                                 const std::string& given, bool follow) {
  ASSIGN_OR_RETURN(std::string path, ContainerPath(context.tracee, thread, dirfd, given));
  ASSIGN_OR_RETURN(SharedFd root, context.tracee.Root());
  WalkedFile file;
  ASSIGN_OR_RETURN(std::optional<OwnLinkTarget> own_link,
                   FollowOwnLink(context.tracee, thread, path, follow));
  // Not following, /proc/self/fd/N is the link itself (lstat, readlink).
  if (std::optional<int> own = follow ? OwnDescriptor(path, thread) : std::nullopt) {
    ASSIGN_OR_RETURN(file.file, context.tracee.Descriptor(*own));
  } else if (own_link && own_link->file) {
    file.file = std::move(own_link->file);  // /proc/self/exe, ns/TYPE
    file.name = std::move(own_link->decided_as);
  } else {
    // Not following, /proc/self is the link in the container's procfs, not
    // the caller's directory it was rewritten to (paths.h).
    std::optional<std::string> link = follow ? std::nullopt : SelfLink(given);
    const std::string& walked = own_link ? own_link->path : link ? *link : path;
    ASSIGN_OR_RETURN(bool chrooted, context.tracee.Chrooted());
    Result<WalkedFile> resolved = WalkNaming(walked, !chrooted, [&](std::uint64_t narrowing) {
      return ResolveAs(context, thread, root.Get(), walked, O_PATH | (follow ? 0 : O_NOFOLLOW),
                       narrowing);
    });
    if (!resolved) return FailedLookup(context, resolved.error(), walked);
    file = std::move(*resolved);
  }
  return std::variant<WalkedFile, Verdict>(std::move(file));
}

Result<std::variant<UniqueFd, Verdict>> LookUpDecided(HandlerContext& context, int dirfd,
                                                      const std::string& given, bool follow) {
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  ASSIGN_OR_RETURN(auto found, LookUp(context, thread, dirfd, given, follow));
  if (Verdict* verdict = std::get_if<Verdict>(&found)) return std::move(*verdict);
  WalkedFile& file = std::get<WalkedFile>(found);
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  Result<std::string> where = NameInRoot(file, root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  context.AuditArg("resolved", *where);
  const config::FileAccess access = AccessFor(context, *where);
  if (int refused = Refusal(access, /*write=*/false))
    return Verdict::Fail(refused, Decision::kDeny);
  return std::move(file.file);
}

}  // namespace vigil::sentry
