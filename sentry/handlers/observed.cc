// Syscalls the sentry only watches go by: it lets each run as asked
// (Verdict::Continue) and records what was asked for the audit log. What
// they change (credentials, memory, root, execution domain) the backend
// forgets before the answer goes out, so nothing it cached outlives them.
// execve is checked against the exec policy first (exec.cc).
#include <sys/syscall.h>

#include <cerrno>
#include <charconv>

#include "base/strings.h"
#include "sentry/handlers/exec.h"
#include "sentry/handlers/exec_argv.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"

namespace vigil::sentry {
namespace {

// The audit record's "path" for a call the kernel resolves itself: what the
// memory said when the sentry looked, which the workload could still change
// before the kernel reads it. Nothing is decided on it.
void AuditPathAsAsked(HandlerContext& context, std::uint64_t pointer) {
  Result<std::string> path = CopyPath(context.tracee, pointer);
  context.AuditArg("path", path ? *path : StrCat("(", path.error().message, ")"));
}

// Ids as the registers hold them; -1 (0xffffffff) is "unchanged".
std::string Ids(const SyscallEvent& event, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ",";
    out += StrCat(static_cast<std::int32_t>(event.args[static_cast<std::size_t>(i)]));
  }
  return out;
}

// `value` in `base` (8 or 16) with C's prefix, as the man pages write it.
std::string InBase(std::uint64_t value, int base) {
  char digits[24];
  auto [end, ec] = std::to_chars(std::begin(digits), std::end(digits), value, base);
  return StrCat(base == 16 ? "0x" : "0",
                std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

}  // namespace

Result<Verdict> HandleExec(HandlerContext& context) {
  if (!ExecRestricted(*context.sandbox.policy)) {
    const bool at = context.event.number == SYS_execveat;
    AuditPathAsAsked(context, context.event.args[at ? 1 : 0]);
    AuditArgv(context, context.event.args[at ? 2 : 1]);
    return Verdict::Continue();
  }
  return CheckExec(context);
}

Result<Verdict> HandleCredentials(HandlerContext& context) {
  const SyscallEvent& event = context.event;
  switch (event.number) {
    case SYS_setuid:
    case SYS_setgid:
    case SYS_setfsuid:
    case SYS_setfsgid:
      context.AuditArg("ids", Ids(event, 1));
      break;
    case SYS_setreuid:
    case SYS_setregid:
      context.AuditArg("ids", Ids(event, 2));
      break;
    case SYS_setresuid:
    case SYS_setresgid:
      context.AuditArg("ids", Ids(event, 3));
      break;
    case SYS_setgroups:
      context.AuditNumber("count", static_cast<std::int32_t>(event.args[0]));
      break;
    case SYS_umask:
      context.AuditArg("mask", InBase(event.args[0] & 0777, 8));
      break;
    default:
      break;  // capset: its sets are in memory, and nothing is decided on them
  }
  // The ptrace platform under a file policy (CredentialsFixed): every
  // process shares a descriptor channel, which is safe only while they all
  // keep the credentials they started with.
  if (context.sandbox.credentials_fixed && event.number != SYS_umask) {
    return Verdict::Fail(EPERM, Decision::kDeny);
  }
  return Verdict::Continue();
}

Result<Verdict> HandlePersonality(HandlerContext& context) {
  context.AuditArg("persona", InBase(context.event.args[0] & 0xffffffffu, 16));
  return Verdict::Continue();
}

Result<Verdict> HandleChroot(HandlerContext& context) {
  AuditPathAsAsked(context, context.event.args[0]);
  return Verdict::Continue();
}

}  // namespace vigil::sentry
