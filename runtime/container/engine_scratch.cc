#include "runtime/container/engine_scratch.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "config/policy/container_setup.h"
#include "runtime/linux/mounts.h"
#include "runtime/linux/namespaces.h"
#include "runtime/linux/path_in_root.h"

namespace vigil::runtime {
namespace {

struct MountIdentity {
  bool mount_root = false;
  std::uint64_t mount_id = 0;
};

Result<MountIdentity> Identify(int dirfd, const char* path, int flags) {
  struct statx st {};
  if (::statx(dirfd, path, flags, STATX_MNT_ID, &st) != 0) return FailErrno("statx");
  return MountIdentity{.mount_root = (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
                                     (st.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0,
                       .mount_id = st.stx_mnt_id};
}

bool IsScratch(const config::Mount& mount) {
  return mount.type == "tmpfs" && mount.source == config::kScratchSource;
}

// Whether mount `id` of this namespace is a vigil scratch tmpfs (mountinfo:
// "ID PARENT ... - tmpfs vigil-scratch OPTIONS").
bool IsScratchMount(std::uint64_t id) {
  Result<std::string> mountinfo = ReadFile("/proc/self/mountinfo", 4 << 20);
  if (!mountinfo) return false;
  const std::string text = "\n" + *mountinfo;
  const std::size_t start = text.find(StrCat("\n", id, " "));
  if (start == std::string::npos) return false;
  const std::size_t end = text.find('\n', start + 1);
  const std::string_view line = std::string_view(text).substr(start, end - start);
  return line.find(StrCat(" - tmpfs ", config::kScratchSource, " ")) != std::string_view::npos;
}

// The place of `destination` in the rootfs, if something is mounted there.
Result<std::optional<UniqueFd>> MountedAt(int root_fd, const std::string& destination) {
  Result<UniqueFd> place = OpenInRoot(root_fd, destination);
  if (!place) {
    if (place.error().code == ENOENT) return std::nullopt;
    return tl::unexpected(place.error());
  }
  ASSIGN_OR_RETURN(const MountIdentity identity, Identify(place->Get(), "", AT_EMPTY_PATH));
  if (!identity.mount_root) return std::nullopt;
  return std::optional<UniqueFd>(std::move(*place));
}

}  // namespace

Result<std::vector<std::string>> MountEngineScratch(const config::Spec& spec) {
  std::vector<std::string> mounted;
  if (!spec.root || (spec.linux_spec && CreatesUserNamespace(*spec.linux_spec))) return mounted;
  const std::string& rootfs = spec.root->path;
  Result<MountIdentity> root_identity = Identify(AT_FDCWD, rootfs.c_str(), 0);
  if (!root_identity || !root_identity->mount_root) return mounted;
  UniqueFd root(::open(rootfs.c_str(), O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!root) return FailErrno(StrCat("open rootfs ", rootfs));
  for (const config::Mount& mount : spec.mounts) {
    if (!IsScratch(mount)) continue;
    Result<std::optional<UniqueFd>> taken = MountedAt(root.Get(), mount.destination);
    if (taken && *taken) continue;  // someone's mount: this container's scratch stays its own
    Result<void> done = taken ? MountInRoot(root.Get(), mount, /*in_cgroup_namespace=*/false)
                              : Result<void>(tl::unexpected(taken.error()));
    if (!done) {
      UnmountEngineScratch(rootfs, mounted);
      return tl::unexpected(std::move(done).error().Wrap("scratch space the engine can reach"));
    }
    mounted.push_back(mount.destination);
  }
  return mounted;
}

void UnmountEngineScratch(const std::string& rootfs, const std::vector<std::string>& destinations) {
  if (destinations.empty()) return;
  UniqueFd root(::open(rootfs.c_str(), O_DIRECTORY | O_PATH | O_CLOEXEC));
  if (!root) return;  // the engine removed the rootfs, and the mounts with it
  for (const std::string& destination : destinations) {
    Result<std::optional<UniqueFd>> place = MountedAt(root.Get(), destination);
    if (!place || !*place) continue;
    Result<MountIdentity> identity = Identify((**place).Get(), "", AT_EMPTY_PATH);
    if (!identity || !IsScratchMount(identity->mount_id)) continue;
    if (::umount2(FdPath((**place).Get()).c_str(), MNT_DETACH) != 0) {
      log::Warning(StrCat("unmount the scratch tmpfs at ", Quote(rootfs + destination), ": ",
                          std::strerror(errno)));
    }
  }
}

}  // namespace vigil::runtime
