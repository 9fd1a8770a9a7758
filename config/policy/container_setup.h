// What a policy asks of the container's own setup, enforced by the kernel
// before the workload runs rather than by the sentry per syscall: a
// read-only root with writable scratch directories, nothing executable
// from what is writable, no privilege from setuid binaries.
#pragma once

#include <string_view>

#include "config/oci/spec.h"
#include "config/policy/policy.h"

namespace vigil::config {

// The source of each scratch tmpfs ApplyPolicyToSpec adds: how the runtime
// (runtime/container/engine_scratch.h) and mountinfo tell them apart.
inline constexpr std::string_view kScratchSource = "vigil-scratch";

// Rewrites `spec` (after its bundle was resolved: root.path absolute):
// - readOnlyRoot: root.readonly; every directory a write rule grants as a
//   whole ("/tmp/**") that is not already a mount gets a tmpfs, and the
//   process's cwd (when not "/") stays writable: a bind of itself if the
//   image has it, a tmpfs if not.
// - noexecWritable: "noexec" on every writable tmpfs and bind mount.
// - noSetuid: process.noNewPrivileges.
// - "masked" rules: their paths join linux.maskedPaths.
// With readOnlyRoot the policy gains a `<cwd>/**` write rule after its
// leading hidden and denied rules, so that the file policy agrees with the
// writable working directory, and so does each writable bind mount of the
// config the policy would not let be written throughout (docs/policy.md).
void ApplyPolicyToSpec(Policy& policy, Spec& spec);

// The rules ApplyPolicyToSpec adds to `policy` (the working directory's,
// with readOnlyRoot, and the writable bind mounts') for a `spec` it shaped: `exec` rebuilds the
// policy the sentry enforces from the one recorded at create and the saved config.
void AddImpliedRules(Policy& policy, const Spec& spec);

}  // namespace vigil::config
