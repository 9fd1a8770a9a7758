// The uid and gid maps of a new user namespace (user_namespaces(7)),
// written by the process that made it for its init.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/linux.h"

namespace vigil::runtime {

// "CONTAINER HOST SIZE" lines, as /proc/PID/uid_map takes them.
std::string MapLines(const std::vector<config::IdMapping>& mappings);

// Whether a process with effective id `id` and no capability may write
// `mappings` itself: one line mapping `id` alone.
bool MapsOnlyOwnId(const std::vector<config::IdMapping>& mappings, std::uint32_t id);

// Writes `pid`'s uid_map and gid_map. Root writes them itself. Another user
// may write only a map of its own id, and a gid map only once setgroups is
// refused in the namespace; wider maps go through newuidmap and newgidmap
// (the uidmap package), which check them against /etc/subuid and
// /etc/subgid. Errors name the map and, for a missing helper, the package.
Result<void> WriteIdMaps(pid_t pid, const std::vector<config::IdMapping>& uids,
                         const std::vector<config::IdMapping>& gids);

}  // namespace vigil::runtime
