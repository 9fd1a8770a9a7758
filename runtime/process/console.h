// Terminals: with process.terminal the container gets a pseudo-terminal
// whose master goes to the caller over --console-socket (SCM_RIGHTS), as
// containerd, podman/conmon and Docker expect.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/oci/process.h"

namespace vigil::runtime {

// In `create`, on the host: connects to the caller's console socket.
Result<UniqueFd> ConnectConsoleSocket(const std::string& path);

// In the init, after pivot_root (so the container's own devpts is used):
// opens a pty, gives its slave to `owner` (the process's uid; the group
// stays devpts's), sends its master over `socket_fd`, makes the slave the
// controlling terminal and stdin/stdout/stderr, and applies `size`.
Result<void> SetupConsole(int socket_fd, const std::optional<config::ConsoleSize>& size,
                          uid_t owner);

}  // namespace vigil::runtime
