// ParsePolicy: decoding with the field tables, then the checks that span
// several properties.
#include <algorithm>

#include "base/json/json_reader.h"
#include "base/strings.h"
#include "config/policy/policy.h"
#include "config/policy/policy_codec.h"
#include "config/policy/policy_extends.h"

namespace vigil::config {
namespace {

// Checks what holds of any policy, from a user or recorded by vigil.
Result<void> CheckRules(const Policy& policy) {
  JsonPath root = PolicyRoot();
  // An allow-list under a default-allow policy grants nothing; writing one
  // almost certainly meant "deny everything else".
  if (!policy.egress_default_deny && !policy.egress.empty()) {
    return FailAt(root.Key("network").Key("allow"),
                  "has no effect unless policy.network.egress is \"deny\"");
  }
  if (policy.name.empty()) return FailAt(root.Key("name"), "must not be empty");
  for (std::size_t i = 0; i < policy.files.size(); ++i) {
    const FileRule& rule = policy.files[i];
    if (rule.access == FileAccess::kMasked && !MaskTarget(rule.pattern)) {
      return FailAt(root.Key("files").Key("rules").Index(i).Key("path"),
                    StrCat(Quote(rule.pattern),
                           " cannot be masked: a mask is a mount made at start, so its path "
                           "must be literal (\"/proc/kcore\") or a literal directory's tree "
                           "(\"/proc/acpi/**\"), and not /"));
    }
  }
  return {};
}

// A built-in profile's name vouches for its decisions in audit logs and
// `vigil state`: a policy a user writes may carry it only if it is that
// profile.
Result<void> CheckName(const Policy& policy) {
  JsonPath root = PolicyRoot();
  std::span<const std::string_view> builtins = BuiltinPolicyNames();
  if (std::find(builtins.begin(), builtins.end(), policy.name) != builtins.end()) {
    Result<Policy> builtin = BuiltinPolicy(policy.name);
    if (builtin && *builtin != policy) {
      return FailAt(root.Key("name"),
                    StrCat(Quote(policy.name),
                           " is a built-in profile and this policy differs from it; "
                           "choose another name or remove the property"));
    }
  }
  return {};
}

}  // namespace

Result<Policy> ParsePolicy(std::string_view json) {
  Result<json::Document> doc = json::Document::Parse(json);
  if (!doc) return tl::unexpected(std::move(doc).error().Wrap("policy"));
  Policy decoded;
  RETURN_IF_ERROR(DecodeStrict<Policy>(doc->root(), PolicyRoot(), PolicyFields(), decoded));
  ASSIGN_OR_RETURN(Policy policy, Extend(doc->root(), decoded));
  RETURN_IF_ERROR(CheckRules(policy));
  RETURN_IF_ERROR(CheckName(policy));
  return policy;
}

Result<Policy> ParseCompiledRules(json::Value value) {
  Policy policy;
  RETURN_IF_ERROR(DecodeStrict<Policy>(value, PolicyRoot(), PolicyFields(), policy));
  RETURN_IF_ERROR(CheckRules(policy));
  return policy;
}

}  // namespace vigil::config
