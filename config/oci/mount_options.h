// The mount options vigil understands, as mount(2) flags. An option not in
// this table (or in kPropagationNames) is filesystem data, passed to mount(2)
// as its data string ("size=64m", "mode=755").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace vigil::config {

struct MountOption {
  std::string_view name;
  unsigned long flags;  // MS_* bits
  bool clear;           // true: the option removes `flags` ("rw", "exec")
};

std::span<const MountOption> MountOptions();

// The table entry for `name`, or nullopt for filesystem data.
std::optional<MountOption> FindMountOption(std::string_view name);

// The recursive options ("rro", "rnosuid", ...): mount attributes applied
// to a mount and every mount below it, with mount_setattr(2) (Linux 5.12).
struct RecursiveMountOption {
  std::string_view name;
  std::uint64_t set;    // MOUNT_ATTR_* to set
  std::uint64_t clear;  // MOUNT_ATTR_* to clear
};

std::span<const RecursiveMountOption> RecursiveMountOptions();
std::optional<RecursiveMountOption> FindRecursiveMountOption(std::string_view name);

}  // namespace vigil::config
