// The built-in profiles. docs/policy.md describes each; keep them in step.
#include <string>
#include <vector>

#include "base/strings.h"
#include "config/policy/policy.h"

namespace vigil::config {
namespace {

// OCI semantics: the sentry denies nothing the config allows, and audits
// every mediated decision.
Policy DefaultPolicy() {
  Policy p;
  p.name = "default";
  return p;
}

// For untrusted code, e.g. an AI agent's tool calls: the image is read-only
// and cannot be added to, scratch space is writable, kernel interfaces that
// leak host state are hidden, and nothing leaves the sandbox. The sentry adds
// a "<process.cwd>/**" write rule at run time (after the hidden rules) so
// the workdir is writable too.
Policy AgentPolicy() {
  Policy p;
  p.name = "agent";
  p.file_default = FileAccess::kRead;
  auto rule = [&p](std::string pattern, FileAccess access) {
    p.files.push_back({std::move(pattern), access});
  };
  // The runtime-spec's usual maskedPaths plus the kernel log and the sysrq
  // trigger: host memory, keys, timers and hardware, none of a workload's
  // business. Masked by mounts (as runc masks them) rather than hidden by
  // the sentry: then no read needs the sentry's decision, and reads stay on
  // the kernel's fast path (docs/policy.md, "agent").
  for (const char* path :
       {"/proc/kcore", "/proc/kmsg", "/proc/keys", "/proc/sysrq-trigger", "/proc/latency_stats",
        "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug"}) {
    rule(path, FileAccess::kMasked);
  }
  for (const char* dir :
       {"/proc/acpi", "/proc/asound", "/proc/scsi", "/sys/firmware",
        "/sys/devices/virtual/powercap", "/sys/kernel/debug", "/sys/kernel/security"}) {
    rule(StrCat(dir, "/**"), FileAccess::kMasked);
  }
  // Scratch space.
  rule("/tmp/**", FileAccess::kWrite);
  rule("/var/tmp/**", FileAccess::kWrite);
  rule("/dev/shm/**", FileAccess::kWrite);
  // Devices every shell writes to ("> /dev/null") and the terminal.
  for (const char* device :
       {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts/**"}) {
    rule(device, FileAccess::kWrite);
  }
  // Kernel interfaces: readable, never writable. The default says so too;
  // stating it keeps the profile correct if the default is ever loosened.
  rule("/proc/**", FileAccess::kRead);
  rule("/sys/**", FileAccess::kRead);
  p.egress_default_deny = true;
  p.unix_sockets = true;
  p.exec_from_writable = false;
  p.read_only_root = true;
  p.no_setuid = true;
  p.noexec_writable = true;
  // What the workload did, not what it read: every refusal, exec, connect
  // and file change, without a record per read-only open or stat, which
  // then stay on the kernel's fast path (docs/policy.md, "agent").
  p.audit = AuditLevel::kActions;
  // What an unattended sandbox gets when its config sets no limit of its
  // own (docs/policy.md, "agent"): room for a language runtime and a data
  // task, not for a fork bomb or a host-sized heap.
  p.default_memory_bytes = std::uint64_t{2} << 30;
  p.default_pids = 1024;
  p.default_cpu_millis = 2000;
  p.default_nofile = 4096;
  p.default_scratch_bytes = std::uint64_t{512} << 20;
  return p;
}

// Observe only: never denies anything, mediates and audits every file and
// network call. Unlike "default", this stays deny-nothing even if "default"
// is tightened later.
Policy AuditOnlyPolicy() {
  Policy p;
  p.name = "audit-only";
  p.audit = AuditLevel::kAll;
  p.observe = true;
  return p;
}

constexpr std::string_view kNames[] = {"default", "agent", "audit-only"};

}  // namespace

std::span<const std::string_view> BuiltinPolicyNames() { return kNames; }

Result<Policy> BuiltinPolicy(std::string_view name) {
  if (name == "default") return DefaultPolicy();
  if (name == "agent") return AgentPolicy();
  if (name == "audit-only") return AuditOnlyPolicy();
  std::string known;
  for (std::string_view n : kNames) known += StrCat(known.empty() ? "" : ", ", n);
  return Fail(StrCat("unknown policy profile ", Quote(name), "; known profiles: ", known));
}

}  // namespace vigil::config
