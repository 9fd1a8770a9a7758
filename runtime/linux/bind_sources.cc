#include "runtime/linux/bind_sources.h"

#include <fcntl.h>
#include <sys/mount.h>

#include <filesystem>

#include "base/strings.h"
#include "runtime/linux/mounts.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {

namespace {

// `source` relative to `rootfs` ("." for the rootfs itself), or "" when it
// lies outside.
std::string RelativeToRootfs(std::string_view source, std::string_view rootfs) {
  const std::filesystem::path rest =
      std::filesystem::path(source).lexically_normal().lexically_relative(
          std::filesystem::path(rootfs).lexically_normal());
  if (rest.empty() || *rest.begin() == "..") return "";
  return rest.string();
}

}  // namespace

bool InsideRootfs(std::string_view source, std::string_view rootfs) {
  return !RelativeToRootfs(source, rootfs).empty();
}

Result<UniqueFd> TakeBindSource(const config::Mount& mount, const std::string& rootfs) {
  const std::string where = StrCat("mount ", Quote(mount.source), " on ", Quote(mount.destination));
  const unsigned recursive = ParseMountOptions(mount.options).recursive_bind ? AT_RECURSIVE : 0;
  const unsigned clone = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | recursive;
  const std::string in_rootfs = RelativeToRootfs(mount.source, rootfs);
  if (in_rootfs.empty()) {
    UniqueFd tree(::open_tree(AT_FDCWD, mount.source.c_str(), clone));
    if (!tree) return FailErrno(StrCat(where, ": take the source"));
    return tree;
  }
  UniqueFd root(::open(rootfs.c_str(), O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!root) return FailErrno(StrCat(where, ": open the rootfs"));
  Result<UniqueFd> source = OpenInRoot(root.Get(), in_rootfs);
  if (!source) return tl::unexpected(std::move(source).error().Wrap(StrCat(where, ": source")));
  UniqueFd tree(::open_tree(source->Get(), "", clone | AT_EMPTY_PATH));
  if (!tree) return FailErrno(StrCat(where, ": take the source"));
  return tree;
}

Result<std::vector<UniqueFd>> TakeBindSources(const config::Spec& spec) {
  std::vector<UniqueFd> sources;
  sources.reserve(spec.mounts.size());
  for (const config::Mount& mount : spec.mounts) {
    const MountFlags flags = ParseMountOptions(mount.options);
    if (!flags.bind && mount.type != "bind") {
      sources.emplace_back();
      continue;
    }
    ASSIGN_OR_RETURN(UniqueFd tree, TakeBindSource(mount, spec.root->path));
    sources.push_back(std::move(tree));
  }
  return sources;
}

std::vector<int> DescriptorsOf(const std::vector<UniqueFd>& sources) {
  std::vector<int> fds;
  fds.reserve(sources.size());
  for (const UniqueFd& source : sources) fds.push_back(source ? source.Get() : -1);
  return fds;
}

}  // namespace vigil::runtime
