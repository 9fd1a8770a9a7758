// The mount options vigil understands, as mount(2) flags. An option not in
// this table (or in kPropagationNames) is filesystem data, passed to mount(2)
// as its data string ("size=64m", "mode=755").
#pragma once

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

}  // namespace vigil::config
