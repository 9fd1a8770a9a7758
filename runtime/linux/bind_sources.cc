#include "runtime/linux/bind_sources.h"

#include <fcntl.h>
#include <sys/mount.h>

#include "base/strings.h"
#include "runtime/linux/mounts.h"

namespace vigil::runtime {

Result<std::vector<UniqueFd>> TakeBindSources(const config::Spec& spec) {
  std::vector<UniqueFd> sources;
  sources.reserve(spec.mounts.size());
  for (const config::Mount& mount : spec.mounts) {
    const MountFlags flags = ParseMountOptions(mount.options);
    if (!flags.bind && mount.type != "bind") {
      sources.emplace_back();
      continue;
    }
    const unsigned recursive = flags.recursive_bind ? AT_RECURSIVE : 0;
    UniqueFd tree(::open_tree(AT_FDCWD, mount.source.c_str(),
                              OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | recursive));
    if (!tree) {
      return FailErrno(StrCat("mount ", Quote(mount.source), " on ", Quote(mount.destination),
                              ": take the source before entering the user namespace"));
    }
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
