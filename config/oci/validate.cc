#include "config/oci/validate.h"

#include <charconv>
#include <set>

#include "base/strings.h"
#include "config/oci/codec.h"
#include "config/oci/validate_internal.h"

namespace vigil::config {
namespace {

// "1.0.0", "1.2.0", "1.0.2-dev": vigil reads every 1.x document.
Result<void> CheckOciVersion(const JsonPath& path, std::string_view version) {
  unsigned major = 0;
  auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || end == version.data() + version.size() || *end != '.' || major != 1) {
    return FailAt(path, StrCat("unsupported version ", Quote(version), "; vigil implements ",
                               kOciVersion, " and reads any 1.x"));
  }
  return {};
}

Result<void> CheckRlimits(const JsonPath& path, const std::vector<Rlimit>& rlimits) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < rlimits.size(); ++i) {
    const Rlimit& r = rlimits[i];
    if (!seen.insert(r.type).second) {
      return FailAt(path.Index(i).Key("type"), StrCat("duplicate rlimit ", r.type));
    }
    if (r.soft > r.hard) {
      return FailAt(path.Index(i), StrCat("rlimit ", r.type, ": soft limit ", r.soft,
                                          " exceeds hard limit ", r.hard));
    }
  }
  return {};
}

Result<void> CheckScheduler(const JsonPath& path, const Scheduler& s) {
  if (s.nice < -20 || s.nice > 19) {
    return FailAt(path.Key("nice"), StrCat("must be in [-20, 19], got ", s.nice));
  }
  bool realtime = s.policy == "SCHED_FIFO" || s.policy == "SCHED_RR";
  if (realtime && (s.priority < 1 || s.priority > 99)) {
    return FailAt(path.Key("priority"),
                  StrCat("must be in [1, 99] for ", s.policy, ", got ", s.priority));
  }
  if (!realtime && s.priority != 0) {
    return FailAt(path.Key("priority"), StrCat("must be 0 for ", s.policy));
  }
  if (s.policy == "SCHED_DEADLINE" &&
      (s.runtime == 0 || s.runtime > s.deadline || (s.period != 0 && s.deadline > s.period))) {
    return FailAt(path, "SCHED_DEADLINE needs 0 < runtime <= deadline <= period");
  }
  return {};
}

Result<void> CheckMounts(const std::vector<Mount>& mounts, const JsonPath& path) {
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const Mount& m = mounts[i];
    bool bind = m.type == "bind";
    for (const std::string& option : m.options) bind |= option == "bind" || option == "rbind";
    if (bind && m.source.empty()) {
      return FailAt(path.Index(i).Key("source"), "a bind mount needs a source");
    }
    if (m.uid_mappings.empty() != m.gid_mappings.empty()) {
      return FailAt(path.Index(i), "an idmapped mount needs both uidMappings and gidMappings");
    }
  }
  return {};
}

Result<void> CheckHooks(const Hooks& hooks, const JsonPath& path) {
  const std::pair<std::string_view, const std::vector<Hook>*> kinds[] = {
      {"prestart", &hooks.prestart},
      {"createRuntime", &hooks.create_runtime},
      {"createContainer", &hooks.create_container},
      {"startContainer", &hooks.start_container},
      {"poststart", &hooks.poststart},
      {"poststop", &hooks.poststop},
  };
  for (const auto& [kind, list] : kinds) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Hook& hook = (*list)[i];
      JsonPath at = path.Key(kind).Index(i);
      RETURN_IF_ERROR(CheckAbsolute(at.Key("path"), hook.path));
      if (hook.timeout && *hook.timeout <= 0) {
        return FailAt(at.Key("timeout"), StrCat("must be positive, got ", *hook.timeout));
      }
    }
  }
  return {};
}

Result<void> CheckUtsNames(const Spec& spec) {
  const Namespace* uts =
      spec.linux_spec ? spec.linux_spec->FindNamespace(NamespaceType::kUts) : nullptr;
  if (uts != nullptr) return {};
  if (!spec.hostname.empty()) {
    return FailAt(JsonPath().Key("hostname"),
                  "setting a hostname needs a UTS namespace (add {\"type\": \"uts\"} to "
                  "linux.namespaces)");
  }
  if (!spec.domainname.empty()) {
    return FailAt(JsonPath().Key("domainname"),
                  "setting a domainname needs a UTS namespace (add {\"type\": \"uts\"} to "
                  "linux.namespaces)");
  }
  return {};
}

}  // namespace

Result<void> CheckAbsolute(const JsonPath& path, std::string_view value) {
  if (value.starts_with('/')) return {};
  return FailAt(path, StrCat("must be an absolute path, got ", Quote(value)));
}

Result<void> CheckCpuList(const JsonPath& path, std::string_view value) {
  // Ranges "a" or "a-b" with a <= b, separated by commas.
  std::string_view rest = value;
  while (!rest.empty()) {
    std::string_view item = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), item.size() + 1));
    const char* item_end = item.data() + item.size();
    unsigned first = 0, last = 0;
    std::from_chars_result parsed = std::from_chars(item.data(), item_end, first);
    last = first;
    if (parsed.ec == std::errc() && parsed.ptr != item_end && *parsed.ptr == '-') {
      parsed = std::from_chars(parsed.ptr + 1, item_end, last);
    }
    if (parsed.ec != std::errc() || parsed.ptr != item_end || last < first ||
        (rest.empty() && value.ends_with(','))) {
      return FailAt(path, StrCat("invalid CPU list ", Quote(value), "; expected e.g. \"0-3,7\""));
    }
  }
  return {};
}

Result<void> ValidateProcess(const Process& process, const JsonPath& path) {
  if (process.args.empty()) return FailAt(path.Key("args"), "must hold at least one entry");
  RETURN_IF_ERROR(CheckAbsolute(path.Key("cwd"), process.cwd));
  for (std::size_t i = 0; i < process.env.size(); ++i) {
    if (process.env[i].find('=') == std::string::npos) {
      return FailAt(path.Key("env").Index(i),
                    StrCat("expected KEY=VALUE, got ", Quote(process.env[i])));
    }
  }
  if (process.user.umask && *process.user.umask > 0777) {
    return FailAt(path.Key("user").Key("umask"), "must be at most 0777 (511)");
  }
  RETURN_IF_ERROR(CheckRlimits(path.Key("rlimits"), process.rlimits));
  if (process.oom_score_adj && (*process.oom_score_adj < -1000 || *process.oom_score_adj > 1000)) {
    return FailAt(path.Key("oomScoreAdj"),
                  StrCat("must be in [-1000, 1000], got ", *process.oom_score_adj));
  }
  if (process.scheduler) RETURN_IF_ERROR(CheckScheduler(path.Key("scheduler"), *process.scheduler));
  if (process.io_priority &&
      (process.io_priority->priority < 0 || process.io_priority->priority > 7)) {
    return FailAt(path.Key("ioPriority").Key("priority"),
                  StrCat("must be in [0, 7], got ", process.io_priority->priority));
  }
  if (process.exec_cpu_affinity) {
    JsonPath at = path.Key("execCPUAffinity");
    RETURN_IF_ERROR(CheckCpuList(at.Key("initial"), process.exec_cpu_affinity->initial));
    RETURN_IF_ERROR(CheckCpuList(at.Key("final"), process.exec_cpu_affinity->final));
  }
  return {};
}

Result<void> Validate(const Spec& spec) {
  JsonPath top;
  RETURN_IF_ERROR(CheckOciVersion(top.Key("ociVersion"), spec.oci_version));
  if (!spec.root) return FailAt(top.Key("root"), "required property is missing");
  if (spec.root->path.empty()) return FailAt(top.Key("root").Key("path"), "must not be empty");
  if (spec.process) RETURN_IF_ERROR(ValidateProcess(*spec.process, top.Key("process")));
  RETURN_IF_ERROR(CheckMounts(spec.mounts, top.Key("mounts")));
  if (spec.hooks) RETURN_IF_ERROR(CheckHooks(*spec.hooks, top.Key("hooks")));
  RETURN_IF_ERROR(CheckUtsNames(spec));
  if (spec.linux_spec) RETURN_IF_ERROR(ValidateLinux(*spec.linux_spec, top.Key("linux")));
  return {};
}

}  // namespace vigil::config
