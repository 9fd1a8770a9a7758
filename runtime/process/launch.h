// The last steps of every container process, the init's and each exec's:
// become the configured user with the configured capabilities, close what
// the runtime holds, and exec the program.
#pragma once

#include <string>

#include "base/result.h"
#include "config/oci/process.h"

namespace vigil::runtime {

// Drops the bounding set, switches user keeping the configured capabilities,
// sets no_new_privs and the umask, marks every fd >= 3 + preserve_fds
// close-on-exec and execs `executable`. Returns only on failure.
Result<void> BecomeAndExec(const config::Process& process, const std::string& executable,
                           int preserve_fds);

}  // namespace vigil::runtime
