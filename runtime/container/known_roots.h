// The state roots vigil has made containers in, so that a verb run without
// --root can still find them: dockerd, containerd and podman each give their
// own (dockerd 20.10: EXEC_ROOT/runtime-NAME/moby), which their users do not
// know. The list is a file in the default state root, one absolute path a
// line; roots that are gone are dropped when it is written.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil::runtime {

inline constexpr std::string_view kKnownRootsName = ".roots";

// Adds `root` to `default_root`'s list unless it is that root or listed.
Result<void> RememberRoot(const std::string& default_root, const std::string& root);

// `first`, then the default root, then every listed root that still exists,
// each once.
std::vector<std::string> KnownRoots(const std::string& first, const std::string& default_root);

}  // namespace vigil::runtime
