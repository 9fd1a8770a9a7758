// Becoming the container process: user and groups, capabilities (libcap-ng),
// no_new_privs, umask.
#pragma once

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

}  // namespace vigil::runtime
