// Leaving the caller's terminal behind (docs/design.md rule 6). A process
// vigil starts — the supervisor, a container's init, an exec'd process —
// must reach no terminal of the host's: in the caller's session, /dev/tty
// opens the operator's terminal, and TIOCSTI on it pushes a line the
// operator's shell then runs. runc's processes start in a session of their
// own for the same reason (setsid in nsexec).
#pragma once

#include "base/result.h"

namespace vigil::runtime {

// Puts the caller in a new session with no controlling terminal. A process
// group leader cannot start a session (setsid answers EPERM): it is
// detached from its controlling terminal instead (TIOCNOTTY), which leaves
// it in its session but with no terminal that /dev/tty could open.
Result<void> LeaveTerminalSession();

}  // namespace vigil::runtime
