// The OCI runtime-spec 1.2 config.json as plain structs. Parsing and
// validation live in config.h; nothing here knows about JSON.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/oci/linux.h"
#include "config/oci/process.h"

namespace vigil::config {

// The runtime-spec version vigil implements and writes.
inline constexpr std::string_view kOciVersion = "1.2.0";

struct Root {
  std::string path;  // relative paths are resolved against the bundle
  bool readonly = false;
  bool operator==(const Root&) const = default;
};

struct Mount {
  std::string destination;
  std::string type;
  std::string source;
  std::vector<std::string> options;
  std::vector<IdMapping> uid_mappings;
  std::vector<IdMapping> gid_mappings;
  bool operator==(const Mount&) const = default;
};

struct Hook {
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<std::int32_t> timeout;  // seconds; must be > 0
  bool operator==(const Hook&) const = default;
};

struct Hooks {
  std::vector<Hook> prestart;  // deprecated by the spec, still sent by clients
  std::vector<Hook> create_runtime;
  std::vector<Hook> create_container;
  std::vector<Hook> start_container;
  std::vector<Hook> poststart;
  std::vector<Hook> poststop;
  bool operator==(const Hooks&) const = default;
};

struct Spec {
  std::string oci_version;
  std::optional<Root> root;
  std::vector<Mount> mounts;
  std::optional<Process> process;
  std::string hostname;
  std::string domainname;
  std::optional<Hooks> hooks;
  std::map<std::string, std::string> annotations;
  // "linux"; not named so because GNU dialects predefine `linux` as a macro.
  std::optional<Linux> linux_spec;
  bool operator==(const Spec&) const = default;

  // The value of the annotation `name`, or null when there is none.
  const std::string* FindAnnotation(std::string_view name) const {
    auto it = annotations.find(std::string(name));
    return it == annotations.end() ? nullptr : &it->second;
  }

  // SyscallsForAgent of linux.seccomp; empty without a profile.
  std::vector<std::string> SyscallsForAgent() const {
    if (!linux_spec || !linux_spec->seccomp) return {};
    return config::SyscallsForAgent(*linux_spec->seccomp);
  }
};

}  // namespace vigil::config
