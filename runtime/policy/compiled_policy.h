// A container's policy as the policy compiler made it (policy_compiler.h,
// docs/design.md "The policy compiler"): the rules the sentry enforces and
// every other layer that enforces them, decided once at create. Recorded in
// the container's state (state.json "compiled"), and read as it is by exec
// and the supervisor: nothing recomputes it.
#pragma once

#include <string>
#include <vector>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"
#include "config/oci/json_path.h"
#include "config/policy/landlock_rules.h"
#include "config/policy/policy.h"
#include "sentry/table/syscall_table.h"

namespace vigil::runtime {

struct CompiledPolicy {
  // The rules the sentry enforces: the policy as chosen (--policy, the
  // annotation), its DNS names resolved into addresses, then the rules the
  // config implies (the working directory's and writable bind mounts'
  // write rules, config::AddImpliedRules).
  config::Policy rules;
  // What the sentry's filter mediates for every process; one that may hold
  // CAP_NET_ADMIN also gets its network calls mediated (LaunchFilterFor).
  sentry::FilterOptions filter;
  // The platform keeps credentials fixed (sentry::CredentialsFixed): each
  // process runs with no_new_privileges, whatever its config says.
  bool credentials_fixed = false;
  // The host's Landlock ABI the layers were made for (0: none).
  int landlock_abi = 0;
  // The Landlock rulesets each process applies to itself, in order: the
  // policy's bounds, then the layer that holds writes beneath
  // kernel_write_trees exactly. Empty where Landlock adds nothing.
  std::vector<config::LandlockRuleset> landlock;
  // Where the kernel holds every write exactly, so that the sentry may
  // leave a write it decided there to the kernel.
  std::vector<std::string> kernel_write_trees;
  // Where the sandbox's own resolver listens (ResolverAnswersNames in
  // policy_compiler.h): its names are answered there and connects follow
  // them; empty where create resolved the names once.
  std::string name_resolver;
  bool operator==(const CompiledPolicy&) const = default;
};

// The JSON form, as state.json and `vigil policy show --compiled` hold it.
Result<void> Decode(json::Value v, const config::JsonPath& path, CompiledPolicy& out);
void Encode(json::Writer& w, const CompiledPolicy& in);

}  // namespace vigil::runtime
