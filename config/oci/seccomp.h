// runtime-spec config.json "linux.seccomp": the workload's syscall filter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/oci/enums.h"

namespace vigil::config {

struct SeccompArg {
  std::uint32_t index = 0;  // 0..5
  std::uint64_t value = 0;
  std::uint64_t value_two = 0;
  SeccompOperator op = SeccompOperator::kEqual;
  bool operator==(const SeccompArg&) const = default;
};

struct SeccompSyscall {
  std::vector<std::string> names;
  SeccompAction action = SeccompAction::kAllow;
  std::optional<std::uint32_t> errno_ret;
  std::vector<SeccompArg> args;
  bool operator==(const SeccompSyscall&) const = default;
};

struct Seccomp {
  SeccompAction default_action = SeccompAction::kAllow;
  std::optional<std::uint32_t> default_errno_ret;
  std::vector<std::string> architectures;  // SCMP_ARCH_*
  std::vector<std::string> flags;          // SECCOMP_FILTER_FLAG_*
  std::string listener_path;
  std::string listener_metadata;
  std::vector<SeccompSyscall> syscalls;
  bool operator==(const Seccomp&) const = default;
};

// The syscalls the profile's rules hand to a seccomp agent
// (SCMP_ACT_NOTIFY), in rule order: the filter then makes a listener,
// which goes to listener_path. Empty when no rule does.
inline std::vector<std::string> SyscallsForAgent(const Seccomp& profile) {
  std::vector<std::string> names;
  for (const SeccompSyscall& rule : profile.syscalls) {
    if (rule.action == SeccompAction::kNotify) {
      names.insert(names.end(), rule.names.begin(), rule.names.end());
    }
  }
  return names;
}

}  // namespace vigil::config
