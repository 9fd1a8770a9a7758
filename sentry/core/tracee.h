// What a handler sees of the workload thread that made a syscall, written
// once for every backend (seccomp user notification, ptrace), by concern:
// its registers as the kernel reported them (SyscallEvent), its memory
// (tracee_memory.h), the files it resolves paths from (tracee_files.h), and
// whether it still waits for the answer (Tracee). A function that needs
// only one concern takes only that part.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>

#include "base/result.h"
#include "sentry/core/thread_status.h"
#include "sentry/core/tracee_files.h"
#include "sentry/core/tracee_memory.h"

namespace vigil::sentry {

// One intercepted syscall, as the kernel reported it: registers only. What
// they point to must be read once through the Tracee (docs/design.md, rule 2).
struct SyscallEvent {
  pid_t tid = 0;  // in the sentry's pid namespace
  int number = -1;
  std::array<std::uint64_t, 6> args{};
};

// The workload thread behind one syscall, as every handler sees it: its
// memory, the files it names things from, and whether the syscall still
// waits for the answer.
class Tracee : public TraceeMemory, public TraceeFiles {
 public:
  // Whether the syscall still waits for this answer: false once the thread
  // died or was interrupted, after which nothing may be done on its behalf.
  virtual bool Valid() = 0;

  // The thread's execution domain (personality(2)): answers that the
  // kernel adjusts for it (uname under PER_LINUX32) must be adjusted alike.
  virtual Result<unsigned int> Personality() = 0;

  // Its credentials and namespace ids (/proc/TID/status).
  virtual Result<ThreadStatus> Status() = 0;
};

}  // namespace vigil::sentry
