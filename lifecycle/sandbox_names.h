// A sandbox whose own resolver answers its names (docs/policy.md, "Egress
// by name"): its workload's /etc/resolv.conf names that resolver alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/spec.h"
#include "runtime/container/state_dir.h"

namespace vigil::lifecycle {

// Writes the state directory's resolv.conf files (runtime/policy/
// resolv_conf.h) from the container's own — the engine's mount at
// /etc/resolv.conf (Docker's, a pod's), else the image's — and mounts the
// workload's read-only at /etc/resolv.conf in place of that mount.
// `upstream`, when given, is the resolver's resolv.conf instead of the
// container's nameservers.
Result<void> PointNamesAtResolver(const runtime::StateDir& dir, config::Spec& spec,
                                  std::string_view resolver,
                                  const std::optional<std::string>& upstream = std::nullopt);

}  // namespace vigil::lifecycle
