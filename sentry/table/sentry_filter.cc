#include "sentry/table/sentry_filter.h"

#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "base/strings.h"
#include "seccomp/bpf.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |
                                          CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                          CLONE_NEWNET;
// What a number the table does not list gets, as from an older kernel.
constexpr std::uint32_t kDefaultErrno = ENOSYS;
constexpr std::uint64_t kSocketTypeMask = 0xf;  // SOCK_NONBLOCK and SOCK_CLOEXEC sit above

// ioctl's command type (_IOC_TYPE, bits 8-15) and the types of the
// commands that change a file's inode through any descriptor of it
// (linux/fs.h): 'f' (FS_IOC_SETFLAGS, FS_IOC_ENABLE_VERITY,
// FS_IOC_SET_ENCRYPTION_POLICY, EXT4_IOC_MIGRATE), 'v' (FS_IOC_SETVERSION),
// 'X' (FS_IOC_FSSETXATTR).
constexpr std::uint32_t kIoctlTypeBits = 0xff00;
constexpr std::uint32_t kInodeIoctlTypes[] = {'f' << 8, 'v' << 8, 'X' << 8};

struct MaskedValue {
  std::uint32_t mask;
  std::uint32_t value;
};

// Every value of the bits in `field` but `taken` (each within `field`), as
// masked prefixes no two of which overlap: walking the field from its top
// bit, the branch that no taken value follows ends a prefix. Few rules
// (at most the field's width per taken value), so a call pays a short
// chain, where one rule per other value would be hundreds.
void AddComplement(std::uint32_t field, std::uint32_t mask, std::uint32_t value,
                   const std::vector<std::uint32_t>& taken, std::vector<MaskedValue>& out) {
  if (taken.empty()) {
    out.push_back({mask, value});
    return;
  }
  const std::uint32_t rest = field & ~mask;
  if (rest == 0) return;  // a taken value itself
  const std::uint32_t bit = 1u << (31 - __builtin_clz(rest));
  std::vector<std::uint32_t> clear;
  std::vector<std::uint32_t> set;
  for (std::uint32_t t : taken) ((t & bit) != 0 ? set : clear).push_back(t);
  AddComplement(field, mask | bit, value, clear, out);
  AddComplement(field, mask | bit, value | bit, set, out);
}

class RuleSink {
 public:
  RuleSink(scmp_filter_ctx ctx, const SyscallEntry& entry) : ctx_(ctx), entry_(entry) {}

  Result<void> Add(std::uint32_t action, const std::vector<scmp_arg_cmp>& conditions = {}) {
    int rc = seccomp_rule_add_array(ctx_, action, entry_.number,
                                    static_cast<unsigned>(conditions.size()), conditions.data());
    if (rc < 0) return FailErrno(-rc, StrCat("libseccomp: add the rule for ", entry_.name));
    return {};
  }

 private:
  scmp_filter_ctx ctx_;
  const SyscallEntry& entry_;
};

// Every rule of a guarded syscall carries conditions, and the conditions of
// different rules never overlap: libseccomp gives no precedence between
// overlapping rules (an unconditional one would swallow the rest).
// `route`: what socket(AF_NETLINK, *, NETLINK_ROUTE) gets.
Result<void> AddGuarded(RuleSink& sink, Guard guard, std::uint32_t route = SCMP_ACT_ALLOW) {
  switch (guard) {
    case Guard::kNone:
    case Guard::kWithAddress:          // only mediated calls look at the address
    case Guard::kInodeIoctlTypes:      // only mediated calls look at the command
    case Guard::kRoutingOptionLevels:  // only mediated calls look at the level
    case Guard::kWriteOpens:           // only mediated calls look at the flags
      return sink.Add(SCMP_ACT_ALLOW);
    case Guard::kCloneNoNamespaces:
      RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, {SCMP_A0(SCMP_CMP_MASKED_EQ, kNamespaceFlags, 0)}));
      for (std::uint64_t bit = 1; bit != 0; bit <<= 1) {
        if ((kNamespaceFlags & bit) == 0) continue;
        RETURN_IF_ERROR(sink.Add(SCMP_ACT_ERRNO(EPERM), {SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit)}));
      }
      return {};
    case Guard::kSeccompNoListener: {
      constexpr std::uint64_t kListener = SECCOMP_FILTER_FLAG_NEW_LISTENER;
      RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, {SCMP_A1(SCMP_CMP_MASKED_EQ, kListener, 0)}));
      return sink.Add(SCMP_ACT_ERRNO(EPERM), {SCMP_A1(SCMP_CMP_MASKED_EQ, kListener, kListener)});
    }
    case Guard::kSocketFamilies: {
      RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, {SCMP_A0(SCMP_CMP_EQ, AF_UNIX)}));
      for (int family : {AF_INET, AF_INET6}) {
        auto type_is = [&](int type) {
          return std::vector<scmp_arg_cmp>{
              SCMP_A0(SCMP_CMP_EQ, static_cast<std::uint64_t>(family)),
              SCMP_A1(SCMP_CMP_MASKED_EQ, kSocketTypeMask, static_cast<std::uint64_t>(type))};
        };
        for (int type : {SOCK_STREAM, SOCK_DGRAM})
          RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, type_is(type)));
        // Raw IP sockets forge packets; CAP_NET_RAW alone must not be enough.
        RETURN_IF_ERROR(sink.Add(SCMP_ACT_ERRNO(EPERM), type_is(SOCK_RAW)));
        for (int type : {SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET}) {
          RETURN_IF_ERROR(sink.Add(SCMP_ACT_ERRNO(ESOCKTNOSUPPORT), type_is(type)));
        }
      }
      RETURN_IF_ERROR(
          sink.Add(route, {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE)}));
      RETURN_IF_ERROR(
          sink.Add(SCMP_ACT_ERRNO(EPROTONOSUPPORT),
                   {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE)}));
      // Every other family answers as if the kernel lacked it: packet
      // sockets, and the rarely used protocol modules that are a steady
      // source of kernel exploits.
      for (int family = 0; family < AF_MAX; ++family) {
        if (family == AF_UNIX || family == AF_INET || family == AF_INET6 || family == AF_NETLINK) {
          continue;
        }
        RETURN_IF_ERROR(sink.Add(SCMP_ACT_ERRNO(EAFNOSUPPORT),
                                 {SCMP_A0(SCMP_CMP_EQ, static_cast<std::uint64_t>(family))}));
      }
      return sink.Add(SCMP_ACT_ERRNO(EAFNOSUPPORT), {SCMP_A0(SCMP_CMP_GE, AF_MAX)});
    }
  }
  return Fail("unknown guard");
}

// Mediates the calls whose second argument, masked to `field`, is one of
// `taken` (each within `field`); every other value runs on the fast path.
Result<void> MediateOnly(RuleSink& sink, std::uint32_t field,
                         const std::vector<std::uint32_t>& taken, std::uint32_t mediate) {
  std::vector<MaskedValue> others;
  AddComplement(field, 0, 0, taken, others);
  for (const MaskedValue& other : others) {
    RETURN_IF_ERROR(
        sink.Add(SCMP_ACT_ALLOW, {SCMP_A1(SCMP_CMP_MASKED_EQ, other.mask, other.value)}));
  }
  for (std::uint32_t value : taken) {
    RETURN_IF_ERROR(sink.Add(mediate, {SCMP_A1(SCMP_CMP_MASKED_EQ, field, value)}));
  }
  return {};
}

Result<void> AddMediated(RuleSink& sink, const SyscallEntry& entry, const FilterOptions& options) {
  const Guard guard = entry.guard;
  const std::uint32_t mediate = options.traced ? SCMP_ACT_TRACE(0) : SCMP_ACT_NOTIFY;
  // socket: only NETLINK_ROUTE goes to the sentry, every other family
  // keeps its fast-path answer.
  if (guard == Guard::kSocketFamilies) return AddGuarded(sink, guard, mediate);
  // Masked: the kernel reads an ioctl's command and a socket option's
  // level as 32-bit ints, so whatever the workload puts above them must
  // not change the verdict.
  if (guard == Guard::kInodeIoctlTypes) {
    return MediateOnly(sink, kIoctlTypeBits,
                       {std::begin(kInodeIoctlTypes), std::end(kInodeIoctlTypes)}, mediate);
  }
  if (guard == Guard::kRoutingOptionLevels) {
    return MediateOnly(sink, 0xffffffff, {SOL_IP, SOL_IPV6}, mediate);
  }
  if (guard == Guard::kWriteOpens && !options.mediate_reads) {
    // The flags are a register (open's second argument, openat's third):
    // an open that only reads is the kernel's, whatever else it asks.
    // Masked: the kernel reads an int, so the bits above do not count.
    const unsigned flags_arg = OpenFlagsArgument(entry.number);
    auto flags = [&](scmp_compare op) {
      return scmp_arg_cmp{.arg = flags_arg, .op = op, .datum_a = kWriteOpenFlags, .datum_b = 0};
    };
    RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, {flags(SCMP_CMP_MASKED_EQ)}));
    for (std::uint64_t bit = 1; bit <= kWriteOpenFlags; bit <<= 1) {
      if ((kWriteOpenFlags & bit) == 0) continue;
      RETURN_IF_ERROR(sink.Add(
          mediate,
          {scmp_arg_cmp{
              .arg = flags_arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = bit, .datum_b = bit}}));
    }
    return {};
  }
  if (guard != Guard::kWithAddress) return sink.Add(mediate);
  // sendto's destination pointer is a register: without one the call
  // cannot reach a new peer and stays on the fast path.
  RETURN_IF_ERROR(sink.Add(SCMP_ACT_ALLOW, {SCMP_A4(SCMP_CMP_EQ, 0)}));
  return sink.Add(mediate, {SCMP_A4(SCMP_CMP_NE, 0)});
}

Result<void> AddEntry(scmp_filter_ctx ctx, const SyscallEntry& entry,
                      const FilterOptions& options) {
  RuleSink sink(ctx, entry);
  switch (EffectiveTier(entry, options)) {
    case Tier::kFast:
      return AddGuarded(sink, entry.guard);
    case Tier::kMediated:
      return AddMediated(sink, entry, options);
    case Tier::kTraced:
      return sink.Add(SCMP_ACT_TRACE(0));
    case Tier::kDenied:
      // The filter's default answer already (libseccomp refuses a rule
      // that changes nothing).
      if (entry.deny_errno == kDefaultErrno) return {};
      return sink.Add(SCMP_ACT_ERRNO(static_cast<std::uint32_t>(entry.deny_errno)));
  }
  return Fail(StrCat("unknown tier for ", entry.name));
}

}  // namespace

Result<seccomp::CompiledFilter> BuildSentryFilter(const FilterOptions& options) {
  seccomp::SeccompContext filter(seccomp_init(SCMP_ACT_ERRNO(kDefaultErrno)));
  if (!filter) return Fail("libseccomp could not create the sentry's filter");
  for (auto [attribute, value] : {std::pair{SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS},
                                  // A binary tree: O(log n) comparisons for ~380 syscalls.
                                  std::pair{SCMP_FLTATR_CTL_OPTIMIZE, 2u}}) {
    if (int rc = seccomp_attr_set(filter.get(), attribute, value); rc < 0) {
      return FailErrno(-rc, "libseccomp: set a filter attribute");
    }
  }
  seccomp::CompiledFilter compiled{.flags = SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV};
  for (const SyscallEntry& entry : SyscallTable()) {
    RETURN_IF_ERROR(AddEntry(filter.get(), entry, options));
    if (EffectiveTier(entry, options) == Tier::kMediated && !options.traced) {
      compiled.has_notify = true;
    }
  }
  if (!compiled.has_notify) compiled.flags = 0;
  ASSIGN_OR_RETURN(compiled.program, seccomp::ExportBpf(filter.get()));
  return compiled;
}

FilterOptions FilterOptionsFor(const config::Policy& policy, Platform platform) {
  // A unix socket's path is a file: connects and sends to one that is
  // hidden or denied are refused too.
  return {.mediate_network = policy.observe || !config::RefusesNoAddress(policy),
          .mediate_files = policy.observe || config::RestrictsFiles(policy),
          .mediate_reads = config::MediatesReads(policy),
          .traced = platform == Platform::kPtrace};
}

Result<seccomp::CompiledFilter> BuildChannelGuardFilter() {
  seccomp::SeccompContext filter(seccomp_init(SCMP_ACT_ALLOW));
  if (!filter) return Fail("libseccomp could not create the channel guard's filter");
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
      rc < 0) {
    return FailErrno(-rc, "libseccomp: set a filter attribute");
  }
  // Descriptors are unsigned int: only the low 32 bits name one.
  constexpr std::uint64_t kChannel = kDescriptorChannelFd;
  constexpr std::uint64_t kLow32 = 0xffffffff;
  auto names_channel = [](unsigned arg) {
    return scmp_arg_cmp{
        .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = kLow32, .datum_b = kChannel};
  };
  auto trace = [&](int number, const std::vector<scmp_arg_cmp>& conditions) -> Result<void> {
    int rc = seccomp_rule_add_array(filter.get(), SCMP_ACT_TRACE(0), number,
                                    static_cast<unsigned>(conditions.size()), conditions.data());
    if (rc < 0) return FailErrno(-rc, "libseccomp: add a channel guard rule");
    return {};
  };
  for (int number : {SCMP_SYS(close), SCMP_SYS(dup), SCMP_SYS(fcntl)}) {
    RETURN_IF_ERROR(trace(number, {names_channel(0)}));
  }
  for (int number : {SCMP_SYS(dup2), SCMP_SYS(dup3)}) {
    RETURN_IF_ERROR(trace(number, {names_channel(0)}));
    RETURN_IF_ERROR(trace(number, {names_channel(1)}));
  }
  // A range over the channel, or bounds with high bits the kernel ignores
  // (the sentry works out what they cover).
  RETURN_IF_ERROR(trace(SCMP_SYS(close_range),
                        {SCMP_A0(SCMP_CMP_LE, kChannel), SCMP_A1(SCMP_CMP_GE, kChannel)}));
  RETURN_IF_ERROR(trace(SCMP_SYS(close_range), {SCMP_A0(SCMP_CMP_GT, kLow32)}));
  RETURN_IF_ERROR(trace(SCMP_SYS(close_range), {SCMP_A1(SCMP_CMP_GT, kLow32)}));
  seccomp::CompiledFilter compiled;
  ASSIGN_OR_RETURN(compiled.program, seccomp::ExportBpf(filter.get()));
  return compiled;
}

bool CredentialsFixed(const config::Policy& policy, Platform platform) {
  return platform == Platform::kPtrace && config::RestrictsFiles(policy);
}

}  // namespace vigil::sentry
