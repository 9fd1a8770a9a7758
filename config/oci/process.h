// runtime-spec config.json "process": what the container runs, and as whom.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vigil::config {

struct ConsoleSize {
  std::uint32_t height = 0;
  std::uint32_t width = 0;
  bool operator==(const ConsoleSize&) const = default;
};

struct User {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::optional<std::uint32_t> umask;  // absent: keep the runtime's (0022)
  std::vector<std::uint32_t> additional_gids;
  std::string username;  // Windows only; kept for the round trip
  bool operator==(const User&) const = default;
};

// Capability names (CAP_*) per set. An absent `capabilities` object and an
// empty set mean different things: absent leaves the sets as inherited.
struct Capabilities {
  std::vector<std::string> bounding;
  std::vector<std::string> effective;
  std::vector<std::string> inheritable;
  std::vector<std::string> permitted;
  std::vector<std::string> ambient;
  bool operator==(const Capabilities&) const = default;
};

struct Rlimit {
  std::string type;  // RLIMIT_*
  std::uint64_t hard = 0;
  std::uint64_t soft = 0;
  bool operator==(const Rlimit&) const = default;
};

// sched_setattr(2) parameters.
struct Scheduler {
  std::string policy;  // SCHED_*
  std::int32_t nice = 0;
  std::int32_t priority = 0;
  std::vector<std::string> flags;  // SCHED_FLAG_*
  std::uint64_t runtime = 0;
  std::uint64_t deadline = 0;
  std::uint64_t period = 0;
  bool operator==(const Scheduler&) const = default;
};

struct IoPriority {
  std::string io_class;  // IOPRIO_CLASS_*; JSON "class"
  std::int32_t priority = 0;
  bool operator==(const IoPriority&) const = default;
};

// CPU lists ("0-3,7") for `exec`: before and after joining the cgroup.
struct ExecCpuAffinity {
  std::string initial;
  std::string final;
  bool operator==(const ExecCpuAffinity&) const = default;
};

struct Process {
  bool terminal = false;
  std::optional<ConsoleSize> console_size;
  User user;
  std::vector<std::string> args;
  std::string command_line;  // Windows only; kept for the round trip
  std::vector<std::string> env;
  std::string cwd;
  std::optional<Capabilities> capabilities;
  std::vector<Rlimit> rlimits;
  bool no_new_privileges = false;
  std::string apparmor_profile;
  std::string selinux_label;
  std::optional<std::int32_t> oom_score_adj;
  std::optional<Scheduler> scheduler;
  std::optional<IoPriority> io_priority;
  std::optional<ExecCpuAffinity> exec_cpu_affinity;
  bool operator==(const Process&) const = default;
};

}  // namespace vigil::config
