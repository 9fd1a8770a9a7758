// `create`: from a bundle to a container whose init waits for `start`.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"

namespace vigil::runtime {

struct CreateOptions {
  std::string root;  // state directory (--root)
  std::string id;
  std::string bundle;
  std::string pid_file;  // optional: receives the supervisor's pid
  std::string console_socket;
  bool no_pivot = false;
  int preserve_fds = 0;
};

// Creates the container and returns the supervisor's pid (a child of the
// caller). On any failure nothing is left behind: no state directory, no
// process.
Result<pid_t> CreateContainer(const CreateOptions& options);

}  // namespace vigil::runtime
