// Cross-field rules for config.json "linux".
#include <algorithm>
#include <limits>
#include <set>

#include "base/strings.h"
#include "config/oci/codec.h"
#include "config/oci/sysctl.h"
#include "config/oci/validate_internal.h"

namespace vigil::config {
namespace {

// The kernel accepts at most this many lines in uid_map/gid_map (since 4.15).
constexpr std::size_t kMaxIdMappings = 340;

bool HasNamespace(const Linux& linux_spec, NamespaceType type) {
  return linux_spec.FindNamespace(type) != nullptr;
}

Result<void> CheckNamespaces(const Linux& linux_spec, const JsonPath& path) {
  std::set<NamespaceType> seen;
  for (std::size_t i = 0; i < linux_spec.namespaces.size(); ++i) {
    const Namespace& ns = linux_spec.namespaces[i];
    if (!seen.insert(ns.type).second) {
      return FailAt(path.Index(i).Key("type"),
                    StrCat("duplicate namespace type ", Quote(NameOf(ns.type))));
    }
    if (!ns.path.empty()) RETURN_IF_ERROR(CheckAbsolute(path.Index(i).Key("path"), ns.path));
  }
  return {};
}

// Ranges must be non-empty, must not wrap past 2^32, and must not overlap on
// either side, or the kernel refuses the whole map with a bare EINVAL.
Result<void> CheckIdMappings(const std::vector<IdMapping>& mappings, const JsonPath& path) {
  if (mappings.size() > kMaxIdMappings) {
    return FailAt(path, StrCat("the kernel accepts at most ", kMaxIdMappings, " mappings, got ",
                               mappings.size()));
  }
  auto overlaps = [](std::uint64_t a, std::uint64_t a_size, std::uint64_t b, std::uint64_t b_size) {
    return a < b + b_size && b < a + a_size;
  };
  constexpr std::uint64_t kIdSpace = std::uint64_t{1} << 32;
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const IdMapping& m = mappings[i];
    if (m.size == 0) return FailAt(path.Index(i).Key("size"), "must be positive");
    if (m.container_id + std::uint64_t{m.size} > kIdSpace ||
        m.host_id + std::uint64_t{m.size} > kIdSpace) {
      return FailAt(path.Index(i), "range runs past the largest id 4294967295");
    }
    for (std::size_t j = 0; j < i; ++j) {
      const IdMapping& other = mappings[j];
      if (overlaps(m.container_id, m.size, other.container_id, other.size) ||
          overlaps(m.host_id, m.size, other.host_id, other.size)) {
        return FailAt(path.Index(i), StrCat("range overlaps entry [", j, "]"));
      }
    }
  }
  return {};
}

Result<void> CheckUserNamespace(const Linux& linux_spec, const JsonPath& path) {
  const Namespace* user = linux_spec.FindNamespace(NamespaceType::kUser);
  bool has_mappings = !linux_spec.uid_mappings.empty() || !linux_spec.gid_mappings.empty();
  if (user == nullptr && has_mappings) {
    return FailAt(path.Key(linux_spec.uid_mappings.empty() ? "gidMappings" : "uidMappings"),
                  "id mappings need a user namespace (add {\"type\": \"user\"} to "
                  "linux.namespaces)");
  }
  if (user != nullptr && user->path.empty()) {
    if (linux_spec.uid_mappings.empty()) {
      return FailAt(path.Key("uidMappings"), "a new user namespace needs uid mappings");
    }
    if (linux_spec.gid_mappings.empty()) {
      return FailAt(path.Key("gidMappings"), "a new user namespace needs gid mappings");
    }
  }
  RETURN_IF_ERROR(CheckIdMappings(linux_spec.uid_mappings, path.Key("uidMappings")));
  return CheckIdMappings(linux_spec.gid_mappings, path.Key("gidMappings"));
}

// Only sysctls that belong to a namespace the container owns may be set;
// anything else would change the host (the same rule runc applies).
Result<void> CheckSysctls(const Linux& linux_spec, const JsonPath& path) {
  static constexpr std::string_view kIpcSysctls[] = {
      "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem",
      "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
  };
  for (const auto& [name, value] : linux_spec.sysctl) {
    if (!SysctlRelativePath(name)) {
      return FailAt(path.Key(name), "not a sysctl name (an empty, \".\" or \"..\" component)");
    }
    const std::string key = DottedSysctl(name);
    NamespaceType needed;
    if (key.starts_with("net.")) {
      needed = NamespaceType::kNetwork;
    } else if (key.starts_with("fs.mqueue.") ||
               std::find(std::begin(kIpcSysctls), std::end(kIpcSysctls), key) !=
                   std::end(kIpcSysctls)) {
      needed = NamespaceType::kIpc;
    } else if (key == "kernel.hostname" || key == "kernel.domainname") {
      needed = NamespaceType::kUts;
    } else {
      return FailAt(path.Key(name), "not namespaced: setting it would change the host");
    }
    if (!HasNamespace(linux_spec, needed)) {
      return FailAt(path.Key(name),
                    StrCat("needs a ", Quote(NameOf(needed)), " namespace in linux.namespaces"));
    }
  }
  return {};
}

Result<void> CheckTimeOffsets(const Linux& linux_spec, const JsonPath& path) {
  if (linux_spec.time_offsets.empty()) return {};
  const Namespace* time = linux_spec.FindNamespace(NamespaceType::kTime);
  if (time == nullptr || !time->path.empty()) {
    return FailAt(path, "time offsets need a new time namespace in linux.namespaces");
  }
  for (const auto& [clock, offset] : linux_spec.time_offsets) {
    if (clock != "monotonic" && clock != "boottime") {
      return FailAt(path.Key(clock), "unknown clock; expected \"monotonic\" or \"boottime\"");
    }
    if (offset.nanosecs >= 1'000'000'000) {
      return FailAt(path.Key(clock).Key("nanosecs"), "must be below 1000000000");
    }
  }
  return {};
}

Result<void> CheckDevices(const std::vector<Device>& devices, const JsonPath& path) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Device& d = devices[i];
    RETURN_IF_ERROR(CheckAbsolute(path.Index(i).Key("path"), d.path));
    if (d.file_mode && *d.file_mode > 07777) {
      return FailAt(path.Index(i).Key("fileMode"), "holds bits beyond the permission bits 07777");
    }
  }
  return {};
}

Result<void> CheckResources(const Resources& r, const JsonPath& path) {
  // devices[].access: letters other than r, w and m are ignored where the
  // rules are written (runtime/cgroup/devices.cc), as runc ignores them;
  // configs in use carry such letters ("rwa").
  if (r.memory && r.memory->limit && r.memory->swap && *r.memory->swap > 0 &&
      *r.memory->limit > 0 && *r.memory->swap < *r.memory->limit) {
    return FailAt(path.Key("memory").Key("swap"),
                  StrCat("memory+swap limit ", *r.memory->swap, " is below the memory limit ",
                         *r.memory->limit));
  }
  // Older Docker clients send -1 as an unsigned 64-bit number for "unset".
  if (r.memory && r.memory->swappiness && *r.memory->swappiness > 100 &&
      *r.memory->swappiness != std::numeric_limits<std::uint64_t>::max()) {
    return FailAt(path.Key("memory").Key("swappiness"), "must be in [0, 100]");
  }
  if (r.cpu) {
    RETURN_IF_ERROR(CheckCpuList(path.Key("cpu").Key("cpus"), r.cpu->cpus));
    RETURN_IF_ERROR(CheckCpuList(path.Key("cpu").Key("mems"), r.cpu->mems));
  }
  // Docker always sends a weight; 0 means "unset", as runc reads it.
  if (r.block_io && r.block_io->weight && *r.block_io->weight != 0 &&
      (*r.block_io->weight < 10 || *r.block_io->weight > 1000)) {
    return FailAt(path.Key("blockIO").Key("weight"), "must be in [10, 1000]");
  }
  return {};
}

Result<void> CheckSeccomp(const Seccomp& s, const JsonPath& path) {
  auto takes_errno = [](SeccompAction a) {
    return a == SeccompAction::kErrno || a == SeccompAction::kTrace;
  };
  if (s.default_action == SeccompAction::kNotify) {
    return FailAt(path.Key("defaultAction"),
                  "SCMP_ACT_NOTIFY cannot be the default action (the runtime's own syscalls "
                  "would wait on the listener)");
  }
  if (s.default_errno_ret && !takes_errno(s.default_action)) {
    return FailAt(path.Key("defaultErrnoRet"),
                  "only meaningful with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
  }
  if (!s.listener_path.empty()) {
    RETURN_IF_ERROR(CheckAbsolute(path.Key("listenerPath"), s.listener_path));
  }
  for (std::size_t i = 0; i < s.syscalls.size(); ++i) {
    const SeccompSyscall& rule = s.syscalls[i];
    JsonPath at = path.Key("syscalls").Index(i);
    if (rule.names.empty()) return FailAt(at.Key("names"), "must hold at least one name");
    for (std::size_t n = 0; n < rule.names.size(); ++n) {
      if (rule.names[n].empty()) return FailAt(at.Key("names").Index(n), "must not be empty");
    }
    if (rule.errno_ret && !takes_errno(rule.action)) {
      return FailAt(at.Key("errnoRet"), "only meaningful with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
    }
    if (rule.action == SeccompAction::kNotify && s.listener_path.empty()) {
      return FailAt(at.Key("action"), "SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath");
    }
    if (rule.action == SeccompAction::kNotify) {
      // Between loading the filter and the agent holding its listener, the
      // container's process still writes (its error and debug lines) and
      // sends (the listener's number, to the runtime): notified, either
      // would wait for an agent that can never answer. runc refuses write
      // in the same words.
      for (std::size_t n = 0; n < rule.names.size(); ++n) {
        if (rule.names[n] == "write" || rule.names[n] == "sendto") {
          return FailAt(at.Key("names").Index(n),
                        StrCat("SCMP_ACT_NOTIFY cannot be used for the ", rule.names[n],
                               " syscall: the container's process uses it before the agent "
                               "holds the listener"));
        }
      }
    }
    for (std::size_t a = 0; a < rule.args.size(); ++a) {
      if (rule.args[a].index > 5) {
        return FailAt(
            at.Key("args").Index(a).Key("index"),
            StrCat("syscalls take at most 6 arguments (index 0-5), got ", rule.args[a].index));
      }
    }
  }
  return {};
}

}  // namespace

Result<void> ValidateLinux(const Linux& linux_spec, const JsonPath& path) {
  RETURN_IF_ERROR(CheckNamespaces(linux_spec, path.Key("namespaces")));
  RETURN_IF_ERROR(CheckUserNamespace(linux_spec, path));
  RETURN_IF_ERROR(CheckSysctls(linux_spec, path.Key("sysctl")));
  RETURN_IF_ERROR(CheckTimeOffsets(linux_spec, path.Key("timeOffsets")));
  RETURN_IF_ERROR(CheckDevices(linux_spec.devices, path.Key("devices")));
  if (linux_spec.resources)
    RETURN_IF_ERROR(CheckResources(*linux_spec.resources, path.Key("resources")));
  if (linux_spec.seccomp) RETURN_IF_ERROR(CheckSeccomp(*linux_spec.seccomp, path.Key("seccomp")));
  for (std::size_t i = 0; i < linux_spec.masked_paths.size(); ++i) {
    RETURN_IF_ERROR(CheckAbsolute(path.Key("maskedPaths").Index(i), linux_spec.masked_paths[i]));
  }
  for (std::size_t i = 0; i < linux_spec.readonly_paths.size(); ++i) {
    RETURN_IF_ERROR(
        CheckAbsolute(path.Key("readonlyPaths").Index(i), linux_spec.readonly_paths[i]));
  }
  return {};
}

}  // namespace vigil::config
