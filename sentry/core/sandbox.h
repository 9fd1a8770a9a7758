// What handlers know about the container they serve. The supervisor fills
// it in; tests substitute their own sources.
#pragma once

#include <sys/types.h>
#include <sys/utsname.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "config/policy/policy.h"
#include "sentry/names/learned_names.h"

namespace vigil::sentry {

struct ContainerMemory {
  std::optional<std::uint64_t> limit;  // bytes; none when unlimited
  std::uint64_t usage = 0;             // bytes charged to the container now
  std::uint64_t cache = 0;             // of which page cache (reclaimable)
};

// The resolver that answers a sandbox's names (sentry/names/resolver.h,
// docs/policy.md "Egress by name"): the one nameserver its workload reaches.
struct NameService {
  // Where it listens: port 53 of this address is the sandbox's DNS, and
  // no other address's port 53 is reachable.
  config::Cidr address;
  // The nameservers it asks, which the workload may not reach itself
  // (on any port: a Docker network's embedded DNS listens on others).
  std::vector<config::Cidr> upstreams;
  // What it learned: a connect to an address an allowed name answered
  // with, on a port that name's entry holds, is allowed for as long as the
  // answer holds.
  const names::LearnedNames* learned = nullptr;
};

struct Sandbox {
  std::string container_id;
  // The policy the handlers enforce; never null once the sentry serves.
  const config::Policy* policy = nullptr;
  // The container's network namespace is not the host's (a new one, or a
  // pod's), so its loopback (127.0.0.0/8, ::1) is its own and always
  // reachable; in the host's, loopback is judged as any other address
  // (supervisor::SharesHostNetwork decides).
  bool own_network = false;
  // The sandbox's resolver, where one answers its names; none otherwise.
  std::optional<NameService> names;
  // The container has a user namespace: its capabilities count for nothing
  // on the host's files.
  bool user_namespace = false;
  // Whether the container's device cgroup grants a device node (S_IFCHR or
  // S_IFBLK, and its number) every access in `access` (letters of "rwm"):
  // the sentry opens on the workload's behalf from outside that cgroup.
  std::function<bool(mode_t type, dev_t device, std::string_view access)> device_allowed =
      [](mode_t, dev_t, std::string_view) { return false; };
  // The workload's ids, groups and capabilities may not change: the setuid
  // family and capset are refused (CredentialsFixed in
  // sentry/table/sentry_filter.h).
  bool credentials_fixed = false;
  // Directories beneath which a Landlock layer of every process of the
  // container holds the policy's writes exactly (the compiled policy's):
  // an open for writing the sentry decided there may be left to the kernel.
  std::vector<std::string> kernel_write_trees;
  // The init may run in an execution domain other than PER_LINUX (the
  // config sets one, or the runtime itself runs under one).
  bool personality_may_differ = false;
  // uname(2)'s release as the workload sees it; empty: the host's.
  std::string kernel_release;
  // The CPUs its CFS quota amounts to, rounded up; 0 when it has none.
  unsigned int cpu_limit = 0;
  // When the container started, in seconds since the host booted.
  std::uint64_t started_after_boot = 0;
  // The container's UTS names (hostname and domainname live: the workload
  // may change them), read in its UTS namespace.
  std::function<Result<utsname>()> uts_names;
  std::function<Result<ContainerMemory>()> memory;
  std::function<Result<std::uint32_t>()> process_count;
};

}  // namespace vigil::sentry
