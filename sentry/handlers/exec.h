// execve and execveat against the policy's exec rules (exec.allow,
// exec.fromWritable) and its file rules, decided on the file the path
// resolves to at entry.
//
// The kernel resolves the path again once the call is let through, so a
// thread swapping a symlink between the check and the exec could run
// another file. The verdict therefore names the image the approved file
// maps (exec_image.h) and the backend verifies it when the exec is done,
// before the new program's first instruction (the unotify backend at
// PTRACE_EVENT_EXEC, sentry/notify/exec_watch.h): another file is killed.
#pragma once

#include "base/result.h"
#include "config/policy/policy.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// Whether execs need a look: an allow-list, fromWritable off, or file
// rules that may hide or deny an executable.
bool ExecRestricted(const config::Policy& policy);

// The decision for one execve/execveat: refused with the policy's errno, or
// let through as asked with the image to verify; or the error of a step
// that failed.
Result<Verdict> CheckExec(HandlerContext& context);

}  // namespace vigil::sentry
