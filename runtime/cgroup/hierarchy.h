// The host's cgroup hierarchies as this process sees them: v1 controllers
// each on their own mount, a cgroup2 mount, or both (hybrid, as on these
// machines: v1 controllers plus a cgroup2 mount holding only some).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::runtime::cgroup {

struct Hierarchy {
  std::string mount_point;  // "/sys/fs/cgroup/memory"
  bool v2 = false;          // a cgroup2 mount
  std::vector<std::string>
      controllers;       // v1: "memory", "name=systemd"; v2: from cgroup.controllers
  std::string own_path;  // this process's cgroup in it: "/user.slice"

  // Whether this hierarchy holds `controller` ("memory", "name=systemd").
  [[nodiscard]] bool Has(std::string_view controller) const;
};

// A cgroup's directory in one hierarchy.
struct Placement {
  Hierarchy hierarchy;
  std::string dir;  // "/sys/fs/cgroup/memory/vigil/abc"
};

// Parses mountinfo and cgroup texts (the contents of /proc/self/mountinfo
// and /proc/self/cgroup); separate from the reading so tests can feed it.
// A hierarchy mounted more than once is listed once (its first mount); when a
// mount shows a subtree (mountinfo root not "/", as inside a container),
// own_path is made relative to that subtree.
std::vector<Hierarchy> ParseHierarchies(std::string_view mountinfo, std::string_view proc_cgroup);

// The hierarchies of the calling process.
Result<std::vector<Hierarchy>> DiscoverHierarchies();

// The hierarchy that holds `controller` ("memory"), or null.
const Hierarchy* FindController(const std::vector<Hierarchy>& hierarchies,
                                std::string_view controller);

}  // namespace vigil::runtime::cgroup
