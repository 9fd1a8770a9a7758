// vigil policy: the sentry's policies as vigil reads them. `show` prints a
// built-in profile, a policy file or inline JSON in its canonical form —
// every property, defaults written out — which is also what `vigil state`
// shows of a container's policy in force; `show --compiled` what the policy
// compiler makes of it for a bundle on this host (which layer enforces
// what); `list` names the built-in ones.
#include <algorithm>
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"
#include "config/oci/config.h"
#include "config/oci/default_spec.h"
#include "config/policy/policy.h"
#include "config/policy/policy_codec.h"
#include "runtime/policy/policy_compiler.h"
#include "runtime/policy/rule_layers.h"

namespace vigil::cli {
namespace {

void WriteStrings(json::Writer& w, std::string_view key, const std::vector<std::string>& values) {
  w.Key(key);
  w.BeginArray();
  for (const std::string& value : values) w.String(value);
  w.EndArray();
}

// What the compiler did to the config: the kernel's part of the policy
// that lives in mounts and the process, beside the compiled policy itself.
void WriteConfigChanges(json::Writer& w, const config::Spec& before, const config::Spec& after) {
  w.BeginObject();
  w.BoolMember("readOnlyRoot", after.root && after.root->readonly);
  std::vector<std::string> masked;
  const std::vector<std::string> none;
  const auto& had = before.linux_spec ? before.linux_spec->masked_paths : none;
  for (const std::string& path : after.linux_spec ? after.linux_spec->masked_paths : none) {
    if (std::find(had.begin(), had.end(), path) == had.end()) masked.push_back(path);
  }
  WriteStrings(w, "maskedPaths", masked);
  std::vector<std::string> mounts;
  for (const config::Mount& mount : after.mounts) {
    const bool new_mount = std::none_of(before.mounts.begin(), before.mounts.end(),
                                        [&](const config::Mount& m) { return m == mount; });
    if (!new_mount) continue;
    std::string options;
    for (const std::string& option : mount.options) {
      options += (options.empty() ? "" : ",") + option;
    }
    mounts.push_back(StrCat(mount.destination, " (", mount.type, " ", options, ")"));
  }
  WriteStrings(w, "mounts", mounts);
  w.BoolMember("noNewPrivileges", after.process && after.process->no_new_privileges);
  w.EndObject();
}

// show --compiled: `policy` compiled for the bundle's config (or
// `vigil spec`'s) on `platform` and this host.
Result<int> ShowCompiled(const config::Policy& policy, const Invocation& invocation) {
  config::Spec spec = config::DefaultSpec();
  if (std::optional<std::string> bundle = invocation.flags.Value("bundle")) {
    ASSIGN_OR_RETURN(spec, config::LoadBundle(*bundle));
  }
  ASSIGN_OR_RETURN(const sentry::Platform platform,
                   sentry::ParsePlatform("--platform", invocation.global.platform.empty()
                                                           ? "unotify"
                                                           : invocation.global.platform));
  const config::Spec before = spec;
  runtime::CompiledPolicy compiled =
      runtime::CompilePolicy(policy, spec, platform, runtime::ThisHost());
  sentry::FilterOptions init_filter = runtime::LaunchFilterFor(compiled, *spec.process);
  json::Writer w;
  w.BeginObject();
  w.Key("compiled");
  runtime::Encode(w, compiled);
  w.BoolMember("initMediatesNetwork", init_filter.mediate_network);
  w.Key("config");
  WriteConfigChanges(w, before, spec);
  w.Key("fileRules");
  w.BeginArray();
  for (const runtime::RuleLayers& rule : runtime::FileRuleLayers(compiled, spec)) {
    w.BeginObject();
    w.StringMember("rule", rule.rule);
    w.Key("access");
    config::Encode(w, rule.access);
    WriteStrings(w, "by", rule.by);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::printf("%s\n", w.Take().c_str());
  return 0;
}

}  // namespace

const FlagSpec kPolicyFlags[2] = {
    {"compiled", "", false, "",
     "show: what the policy compiler makes of it: each layer that enforces it"},
    {"bundle", "b", true, "DIR",
     "show --compiled: the bundle whose config.json to compile for "
     "(default: vigil spec's config)"},
};

Result<int> RunPolicy(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("want \"show NAME|FILE|JSON\" or \"list\"");
  if (args[0] == "list") {
    if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
    for (std::string_view name : config::BuiltinPolicyNames()) {
      std::printf("%.*s\n", static_cast<int>(name.size()), name.data());
    }
    return 0;
  }
  if (args[0] != "show") {
    return Fail(StrCat("unknown policy command ", Quote(args[0]), ": want show or list"));
  }
  if (args.size() != 2) return Fail("show: want one policy: a profile name, a file or JSON");
  ASSIGN_OR_RETURN(config::Policy policy, config::PolicyFromFlag(args[1], "show"));
  if (invocation.flags.IsSet("compiled")) return ShowCompiled(policy, invocation);
  if (invocation.flags.Value("bundle")) return Fail("--bundle: only with show --compiled");
  std::printf("%s\n", config::DumpPolicy(policy).c_str());
  return 0;
}

}  // namespace vigil::cli
