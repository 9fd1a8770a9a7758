// The supervisor's own descriptors reached through /proc/self/fd, as
// handlers need them on every mediated file call: where an opened file is
// (readlink) and the file opened anew with the workload's flags (the way an
// O_PATH descriptor is reopened). The directory is opened once per process
// and a fork forgets it, so a name is one lookup instead of four (/proc,
// self, the pid, fd): about half a microsecond each time on a small VM.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"

namespace vigil::sentry {

// The target of /proc/self/fd/`fd`: "/etc/passwd", "pipe:[4242]".
Result<std::string> LinkOfOwnDescriptor(int fd);

// open(2) of /proc/self/fd/`fd` with `flags` and `mode` (O_TMPFILE): a new
// open file of what `fd` names, checked against the caller's credentials.
// Returns the descriptor, or -1 with errno set.
int ReopenOwnDescriptor(int fd, int flags, mode_t mode);

}  // namespace vigil::sentry
