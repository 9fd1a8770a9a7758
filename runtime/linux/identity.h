// Becoming the container process: user and groups, capabilities (libcap-ng),
// no_new_privs, umask.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "config/oci/process.h"

namespace vigil::runtime {

// Drops the bounding set to process.capabilities.bounding. Needs
// CAP_SETPCAP, so it runs before the user switch.
Result<void> DropBoundingSet(const config::Process& process);

// Switches to process.user (supplementary groups first, then gid, then uid),
// keeping the permitted capabilities across the switch, then sets the
// effective, permitted, inheritable and ambient sets, no_new_privs and the
// umask.
Result<void> BecomeUser(const config::Process& process);

// `env` with HOME added when it has none, as runc does: the home directory
// of `uid` in the container's /etc/passwd (read in the current root), or
// "/" when the file or the user is not there.
std::vector<std::string> WithHome(const std::vector<std::string>& env, uid_t uid);

}  // namespace vigil::runtime
