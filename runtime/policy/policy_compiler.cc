#include "runtime/policy/policy_compiler.h"

#include <algorithm>
#include <utility>

#include "config/policy/container_setup.h"
#include "config/policy/landlock_rules.h"
#include "runtime/linux/landlock.h"
#include "runtime/linux/namespaces.h"
#include "sentry/table/network_scope.h"
#include "sentry/table/sentry_filter.h"

namespace vigil::runtime {
namespace {

// The layers beyond the config's mounts, for `rules` over the config
// `spec` the policy has shaped.
CompiledPolicy CompileShaped(config::Policy rules, const config::Spec& spec,
                             sentry::Platform platform, const HostFacts& host) {
  CompiledPolicy compiled;
  compiled.filter = sentry::FilterOptionsFor(rules, platform);
  compiled.filter.own_pid_namespace =
      spec.linux_spec && runtime::CreatesNamespace(*spec.linux_spec, config::NamespaceType::kPid);
  compiled.credentials_fixed = sentry::CredentialsFixed(rules, platform);
  // Landlock: the policy's bounds, and a layer holding writes exactly
  // beneath the trees that allow it; the kernel is asked only when either
  // has something to handle at the newest ABI.
  const config::LandlockRuleset newest =
      config::LandlockRulesFor(rules, config::kLandlockNewestAbi);
  std::vector<std::string> trees = config::ExactWriteTrees(rules, spec.mounts);
  if (newest.handled != 0 || !trees.empty()) compiled.landlock_abi = host.landlock_abi();
  if (config::LandlockRuleset bounds = config::LandlockRulesFor(rules, compiled.landlock_abi);
      bounds.handled != 0) {
    compiled.landlock.push_back(std::move(bounds));
  }
  if (config::LandlockRuleset exact = config::ExactWriteRuleset(trees, compiled.landlock_abi);
      exact.handled != 0) {
    compiled.landlock.push_back(std::move(exact));
    compiled.kernel_write_trees = std::move(trees);
  }
  if (ResolverAnswersNames(rules, spec, host)) {
    compiled.name_resolver = std::string(kSandboxResolverAddress);
  }
  compiled.rules = std::move(rules);
  return compiled;
}

}  // namespace

HostFacts ThisHost() {
  return HostFacts{.landlock_abi = LandlockAbi, .is_hosts_network = IsHostsNetworkNamespace};
}

bool ResolverAnswersNames(const config::Policy& policy, const config::Spec& spec,
                          const HostFacts& host) {
  const bool names = std::any_of(policy.egress.begin(), policy.egress.end(),
                                 [](const config::EgressRule& rule) { return !rule.host.empty(); });
  if (!policy.egress_default_deny || !names || !spec.linux_spec) return false;
  const config::Namespace* network =
      spec.linux_spec->FindNamespace(config::NamespaceType::kNetwork);
  if (network == nullptr) return false;  // the host's, as runc runs it
  // A test's host facts that cannot tell take a path for another's.
  return network->path.empty() || host.is_hosts_network == nullptr ||
         !host.is_hosts_network(network->path);
}

CompiledPolicy CompilePolicy(config::Policy chosen, config::Spec& spec, sentry::Platform platform,
                             const HostFacts& host) {
  config::ApplyPolicyToSpec(chosen, spec);
  return CompileShaped(std::move(chosen), spec, platform, host);
}

CompiledPolicy CompileRecorded(config::Policy chosen, const config::Spec& spec,
                               sentry::Platform platform, const HostFacts& host) {
  config::AddImpliedRules(chosen, spec);
  return CompileShaped(std::move(chosen), spec, platform, host);
}

sentry::FilterOptions LaunchFilterFor(const CompiledPolicy& compiled, config::Process& process) {
  if (compiled.credentials_fixed) process.no_new_privileges = true;
  return sentry::WithNetlinkReadOnly(compiled.filter, process);
}

}  // namespace vigil::runtime
