// The policy document's field tables: the single list of its properties, from
// which ParsePolicy's decoding and DumpPolicy's encoding both derive. Keep
// docs/policy.md in step with them.
#include "config/policy/policy_codec.h"

namespace vigil::config {
namespace {

Result<void> DecodeEgressDefault(json::Value v, const JsonPath& path, Policy& out) {
  return DecodeChoice<bool>(v, path, kEgressDefaultChoices, out.egress_default_deny);
}

void EncodeEgressDefault(json::Writer& w, std::string_view key, const Policy& in) {
  w.Key(key);
  EncodeChoice<bool>(w, kEgressDefaultChoices, in.egress_default_deny);
}

// A list of path globs (exec.allow, network.unixPaths), each checked.
template <std::vector<std::string> Policy::*kGlobs>
Result<void> DecodeGlobs(json::Value v, const JsonPath& path, Policy& out) {
  if (v.kind() != json::Kind::kArray) return Expected(path, "array", v);
  (out.*kGlobs).assign(v.size(), "");
  for (std::size_t i = 0; i < v.size(); ++i) {
    RETURN_IF_ERROR(DecodeGlob(v.Element(i), path.Index(i), (out.*kGlobs)[i]));
  }
  return {};
}

template <std::vector<std::string> Policy::*kGlobs>
void EncodeGlobs(json::Writer& w, std::string_view key, const Policy& in) {
  w.Key(key);
  Encode(w, in.*kGlobs);
}

// "extends": a built-in profile's name, checked here; ParsePolicy composes
// the policy onto that profile (policy_extends.cc). Never written: a dumped
// policy is the composed one.
Result<void> DecodeExtends(json::Value v, const JsonPath& path, Policy&) {
  std::optional<std::string_view> name = v.AsString();
  if (!name) return Expected(path, "a built-in profile's name", v);
  if (Result<Policy> base = BuiltinPolicy(*name); !base) return FailAt(path, base.error().message);
  return {};
}

void EncodeNothing(json::Writer&, std::string_view, const Policy&) {}

// "files": {...}
constexpr Field<Policy> kFilesFields[] = {
    Prop<&Policy::file_default>("default"),
    Prop<&Policy::files>("rules"),
};

// "network": {...}
constexpr Field<Policy> kNetworkFields[] = {
    {"egress", DecodeEgressDefault, EncodeEgressDefault},
    Prop<&Policy::egress>("allow"),
    Prop<&Policy::unix_sockets>("unix"),
    {"unixPaths", DecodeGlobs<&Policy::unix_paths>, EncodeGlobs<&Policy::unix_paths>},
};

// "exec": {...}
constexpr Field<Policy> kExecFields[] = {
    {"allow", DecodeGlobs<&Policy::exec_allow>, EncodeGlobs<&Policy::exec_allow>},
    Prop<&Policy::exec_from_writable>("fromWritable"),
};

// "defaultLimits": {...}
constexpr Field<Policy> kDefaultLimitsFields[] = {
    Prop<&Policy::default_memory_bytes>("memoryBytes"),   Prop<&Policy::default_pids>("pids"),
    Prop<&Policy::default_cpu_millis>("cpuMillis"),       Prop<&Policy::default_nofile>("nofile"),
    Prop<&Policy::default_scratch_bytes>("scratchBytes"),
};

constexpr Field<Policy> kPolicyFields[] = {
    {"extends", DecodeExtends, EncodeNothing},
    Prop<&Policy::name>("name"),
    Section<kFilesFields>("files"),
    Section<kNetworkFields>("network"),
    Section<kExecFields>("exec"),
    Prop<&Policy::read_only_root>("readOnlyRoot"),
    Prop<&Policy::no_setuid>("noSetuid"),
    Prop<&Policy::noexec_writable>("noexecWritable"),
    Prop<&Policy::audit>("audit"),
    Prop<&Policy::observe>("observe"),
    Section<kDefaultLimitsFields>("defaultLimits"),
};

}  // namespace

std::span<const Field<Policy>> PolicyFields() { return kPolicyFields; }

}  // namespace vigil::config
