#include "seccomp/profile.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "base/strings.h"
#include "config/oci/enums.h"
#include "config/oci/json_path.h"
#include "config/oci/names.h"
#include "seccomp/bpf.h"

namespace vigil::seccomp {
namespace {

using config::JsonPath;
using config::SeccompAction;
using config::SeccompOperator;

// libseccomp refuses SCMP_ACT_ERRNO(n) for n >= MAX_ERRNO (4095); the kernel
// would clamp it anyway. A larger value must not be silently masked to 16 bits.
constexpr std::uint32_t kMaxErrnoRet = 4094;
// SCMP_ACT_TRACE's data is the 16-bit value a tracer reads with
// PTRACE_GETEVENTMSG.
constexpr std::uint32_t kMaxTraceData = 0xffff;
// With this many syscalls or more, ask libseccomp for a binary tree
// (SCMP_FLTATR_CTL_OPTIMIZE = 2): O(log n) comparisons per syscall instead of
// one per rule — Docker's profile allows ~350 syscalls. runc does the same for
// long profiles; never for an empty one, whose default action libseccomp
// <= 2.5.3 dropped (libseccomp#370).
constexpr std::size_t kBinaryTreeMinSyscalls = 32;

std::string Hex(unsigned int value) {
  char buf[16];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, 16);
  return std::string(buf, end);
}

tl::unexpected<Error> FailAt(const JsonPath& path, std::string_view message) {
  return Fail(StrCat(path.ToString(), ": ", message));
}

// libseccomp returns -errno.
tl::unexpected<Error> FailAtRc(int rc, const JsonPath& path, std::string_view message) {
  return FailErrno(-rc, StrCat(path.ToString(), ": ", message));
}

// The libseccomp action for `action`, with `errno_ret` for ERRNO and TRACE.
Result<std::uint32_t> ActionValue(SeccompAction action, std::optional<std::uint32_t> errno_ret,
                                  const JsonPath& action_path, const JsonPath& errno_path) {
  const bool takes_errno = action == SeccompAction::kErrno || action == SeccompAction::kTrace;
  if (errno_ret && !takes_errno) {
    return FailAt(errno_path, "only meaningful with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
  }
  const std::uint32_t data = errno_ret.value_or(EPERM);
  switch (action) {
    case SeccompAction::kKill:
    case SeccompAction::kKillThread:
      return SCMP_ACT_KILL_THREAD;
    case SeccompAction::kKillProcess:
      return SCMP_ACT_KILL_PROCESS;
    case SeccompAction::kTrap:
      return SCMP_ACT_TRAP;
    case SeccompAction::kErrno:
      if (data > kMaxErrnoRet) {
        return FailAt(errno_path, StrCat("must be an errno below 4095, got ", data));
      }
      return SCMP_ACT_ERRNO(data);
    case SeccompAction::kTrace:
      if (data > kMaxTraceData) {
        return FailAt(errno_path, StrCat("must fit in 16 bits for SCMP_ACT_TRACE, got ", data));
      }
      return SCMP_ACT_TRACE(data);
    case SeccompAction::kAllow:
      return SCMP_ACT_ALLOW;
    case SeccompAction::kLog:
      return SCMP_ACT_LOG;
    case SeccompAction::kNotify:
      return SCMP_ACT_NOTIFY;
  }
  return FailAt(action_path, StrCat("unknown action ", static_cast<int>(action)));
}

std::optional<scmp_compare> CompareOp(SeccompOperator op) {
  switch (op) {
    case SeccompOperator::kNotEqual:
      return SCMP_CMP_NE;
    case SeccompOperator::kLessThan:
      return SCMP_CMP_LT;
    case SeccompOperator::kLessEqual:
      return SCMP_CMP_LE;
    case SeccompOperator::kEqual:
      return SCMP_CMP_EQ;
    case SeccompOperator::kGreaterEqual:
      return SCMP_CMP_GE;
    case SeccompOperator::kGreaterThan:
      return SCMP_CMP_GT;
    case SeccompOperator::kMaskedEqual:
      return SCMP_CMP_MASKED_EQ;
  }
  return std::nullopt;
}

// One condition. For SCMP_CMP_MASKED_EQ libseccomp takes the mask first and
// the datum second, which is the order of `value` and `valueTwo` (runc's too).
Result<scmp_arg_cmp> Condition(const config::SeccompArg& arg, const JsonPath& path) {
  if (arg.index > 5) {
    return FailAt(path.Key("index"),
                  StrCat("syscalls take at most 6 arguments (index 0-5), got ", arg.index));
  }
  std::optional<scmp_compare> op = CompareOp(arg.op);
  if (!op) return FailAt(path.Key("op"), StrCat("unknown operator ", static_cast<int>(arg.op)));
  return scmp_arg_cmp{.arg = arg.index, .op = *op, .datum_a = arg.value, .datum_b = arg.value_two};
}

// Whether two conditions test the same argument.
bool SharesIndex(const std::vector<scmp_arg_cmp>& conditions) {
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    for (std::size_t j = i + 1; j < conditions.size(); ++j) {
      if (conditions[i].arg == conditions[j].arg) return true;
    }
  }
  return false;
}

Result<void> AddArchitectures(scmp_filter_ctx ctx, const std::vector<std::string>& names,
                              const JsonPath& path) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const config::NamedValue* arch = config::FindName(config::kSeccompArchNames, names[i]);
    if (arch == nullptr) {
      return FailAt(path.Index(i), config::UnknownNameMessage(
                                       names[i], config::NamesOf(config::kSeccompArchNames)));
    }
    int rc = seccomp_arch_add(ctx, static_cast<std::uint32_t>(arch->value));
    if (rc == -EEXIST) continue;  // the native architecture, or listed twice
    if (rc == -EDOM) {
      return FailAt(path.Index(i), StrCat(names[i],
                                          " cannot share a filter with the native architecture "
                                          "(different byte order or word size)"));
    }
    if (rc < 0) return FailAtRc(rc, path.Index(i), StrCat("libseccomp cannot add ", names[i]));
  }
  return {};
}

// Adds the rule for syscall `nr`. libseccomp cannot AND two conditions on one
// argument (it answers EINVAL); runc then adds each condition of the rule as
// a rule of its own, so the conditions are ORed. We do the same, so that a
// profile means what it means under runc.
Result<void> AddRule(scmp_filter_ctx ctx, std::uint32_t action, int nr,
                     const std::vector<scmp_arg_cmp>& conditions, const JsonPath& path,
                     const std::string& name) {
  if (!SharesIndex(conditions)) {
    int rc = seccomp_rule_add_array(ctx, action, nr, static_cast<unsigned>(conditions.size()),
                                    conditions.data());
    if (rc < 0) return FailAtRc(rc, path, StrCat("add rule for ", Quote(name)));
    return {};
  }
  for (const scmp_arg_cmp& condition : conditions) {
    int rc = seccomp_rule_add_array(ctx, action, nr, 1, &condition);
    if (rc < 0) return FailAtRc(rc, path, StrCat("add rule for ", Quote(name)));
  }
  return {};
}

Result<unsigned int> FilterFlags(const std::vector<std::string>& names, bool has_notify,
                                 const JsonPath& path) {
  unsigned int flags = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const config::NamedValue* flag = config::FindName(config::kSeccompFlagNames, names[i]);
    if (flag == nullptr) {
      return FailAt(path.Index(i), config::UnknownNameMessage(
                                       names[i], config::NamesOf(config::kSeccompFlagNames)));
    }
    flags |= static_cast<unsigned int>(flag->value);
  }
  // WAIT_KILLABLE_RECV (5.19) only changes how a notified task waits for its
  // listener; without NEW_LISTENER the kernel answers EINVAL. A profile that
  // asks for it but notifies nothing loses nothing when it is dropped.
  if (!has_notify) flags &= ~static_cast<unsigned int>(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
  // TSYNC reports a thread it could not synchronise by returning its id,
  // which collides with returning the listener fd; the kernel (5.7+) accepts
  // the two together only if TSYNC_ESRCH makes that failure -ESRCH instead.
  if (has_notify && (flags & SECCOMP_FILTER_FLAG_TSYNC) != 0) {
    flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
  }
  return flags;
}

// The highest x86_64 number among the syscalls `profile` names (-1: none).
int HighestNamedSyscall(const config::Seccomp& profile) {
  int highest = -1;
  for (const config::SeccompSyscall& rule : profile.syscalls) {
    for (const std::string& name : rule.names) {
      highest = std::max(highest, seccomp_syscall_resolve_name(name.c_str()));
    }
  }
  return highest;
}

// A profile names the syscalls its writer knew; one numbered above all of
// them is newer than the profile. Refused with the default errno (EPERM),
// programs that would fall back on a kernel without it (glibc's clone3,
// faccessat2) fail instead: such calls get ENOSYS, as runc's stub gives
// them. Only where the default refuses (allow, log and trace let a new
// syscall through anyway), and only x86_64's numbers: the x32 and i386
// ones keep the default.
void AddEnosysStub(CompiledFilter& compiled, int highest) {
  const sock_filter stub[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, static_cast<std::uint32_t>(highest), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
  };
  // Jumps in BPF are relative: the program after the stub is unchanged.
  compiled.program.insert(compiled.program.begin(), std::begin(stub), std::end(stub));
}

bool LetsNewSyscallsThrough(SeccompAction action) {
  return action == SeccompAction::kAllow || action == SeccompAction::kLog ||
         action == SeccompAction::kTrace;
}

}  // namespace

Result<CompiledFilter> CompileSeccomp(const config::Seccomp& profile) {
  const JsonPath root = JsonPath().Key("linux").Key("seccomp");
  if (profile.default_action == SeccompAction::kNotify) {
    return FailAt(root.Key("defaultAction"),
                  "SCMP_ACT_NOTIFY cannot be the default action (the runtime's own syscalls "
                  "would wait on the listener)");
  }
  ASSIGN_OR_RETURN(const std::uint32_t default_action,
                   ActionValue(profile.default_action, profile.default_errno_ret,
                               root.Key("defaultAction"), root.Key("defaultErrnoRet")));
  SeccompContext filter(seccomp_init(default_action));
  if (!filter) return FailAt(root, "libseccomp could not create a filter");
  // A syscall made through a calling convention the filter does not cover
  // (int 0x80 from x86_64 without SCMP_ARCH_X86) cannot be matched by name:
  // the whole process dies, rather than only the thread (libseccomp's default).
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
      rc < 0) {
    return FailAtRc(rc, root, "libseccomp: set the bad-architecture action");
  }
  RETURN_IF_ERROR(AddArchitectures(filter.get(), profile.architectures, root.Key("architectures")));

  CompiledFilter compiled;
  std::size_t syscalls_added = 0;
  for (std::size_t i = 0; i < profile.syscalls.size(); ++i) {
    const config::SeccompSyscall& rule = profile.syscalls[i];
    const JsonPath at = root.Key("syscalls").Index(i);
    ASSIGN_OR_RETURN(const std::uint32_t action, ActionValue(rule.action, rule.errno_ret,
                                                             at.Key("action"), at.Key("errnoRet")));
    std::vector<scmp_arg_cmp> conditions;
    for (std::size_t a = 0; a < rule.args.size(); ++a) {
      ASSIGN_OR_RETURN(scmp_arg_cmp condition, Condition(rule.args[a], at.Key("args").Index(a)));
      conditions.push_back(condition);
    }
    // libseccomp refuses (EACCES) a rule that would change nothing.
    if (action == default_action) continue;
    for (std::size_t n = 0; n < rule.names.size(); ++n) {
      const std::string& name = rule.names[n];
      // In libseccomp 2.5 one table serves every architecture: a name known
      // on any of them resolves (to a negative pseudo-number where the
      // native one lacks it, e.g. socketcall on x86_64), so an error means
      // no architecture knows it — a syscall newer than the library, or a
      // typo. runc ignores such names; so do we, and report them.
      int nr = seccomp_syscall_resolve_name(name.c_str());
      if (nr == __NR_SCMP_ERROR) {
        if (std::find(compiled.skipped_names.begin(), compiled.skipped_names.end(), name) ==
            compiled.skipped_names.end()) {
          compiled.skipped_names.push_back(name);
        }
        continue;
      }
      RETURN_IF_ERROR(
          AddRule(filter.get(), action, nr, conditions, at.Key("names").Index(n), name));
      ++syscalls_added;
      if (rule.action == SeccompAction::kNotify) compiled.has_notify = true;
    }
  }
  if (syscalls_added >= kBinaryTreeMinSyscalls) {
    if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc < 0) {
      return FailAtRc(rc, root, "libseccomp: enable the binary-tree layout");
    }
  }
  ASSIGN_OR_RETURN(compiled.flags,
                   FilterFlags(profile.flags, compiled.has_notify, root.Key("flags")));
  ASSIGN_OR_RETURN(compiled.program, ExportBpf(filter.get()));
  if (const int highest = HighestNamedSyscall(profile);
      highest >= 0 && !LetsNewSyscallsThrough(profile.default_action)) {
    AddEnosysStub(compiled, highest);
  }
  if (compiled.program.size() > BPF_MAXINSNS) {
    return FailAt(root,
                  StrCat("compiles to ", compiled.program.size(),
                         " BPF instructions, more than the kernel's limit of ", BPF_MAXINSNS));
  }
  return compiled;
}

bool AllowsUnconditionally(const config::Seccomp& profile, std::string_view syscall) {
  auto lets_through = [](config::SeccompAction action) {
    return action == config::SeccompAction::kAllow || action == config::SeccompAction::kLog;
  };
  bool named = false;
  bool without_conditions = false;
  for (const config::SeccompSyscall& rule : profile.syscalls) {
    if (std::find(rule.names.begin(), rule.names.end(), syscall) == rule.names.end()) continue;
    // A rule with the default action is left out of the filter.
    if (rule.action == profile.default_action) continue;
    if (!lets_through(rule.action)) return false;
    named = true;
    without_conditions = without_conditions || rule.args.empty();
  }
  return named ? without_conditions : lets_through(profile.default_action);
}

Result<UniqueFd> LoadSeccomp(const CompiledFilter& filter) {
  if (filter.program.empty() || filter.program.size() > BPF_MAXINSNS) {
    return Fail(StrCat("load seccomp filter: a program of ", filter.program.size(),
                       " instructions cannot be loaded"));
  }
  sock_fprog prog{.len = static_cast<unsigned short>(filter.program.size()),
                  .filter = const_cast<sock_filter*>(filter.program.data())};
  unsigned int flags = filter.flags;
  if (filter.has_notify) flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
  long rc = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (rc < 0) {
    const int err = errno;
    switch (err) {
      case EACCES:
        return FailErrno(err, "load seccomp filter (needs no_new_privs or CAP_SYS_ADMIN)");
      case EBUSY:
        return FailErrno(err, "load seccomp filter: this task already has a seccomp listener");
      case ESRCH:
        return FailErrno(err, "load seccomp filter: another thread could not be synchronised");
      default:
        return FailErrno(err, StrCat("load seccomp filter (", prog.len, " instructions, flags 0x",
                                     Hex(flags), ")"));
    }
  }
  if (filter.has_notify) return UniqueFd(static_cast<int>(rc));
  // Without TSYNC_ESRCH, TSYNC reports a thread it could not move onto the
  // filter by returning that thread's id.
  if (rc > 0) {
    return Fail(StrCat("load seccomp filter: thread ", rc, " could not be synchronised"));
  }
  return UniqueFd();
}

}  // namespace vigil::seccomp
