// "extends": a policy written as additions to a built-in profile rather than
// a copy of it (docs/policy.md, "Extending a profile"). The extension's
// file rules go before the profile's (the first matching rule wins, so the
// extension decides first), its allowed destinations join the profile's,
// and every other property it sets replaces the profile's.
#include "config/policy/policy_extends.h"

#include "base/strings.h"

namespace vigil::config {
namespace {

bool Has(json::Value document, std::string_view section, std::string_view key = "") {
  std::optional<json::Value> value = document.Find(section);
  if (!value || key.empty()) return value.has_value();
  return value->kind() == json::Kind::kObject && value->Find(key).has_value();
}

}  // namespace

Result<Policy> Extend(json::Value document, const Policy& extension) {
  std::optional<json::Value> extends = document.Find("extends");
  if (!extends) return extension;
  ASSIGN_OR_RETURN(Policy policy, BuiltinPolicy(extends->AsString().value_or("")));
  policy.name = Has(document, "name") ? extension.name : StrCat(policy.name, "-extended");
  if (Has(document, "files", "default")) policy.file_default = extension.file_default;
  policy.files.insert(policy.files.begin(), extension.files.begin(), extension.files.end());
  if (Has(document, "network", "egress")) {
    policy.egress_default_deny = extension.egress_default_deny;
  }
  policy.egress.insert(policy.egress.end(), extension.egress.begin(), extension.egress.end());
  if (Has(document, "network", "unix")) policy.unix_sockets = extension.unix_sockets;
  if (Has(document, "network", "unixPaths")) policy.unix_paths = extension.unix_paths;
  if (Has(document, "exec", "allow")) policy.exec_allow = extension.exec_allow;
  if (Has(document, "exec", "fromWritable")) {
    policy.exec_from_writable = extension.exec_from_writable;
  }
  if (Has(document, "readOnlyRoot")) policy.read_only_root = extension.read_only_root;
  if (Has(document, "noSetuid")) policy.no_setuid = extension.no_setuid;
  if (Has(document, "noexecWritable")) policy.noexec_writable = extension.noexec_writable;
  if (Has(document, "audit")) policy.audit = extension.audit;
  if (Has(document, "observe")) policy.observe = extension.observe;
  if (Has(document, "defaultLimits", "memoryBytes")) {
    policy.default_memory_bytes = extension.default_memory_bytes;
  }
  if (Has(document, "defaultLimits", "pids")) policy.default_pids = extension.default_pids;
  if (Has(document, "defaultLimits", "cpuMillis")) {
    policy.default_cpu_millis = extension.default_cpu_millis;
  }
  if (Has(document, "defaultLimits", "nofile")) policy.default_nofile = extension.default_nofile;
  if (Has(document, "defaultLimits", "scratchBytes")) {
    policy.default_scratch_bytes = extension.default_scratch_bytes;
  }
  return policy;
}

}  // namespace vigil::config
