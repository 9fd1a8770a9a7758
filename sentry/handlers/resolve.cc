#include "sentry/handlers/resolve.h"

#include <cerrno>
#include <filesystem>

#include "base/syscalls.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/paths.h"

namespace vigil::sentry {

Result<UniqueFd> ResolveAs(const HandlerContext& context, const ThreadStatus& thread, int root,
                           const std::string& path, int flags, std::uint64_t narrowing) {
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
  return ResolveInRoot(root, path, flags, narrowing);
}

Result<UniqueFd> ResolveInRoot(int root, const std::string& path, int flags,
                               std::uint64_t narrowing) {
  return Openat2(root, path.c_str(), flags, 0, kResolveInRoot | narrowing);
}

std::optional<std::string> PlainName(const std::string& path) {
  if (!path.starts_with('/')) return std::nullopt;
  std::string name;
  name.reserve(path.size());
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view part(path.data() + start, end - start);
    if (part == "..") return std::nullopt;
    if (!part.empty() && part != ".") name.append(1, '/').append(part);
    start = end + 1;
  }
  if (name.empty()) return std::string("/");
  return name;
}

Result<std::string> NameInRoot(const WalkedFile& walked, const std::string& root_path) {
  if (walked.name) return *walked.name;
  return PathInRoot(walked.file.Get(), root_path);
}

std::variant<std::string, Verdict> DecideOnFile(HandlerContext& context, int file,
                                                const std::string& root_path, bool write,
                                                std::string_view audit_as) {
  Result<std::string> where = PathInRoot(file, root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  context.AuditArg(audit_as, *where);
  if (int refused = Refusal(AccessFor(context, *where), write)) {
    return Verdict::Fail(refused, Decision::kDeny);
  }
  return std::move(*where);
}

config::FileAccess AccessFor(const HandlerContext& context, const std::string& path) {
  if (path.empty()) return config::FileAccess::kWrite;
  return config::FileAccessFor(*context.sandbox.policy, path);
}

bool KernelMakesFileCalls(const HandlerContext& context) {
  return !config::RestrictsFiles(*context.sandbox.policy);
}

int Refusal(config::FileAccess access, bool write) {
  switch (access) {
    case config::FileAccess::kHidden:
      return ENOENT;
    case config::FileAccess::kDenied:
      return EACCES;
    case config::FileAccess::kRead:
    case config::FileAccess::kMasked:  // the mount is what is read
      return write ? EACCES : 0;
    case config::FileAccess::kWrite:
      return 0;
  }
  return EACCES;
}

Verdict Failed(const Error& error, Decision decision) {
  return Verdict::Fail(error.code != 0 ? error.code : EIO, decision);
}

std::string LexicalName(const std::string& path) {
  std::string name = std::filesystem::path(path).lexically_normal().string();
  if (name.size() > 1 && name.ends_with('/')) name.pop_back();
  return name;
}

Verdict FailedLookup(HandlerContext& context, const Error& error, const std::string& path) {
  if (error.code != ENOENT && error.code != ENOTDIR) return Failed(error, Decision::kAllow);
  const std::string name = LexicalName(path);
  if (!name.starts_with('/') || Refusal(AccessFor(context, name), /*write=*/false) == 0) {
    return Failed(error, Decision::kAllow);
  }
  context.AuditArg("resolved", name);
  return Failed(error, Decision::kDeny);
}

}  // namespace vigil::sentry
