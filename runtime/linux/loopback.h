// The loopback interface of a container's new network namespace, up before
// the program runs, as runc does (programs expect 127.0.0.1 to work).
#pragma once

#include "base/result.h"

namespace vigil::runtime {

// Sets IFF_UP on "lo" in the caller's network namespace (SIOCSIFFLAGS:
// needs CAP_NET_ADMIN over it, which the init holds until the user switch).
Result<void> BringUpLoopback();

}  // namespace vigil::runtime
