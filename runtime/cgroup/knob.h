// Internal to runtime/cgroup: how the per-controller files (memory.cc,
// cpu.cc, ...) find the directory that holds a controller and read and write
// its control files, with errors that name the config.json field.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "runtime/cgroup/fs.h"
#include "runtime/cgroup/hierarchy.h"

namespace vigil::runtime::cgroup {

// Value cgroupfs shows as "max" (v2) when reading numbers.
inline constexpr std::uint64_t kUnlimited = UINT64_MAX;

class Knobs {
 public:
  Knobs(const std::vector<Placement>& placements, const Fs& fs)
      : placements_(placements), fs_(fs) {}

  // The directory of the hierarchy that holds `controller`: a v1 hierarchy
  // if one does, else the cgroup2 mount (see FindController). Null if none.
  [[nodiscard]] const Placement* Find(std::string_view controller) const;

  // Find, or an error naming `json_path` and the missing controller. On
  // cgroup2 it also checks that the controller is enabled in the cgroup
  // itself (cgroup.controllers), so a missing +controller in the parent's
  // cgroup.subtree_control is reported as such, not as a missing file.
  [[nodiscard]] Result<const Placement*> Require(std::string_view controller,
                                                 std::string_view json_path) const;

  // The cgroup2 directory, or null on a v1-only host.
  [[nodiscard]] const Placement* Unified() const;

  // Writes one control file; errors read
  // "<json_path>: write <dir>/<file>: <strerror>".
  [[nodiscard]] Result<void> Write(const Placement& where, std::string_view file,
                                   std::string_view value, std::string_view json_path) const;

  // A control file's contents without the trailing newline.
  [[nodiscard]] Result<std::string> Read(const Placement& where, std::string_view file) const;

  // A file holding one number; "max" reads as kUnlimited.
  [[nodiscard]] Result<std::uint64_t> ReadNumber(const Placement& where,
                                                 std::string_view file) const;

  // A flat-keyed file ("key value" lines: memory.stat, cpu.stat, ...).
  [[nodiscard]] Result<std::map<std::string, std::uint64_t>> ReadKeyed(const Placement& where,
                                                                       std::string_view file) const;

  [[nodiscard]] bool Exists(const Placement& where, std::string_view file) const;

  [[nodiscard]] const Fs& fs() const { return fs_; }
  [[nodiscard]] const std::vector<Placement>& placements() const { return placements_; }

 private:
  const std::vector<Placement>& placements_;
  const Fs& fs_;
};

// Parses a decimal number or "max" (kUnlimited); fails on anything else.
Result<std::uint64_t> ParseNumber(std::string_view text);

// "key value" lines into a map; lines that do not parse are skipped.
std::map<std::string, std::uint64_t> ParseKeyed(std::string_view text);

}  // namespace vigil::runtime::cgroup
