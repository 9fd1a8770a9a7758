// The policy compiler (docs/design.md): one function from what create
// knows — the policy chosen for a container, its config, the sentry's
// platform and the host's facts — to the CompiledPolicy that puts each rule
// at the cheapest layer that enforces it exactly: mounts in the config
// (masks, a read-only root, scratch tmpfs, noexec), Landlock rulesets, the
// sentry's filter, and the sentry's own decisions. Create compiles once and
// records the result; exec and the supervisor read it.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "config/oci/process.h"
#include "config/oci/spec.h"
#include "config/policy/policy.h"
#include "runtime/policy/compiled_policy.h"
#include "sentry/core/platform.h"
#include "sentry/table/syscall_table.h"

namespace vigil::runtime {

// What the compiler asks of the host.
struct HostFacts {
  // The kernel's Landlock ABI (0: none); asked only when a layer would use
  // it, so that a host without Landlock is told so only where it matters.
  int (*landlock_abi)() = nullptr;
  // Whether the network namespace a config names by path is the host's.
  bool (*is_hosts_network)(const std::string& path) = nullptr;
};

// Where a sandbox's resolver listens in its network namespace:
// systemd-resolved's stub address, which a container's own namespace
// leaves free (the supervisor takes another of 127.0.0.0/8 where a pod's
// other container has it).
inline constexpr std::string_view kSandboxResolverAddress = "127.0.0.53";

// Whether a resolver of the sandbox's own answers its names
// (docs/policy.md, "Egress by name"): the policy allows names under a
// default deny, and the container has a network namespace other than the
// host's, on whose loopback the resolver listens. Elsewhere create
// resolves the names once (lifecycle/egress_hosts.h).
bool ResolverAnswersNames(const config::Policy& policy, const config::Spec& spec,
                          const HostFacts& host);

// The host this process runs on (runtime::LandlockAbi).
HostFacts ThisHost();

// Compiles `chosen` (its DNS names already resolved) for the container of
// `spec` on `platform`, and shapes `spec` as the policy asks
// (config::ApplyPolicyToSpec): the config create then saves.
CompiledPolicy CompilePolicy(config::Policy chosen, config::Spec& spec, sentry::Platform platform,
                             const HostFacts& host);

// The same for a container whose state holds no compiled policy (created
// by a vigil before the compiler): `chosen` as recorded then, `spec` the
// config saved then, which the policy has shaped already.
CompiledPolicy CompileRecorded(config::Policy chosen, const config::Spec& spec,
                               sentry::Platform platform, const HostFacts& host);

// What the sentry's filter mediates for `process` (the init, or one exec
// adds) under `compiled`, and the process made as the platform needs it
// (no_new_privileges where it fixes credentials).
sentry::FilterOptions LaunchFilterFor(const CompiledPolicy& compiled, config::Process& process);

}  // namespace vigil::runtime
