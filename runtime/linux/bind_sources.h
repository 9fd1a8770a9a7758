// Bind-mount sources taken before the container's user namespace exists.
// Inside it the init is a mapped root that may not be able to walk to a
// source at all (a 0700 directory of the host's root on the way), so the
// runtime, still the host's root, takes a detached copy of each source
// (open_tree(OPEN_TREE_CLONE)) and the init attaches it with move_mount,
// as runc opens such sources before it enters the user namespace.
//
// A source inside the container's own rootfs (the policy's bind of the
// image's working directory, container_setup.h) is resolved inside it: a
// symlink in the image names a path of the image, never one of the host's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/spec.h"

namespace vigil::runtime {

// Whether `source` lies in `rootfs` (both absolute; compared lexically).
bool InsideRootfs(std::string_view source, std::string_view rootfs);

// The detached tree of one bind mount's source (recursive for rbind), a
// source inside `rootfs` resolved inside it. Fails naming the mount.
Result<UniqueFd> TakeBindSource(const config::Mount& mount, const std::string& rootfs);

// One entry per spec.mounts entry: the detached tree of a bind mount's
// source (recursive for rbind), an empty UniqueFd for any other mount.
// Fails naming the mount whose source cannot be taken.
Result<std::vector<UniqueFd>> TakeBindSources(const config::Spec& spec);

// Their descriptor numbers, -1 where there is none, as the init gets them
// (it inherits the descriptors: clone without exec).
std::vector<int> DescriptorsOf(const std::vector<UniqueFd>& sources);

}  // namespace vigil::runtime
