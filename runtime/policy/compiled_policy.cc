#include "runtime/policy/compiled_policy.h"

#include "config/oci/codec.h"

// The field tables of the compiled policy's parts. Each Decode/Encode pair
// sits in its type's namespace, where the codec's templates find it.
namespace vigil::config {
namespace {

constexpr Field<LandlockGrant> kGrantFields[] = {
    Required<&LandlockGrant::path>("path"),
    Required<&LandlockGrant::access>("access"),
};

constexpr Field<LandlockRuleset> kRulesetFields[] = {
    Required<&LandlockRuleset::handled>("handled"),
    Bind<&LandlockRuleset::grants>("grants"),
    Bind<&LandlockRuleset::exact>("exact"),
};

}  // namespace

Result<void> Decode(json::Value v, const JsonPath& path, LandlockGrant& out) {
  return DecodeObject<LandlockGrant>(v, path, kGrantFields, out);
}
void Encode(json::Writer& w, const LandlockGrant& in) {
  EncodeObject<LandlockGrant>(w, kGrantFields, in);
}
Result<void> Decode(json::Value v, const JsonPath& path, LandlockRuleset& out) {
  return DecodeObject<LandlockRuleset>(v, path, kRulesetFields, out);
}
void Encode(json::Writer& w, const LandlockRuleset& in) {
  EncodeObject<LandlockRuleset>(w, kRulesetFields, in);
}

}  // namespace vigil::config

namespace vigil::sentry {
namespace {

constexpr config::Field<FilterOptions> kFilterFields[] = {
    config::Bind<&FilterOptions::mediate_files>("mediateFiles"),
    config::Bind<&FilterOptions::mediate_reads>("mediateReads"),
    config::Bind<&FilterOptions::mediate_network>("mediateNetwork"),
    config::Bind<&FilterOptions::traced>("traced"),
    config::Bind<&FilterOptions::own_pid_namespace>("ownPidNamespace"),
};

}  // namespace

Result<void> Decode(json::Value v, const config::JsonPath& path, FilterOptions& out) {
  return config::DecodeObject<FilterOptions>(v, path, kFilterFields, out);
}
void Encode(json::Writer& w, const FilterOptions& in) {
  config::EncodeObject<FilterOptions>(w, kFilterFields, in);
}

}  // namespace vigil::sentry

namespace vigil::runtime {
namespace {

// The rules in the policy document's own form (every property written).
constexpr config::Field<CompiledPolicy> kRules{
    "rules",
    [](json::Value v, const config::JsonPath&, CompiledPolicy& out) -> Result<void> {
      ASSIGN_OR_RETURN(out.rules, config::ParseCompiledRules(v));
      return {};
    },
    [](json::Writer& w, std::string_view key, const CompiledPolicy& in) {
      w.Key(key);
      config::WritePolicy(w, in.rules);
    },
    /*required=*/true,
};

constexpr config::Field<CompiledPolicy> kCompiledFields[] = {
    kRules,
    config::Bind<&CompiledPolicy::filter>("filter"),
    config::Bind<&CompiledPolicy::credentials_fixed>("credentialsFixed"),
    config::Bind<&CompiledPolicy::landlock_abi>("landlockAbi"),
    config::Bind<&CompiledPolicy::landlock>("landlock"),
    config::Bind<&CompiledPolicy::kernel_write_trees>("kernelWriteTrees"),
    config::Bind<&CompiledPolicy::name_resolver>("nameResolver"),
};

}  // namespace

Result<void> Decode(json::Value v, const config::JsonPath& path, CompiledPolicy& out) {
  return config::DecodeObject<CompiledPolicy>(v, path, kCompiledFields, out);
}

void Encode(json::Writer& w, const CompiledPolicy& in) {
  config::EncodeObject<CompiledPolicy>(w, kCompiledFields, in);
}

}  // namespace vigil::runtime
