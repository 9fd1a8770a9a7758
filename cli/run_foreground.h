// What `run` and `do` share once they know what to create: create, start,
// then wait for the container (relaying its terminal or forwarding
// signals), and delete it.
#pragma once

#include "base/result.h"
#include "lifecycle/create.h"

namespace vigil::cli {

struct RunMode {
  bool detach = false;          // return once it runs
  bool keep = false;            // do not delete it once it exits
  bool subreaper = true;        // reap its init (state.pid), as runc does
  bool relay_terminal = false;  // be its console socket's other end (process.terminal)
};

// The container's exit status as a shell reports it (0 when detached).
// A container that cannot be started is deleted before the error returns.
Result<int> RunContainer(lifecycle::CreateOptions options, const RunMode& mode);

}  // namespace vigil::cli
