#include "config/oci/mount_options.h"

#include <sys/mount.h>

namespace vigil::config {
namespace {

constexpr MountOption kMountOptions[] = {
    {"async", MS_SYNCHRONOUS, true},
    {"atime", MS_NOATIME, true},
    {"bind", MS_BIND, false},
    {"defaults", 0, false},
    {"dev", MS_NODEV, true},
    {"diratime", MS_NODIRATIME, true},
    {"dirsync", MS_DIRSYNC, false},
    {"exec", MS_NOEXEC, true},
    {"iversion", MS_I_VERSION, false},
    {"lazytime", MS_LAZYTIME, false},
    {"loud", MS_SILENT, true},
    {"mand", MS_MANDLOCK, false},
    {"noatime", MS_NOATIME, false},
    {"nodev", MS_NODEV, false},
    {"nodiratime", MS_NODIRATIME, false},
    {"noexec", MS_NOEXEC, false},
    {"noiversion", MS_I_VERSION, true},
    {"nolazytime", MS_LAZYTIME, true},
    {"nomand", MS_MANDLOCK, true},
    {"norelatime", MS_RELATIME, true},
    {"nostrictatime", MS_STRICTATIME, true},
    {"nosuid", MS_NOSUID, false},
    {"nosymfollow", MS_NOSYMFOLLOW, false},
    {"rbind", MS_BIND | MS_REC, false},
    {"relatime", MS_RELATIME, false},
    {"remount", MS_REMOUNT, false},
    {"ro", MS_RDONLY, false},
    {"rw", MS_RDONLY, true},
    {"silent", MS_SILENT, false},
    {"strictatime", MS_STRICTATIME, false},
    {"suid", MS_NOSUID, true},
    {"symfollow", MS_NOSYMFOLLOW, true},
    {"sync", MS_SYNCHRONOUS, false},
};

// The access-time modes are one field (MOUNT_ATTR__ATIME): setting one
// clears the field first.
constexpr std::uint64_t kAtime = MOUNT_ATTR__ATIME;
constexpr RecursiveMountOption kRecursiveMountOptions[] = {
    {"ratime", MOUNT_ATTR_RELATIME, kAtime},  // no flag means relatime; there is no plain "atime"
    {"rdev", 0, MOUNT_ATTR_NODEV},
    {"rdiratime", 0, MOUNT_ATTR_NODIRATIME},
    {"rexec", 0, MOUNT_ATTR_NOEXEC},
    {"rnoatime", MOUNT_ATTR_NOATIME, kAtime},
    {"rnodev", MOUNT_ATTR_NODEV, 0},
    {"rnodiratime", MOUNT_ATTR_NODIRATIME, 0},
    {"rnoexec", MOUNT_ATTR_NOEXEC, 0},
    {"rnorelatime", MOUNT_ATTR_STRICTATIME, kAtime},
    {"rnostrictatime", MOUNT_ATTR_RELATIME, kAtime},
    {"rnosuid", MOUNT_ATTR_NOSUID, 0},
    {"rnosymfollow", MOUNT_ATTR_NOSYMFOLLOW, 0},
    {"rrelatime", MOUNT_ATTR_RELATIME, kAtime},
    {"rro", MOUNT_ATTR_RDONLY, 0},
    {"rrw", 0, MOUNT_ATTR_RDONLY},
    {"rstrictatime", MOUNT_ATTR_STRICTATIME, kAtime},
    {"rsuid", 0, MOUNT_ATTR_NOSUID},
    {"rsymfollow", 0, MOUNT_ATTR_NOSYMFOLLOW},
};

}  // namespace

std::span<const RecursiveMountOption> RecursiveMountOptions() { return kRecursiveMountOptions; }

std::optional<RecursiveMountOption> FindRecursiveMountOption(std::string_view name) {
  for (const RecursiveMountOption& option : kRecursiveMountOptions) {
    if (option.name == name) return option;
  }
  return std::nullopt;
}

std::span<const MountOption> MountOptions() { return kMountOptions; }

std::optional<MountOption> FindMountOption(std::string_view name) {
  for (const MountOption& option : kMountOptions) {
    if (option.name == name) return option;
  }
  return std::nullopt;
}

}  // namespace vigil::config
