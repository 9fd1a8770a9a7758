// execve and execveat against the policy's exec rules (exec.allow,
// exec.fromWritable) and its file rules, decided on the file the path
// resolves to at entry.
//
// Not yet closed: the kernel resolves the path again once the call is let
// through, so a thread racing to swap a symlink between the check and the
// exec can run another file. The plan (the sentry issue) is to verify the
// mapped file at PTRACE_EVENT_EXEC; until then `noexecWritable` (on in the
// agent profile) makes "nothing the workload wrote runs" a kernel
// guarantee, and exec.allow is enforced at entry only.
#pragma once

#include "config/policy/policy.h"
#include "sentry/handlers/handler.h"

namespace vigil::sentry {

// Whether execs need a look: an allow-list, fromWritable off, or file
// rules that may hide or deny an executable.
bool ExecRestricted(const config::Policy& policy);

// The decision for one execve/execveat: refused with the policy's errno, or
// let through as asked.
Verdict CheckExec(HandlerContext& context);

}  // namespace vigil::sentry
