// runtime-spec config.json "linux": namespaces, devices, cgroups, seccomp and
// the other Linux-only settings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/oci/enums.h"
#include "config/oci/resources.h"
#include "config/oci/seccomp.h"

namespace vigil::config {

struct IdMapping {
  std::uint32_t container_id = 0;
  std::uint32_t host_id = 0;
  std::uint32_t size = 0;
  bool operator==(const IdMapping&) const = default;
};

// A namespace to create, or (with `path`) to join.
struct Namespace {
  NamespaceType type = NamespaceType::kPid;
  std::string path;
  bool operator==(const Namespace&) const = default;
};

// A device node to create in the container's /dev.
struct Device {
  std::string type;  // "c", "b", "u" or "p"
  std::string path;
  std::int64_t major = 0;
  std::int64_t minor = 0;
  std::optional<std::uint32_t> file_mode;
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
  bool operator==(const Device&) const = default;
};

// Offset of the container's CLOCK_MONOTONIC or CLOCK_BOOTTIME.
struct TimeOffset {
  std::int64_t secs = 0;
  std::uint32_t nanosecs = 0;
  bool operator==(const TimeOffset&) const = default;
};

struct IntelRdt {
  std::string clos_id;
  std::string l3_cache_schema;
  std::string mem_bw_schema;
  bool enable_cmt = false;
  bool enable_mbm = false;
  bool operator==(const IntelRdt&) const = default;
};

struct Personality {
  std::string domain;  // "LINUX" or "LINUX32"
  std::vector<std::string> flags;
  bool operator==(const Personality&) const = default;
};

struct Linux {
  std::vector<IdMapping> uid_mappings;
  std::vector<IdMapping> gid_mappings;
  std::map<std::string, std::string> sysctl;
  std::optional<Resources> resources;
  std::string cgroups_path;
  std::vector<Namespace> namespaces;
  std::vector<Device> devices;
  std::optional<Seccomp> seccomp;
  std::string rootfs_propagation;
  std::vector<std::string> masked_paths;
  std::vector<std::string> readonly_paths;
  std::string mount_label;
  std::optional<IntelRdt> intel_rdt;
  std::optional<Personality> personality;
  std::map<std::string, TimeOffset> time_offsets;  // "monotonic", "boottime"
  bool operator==(const Linux&) const = default;

  // The entry for `type`, if the config lists one.
  [[nodiscard]] const Namespace* FindNamespace(NamespaceType type) const;
};

}  // namespace vigil::config
