#include "config/oci/names.h"

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/elf-em.h>
#include <linux/ioprio.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/strings.h"

namespace vigil::config {

#define NAMED(x) \
  { #x, x }

const NamedValue kCapabilityNames[41] = {
    NAMED(CAP_CHOWN),
    NAMED(CAP_DAC_OVERRIDE),
    NAMED(CAP_DAC_READ_SEARCH),
    NAMED(CAP_FOWNER),
    NAMED(CAP_FSETID),
    NAMED(CAP_KILL),
    NAMED(CAP_SETGID),
    NAMED(CAP_SETUID),
    NAMED(CAP_SETPCAP),
    NAMED(CAP_LINUX_IMMUTABLE),
    NAMED(CAP_NET_BIND_SERVICE),
    NAMED(CAP_NET_BROADCAST),
    NAMED(CAP_NET_ADMIN),
    NAMED(CAP_NET_RAW),
    NAMED(CAP_IPC_LOCK),
    NAMED(CAP_IPC_OWNER),
    NAMED(CAP_SYS_MODULE),
    NAMED(CAP_SYS_RAWIO),
    NAMED(CAP_SYS_CHROOT),
    NAMED(CAP_SYS_PTRACE),
    NAMED(CAP_SYS_PACCT),
    NAMED(CAP_SYS_ADMIN),
    NAMED(CAP_SYS_BOOT),
    NAMED(CAP_SYS_NICE),
    NAMED(CAP_SYS_RESOURCE),
    NAMED(CAP_SYS_TIME),
    NAMED(CAP_SYS_TTY_CONFIG),
    NAMED(CAP_MKNOD),
    NAMED(CAP_LEASE),
    NAMED(CAP_AUDIT_WRITE),
    NAMED(CAP_AUDIT_CONTROL),
    NAMED(CAP_SETFCAP),
    NAMED(CAP_MAC_OVERRIDE),
    NAMED(CAP_MAC_ADMIN),
    NAMED(CAP_SYSLOG),
    NAMED(CAP_WAKE_ALARM),
    NAMED(CAP_BLOCK_SUSPEND),
    NAMED(CAP_AUDIT_READ),
    NAMED(CAP_PERFMON),
    NAMED(CAP_BPF),
    NAMED(CAP_CHECKPOINT_RESTORE),
};
static_assert(CAP_LAST_CAP + 1 == std::size(kCapabilityNames));

const NamedValue kRlimitNames[16] = {
    NAMED(RLIMIT_AS),     NAMED(RLIMIT_CORE),   NAMED(RLIMIT_CPU),        NAMED(RLIMIT_DATA),
    NAMED(RLIMIT_FSIZE),  NAMED(RLIMIT_LOCKS),  NAMED(RLIMIT_MEMLOCK),    NAMED(RLIMIT_MSGQUEUE),
    NAMED(RLIMIT_NICE),   NAMED(RLIMIT_NOFILE), NAMED(RLIMIT_NPROC),      NAMED(RLIMIT_RSS),
    NAMED(RLIMIT_RTPRIO), NAMED(RLIMIT_RTTIME), NAMED(RLIMIT_SIGPENDING), NAMED(RLIMIT_STACK),
};
static_assert(RLIM_NLIMITS == std::size(kRlimitNames));

// libseccomp's SCMP_ARCH_* tokens are the kernel's AUDIT_ARCH_* values; x32
// shares x86_64's machine but lacks the 64-bit convention bit.
const NamedValue kSeccompArchNames[19] = {
    {"SCMP_ARCH_X86", AUDIT_ARCH_I386},
    {"SCMP_ARCH_X86_64", AUDIT_ARCH_X86_64},
    {"SCMP_ARCH_X32", EM_X86_64 | __AUDIT_ARCH_LE},
    {"SCMP_ARCH_ARM", AUDIT_ARCH_ARM},
    {"SCMP_ARCH_AARCH64", AUDIT_ARCH_AARCH64},
    {"SCMP_ARCH_MIPS", AUDIT_ARCH_MIPS},
    {"SCMP_ARCH_MIPS64", AUDIT_ARCH_MIPS64},
    {"SCMP_ARCH_MIPS64N32", AUDIT_ARCH_MIPS64N32},
    {"SCMP_ARCH_MIPSEL", AUDIT_ARCH_MIPSEL},
    {"SCMP_ARCH_MIPSEL64", AUDIT_ARCH_MIPSEL64},
    {"SCMP_ARCH_MIPSEL64N32", AUDIT_ARCH_MIPSEL64N32},
    {"SCMP_ARCH_PPC", AUDIT_ARCH_PPC},
    {"SCMP_ARCH_PPC64", AUDIT_ARCH_PPC64},
    {"SCMP_ARCH_PPC64LE", AUDIT_ARCH_PPC64LE},
    {"SCMP_ARCH_S390", AUDIT_ARCH_S390},
    {"SCMP_ARCH_S390X", AUDIT_ARCH_S390X},
    {"SCMP_ARCH_PARISC", AUDIT_ARCH_PARISC},
    {"SCMP_ARCH_PARISC64", AUDIT_ARCH_PARISC64},
    {"SCMP_ARCH_RISCV64", AUDIT_ARCH_RISCV64},
};

const NamedValue kSeccompFlagNames[4] = {
    NAMED(SECCOMP_FILTER_FLAG_TSYNC),
    NAMED(SECCOMP_FILTER_FLAG_LOG),
    NAMED(SECCOMP_FILTER_FLAG_SPEC_ALLOW),
    NAMED(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV),
};

const NamedValue kPropagationNames[8] = {
    {"shared", MS_SHARED},         {"rshared", MS_SHARED | MS_REC},
    {"slave", MS_SLAVE},           {"rslave", MS_SLAVE | MS_REC},
    {"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC},
    {"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC},
};

// SCHED_ISO is reserved by the kernel headers but never implemented (4).
const NamedValue kSchedulerPolicyNames[7] = {
    {"SCHED_OTHER", SCHED_NORMAL},
    NAMED(SCHED_FIFO),
    NAMED(SCHED_RR),
    NAMED(SCHED_BATCH),
    {"SCHED_ISO", 4},
    NAMED(SCHED_IDLE),
    NAMED(SCHED_DEADLINE),
};

const NamedValue kSchedulerFlagNames[7] = {
    NAMED(SCHED_FLAG_RESET_ON_FORK),  NAMED(SCHED_FLAG_RECLAIM),
    NAMED(SCHED_FLAG_DL_OVERRUN),     NAMED(SCHED_FLAG_KEEP_POLICY),
    NAMED(SCHED_FLAG_KEEP_PARAMS),    NAMED(SCHED_FLAG_UTIL_CLAMP_MIN),
    NAMED(SCHED_FLAG_UTIL_CLAMP_MAX),
};

const NamedValue kIoPriorityClassNames[3] = {
    NAMED(IOPRIO_CLASS_RT),
    NAMED(IOPRIO_CLASS_BE),
    NAMED(IOPRIO_CLASS_IDLE),
};

const NamedValue kPersonalityDomainNames[2] = {
    {"LINUX", PER_LINUX},
    {"LINUX32", PER_LINUX32},
};

// "u" is an unbuffered character device: the same node type as "c".
const NamedValue kDeviceTypeNames[4] = {
    {"c", S_IFCHR},
    {"b", S_IFBLK},
    {"u", S_IFCHR},
    {"p", S_IFIFO},
};

const NamedValue kCgroupDeviceTypeNames[3] = {{"a", 0}, {"c", S_IFCHR}, {"b", S_IFBLK}};

#undef NAMED

const NamedValue* FindName(std::span<const NamedValue> table, std::string_view name) {
  for (const NamedValue& entry : table) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::vector<std::string_view> NamesOf(std::span<const NamedValue> table) {
  std::vector<std::string_view> names;
  for (const NamedValue& entry : table) names.push_back(entry.name);
  return names;
}

std::string UnknownNameMessage(std::string_view name, const std::vector<std::string_view>& names) {
  std::string message = StrCat("unknown value ", Quote(name));
  // Long lists (41 capabilities) would bury the line; short ones (the 16
  // rlimits) help.
  constexpr std::size_t kMaxListed = 16;
  if (names.size() <= kMaxListed) {
    message += "; expected one of ";
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i > 0) message += ", ";
      message += names[i];
    }
  }
  return message;
}

}  // namespace vigil::config
