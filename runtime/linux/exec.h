// Finding and running the container's program.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil::runtime {

// Resolves `name` as execvp(3) would with the PATH in `env` (or the default
// PATH): a name with a slash is taken as is. Run after pivot_root, so it
// looks inside the container. Errors read like runc's:
// `exec: "foo": executable file not found in $PATH`.
Result<std::string> LookPath(const std::string& name, const std::vector<std::string>& env);

// execve(2); returns only on failure.
Result<void> Exec(const std::string& path, const std::vector<std::string>& args,
                  const std::vector<std::string>& env);

}  // namespace vigil::runtime
