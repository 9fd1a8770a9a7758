// Field tables for the top level of config.json: root, mounts, hooks.
#include "config/oci/codec.h"
#include "config/oci/sections.h"

namespace vigil::config {
namespace {

constexpr Field<Root> kRootFields[] = {
    Required<&Root::path>("path"),
    Bind<&Root::readonly>("readonly"),
};

constexpr Field<Mount> kMountFields[] = {
    Required<&Mount::destination>("destination"),
    Bind<&Mount::type>("type"),
    Bind<&Mount::source>("source"),
    Bind<&Mount::options>("options"),
    Bind<&Mount::uid_mappings>("uidMappings"),
    Bind<&Mount::gid_mappings>("gidMappings"),
};

constexpr Field<Hook> kHookFields[] = {
    Required<&Hook::path>("path"),
    Bind<&Hook::args>("args"),
    Bind<&Hook::env>("env"),
    Bind<&Hook::timeout>("timeout"),
};

constexpr Field<Hooks> kHooksFields[] = {
    Bind<&Hooks::prestart>("prestart"),
    Bind<&Hooks::create_runtime>("createRuntime"),
    Bind<&Hooks::create_container>("createContainer"),
    Bind<&Hooks::start_container>("startContainer"),
    Bind<&Hooks::poststart>("poststart"),
    Bind<&Hooks::poststop>("poststop"),
};

constexpr Field<Spec> kSpecFields[] = {
    Required<&Spec::oci_version>("ociVersion"),
    Bind<&Spec::root>("root"),
    Bind<&Spec::mounts>("mounts"),
    Bind<&Spec::process>("process"),
    Bind<&Spec::hostname>("hostname"),
    Bind<&Spec::domainname>("domainname"),
    Bind<&Spec::hooks>("hooks"),
    Bind<&Spec::annotations>("annotations"),
    Bind<&Spec::linux_spec>("linux"),
};

}  // namespace

VIGIL_DEFINE_SECTION(Root, kRootFields)
VIGIL_DEFINE_SECTION(Mount, kMountFields)
VIGIL_DEFINE_SECTION(Hook, kHookFields)
VIGIL_DEFINE_SECTION(Hooks, kHooksFields)
VIGIL_DEFINE_SECTION(Spec, kSpecFields)

}  // namespace vigil::config
