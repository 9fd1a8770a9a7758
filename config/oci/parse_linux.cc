// Field tables for config.json "linux" (resources and seccomp have their own).
#include "config/oci/codec.h"
#include "config/oci/sections.h"

namespace vigil::config {
namespace {

constexpr Field<IdMapping> kIdMappingFields[] = {
    Required<&IdMapping::container_id>("containerID"),
    Required<&IdMapping::host_id>("hostID"),
    Required<&IdMapping::size>("size"),
};

constexpr Field<Namespace> kNamespaceFields[] = {
    Required<&Namespace::type>("type"),
    Bind<&Namespace::path>("path"),
};

constexpr Field<Device> kDeviceFields[] = {
    BindName<&Device::type, kDeviceTypeNames, /*kRequired=*/true>("type"),
    Required<&Device::path>("path"),
    Bind<&Device::major>("major"),
    Bind<&Device::minor>("minor"),
    Bind<&Device::file_mode>("fileMode"),
    Bind<&Device::uid>("uid"),
    Bind<&Device::gid>("gid"),
};

constexpr Field<TimeOffset> kTimeOffsetFields[] = {
    Bind<&TimeOffset::secs>("secs"),
    Bind<&TimeOffset::nanosecs>("nanosecs"),
};

constexpr Field<IntelRdt> kIntelRdtFields[] = {
    Bind<&IntelRdt::clos_id>("closID"),
    Bind<&IntelRdt::l3_cache_schema>("l3CacheSchema"),
    Bind<&IntelRdt::mem_bw_schema>("memBwSchema"),
    Bind<&IntelRdt::enable_cmt>("enableCMT"),
    Bind<&IntelRdt::enable_mbm>("enableMBM"),
};

constexpr Field<Personality> kPersonalityFields[] = {
    BindName<&Personality::domain, kPersonalityDomainNames, /*kRequired=*/true>("domain"),
    Bind<&Personality::flags>("flags"),
};

constexpr Field<Linux> kLinuxFields[] = {
    Bind<&Linux::uid_mappings>("uidMappings"),
    Bind<&Linux::gid_mappings>("gidMappings"),
    Bind<&Linux::sysctl>("sysctl"),
    Bind<&Linux::resources>("resources"),
    Bind<&Linux::cgroups_path>("cgroupsPath"),
    Bind<&Linux::namespaces>("namespaces"),
    Bind<&Linux::devices>("devices"),
    Bind<&Linux::seccomp>("seccomp"),
    BindName<&Linux::rootfs_propagation, kPropagationNames, /*kRequired=*/false,
             /*kAllowEmpty=*/true>("rootfsPropagation"),
    Bind<&Linux::masked_paths>("maskedPaths"),
    Bind<&Linux::readonly_paths>("readonlyPaths"),
    Bind<&Linux::mount_label>("mountLabel"),
    Bind<&Linux::intel_rdt>("intelRdt"),
    Bind<&Linux::personality>("personality"),
    Bind<&Linux::time_offsets>("timeOffsets"),
};

}  // namespace

VIGIL_DEFINE_SECTION(IdMapping, kIdMappingFields)
VIGIL_DEFINE_SECTION(Namespace, kNamespaceFields)
VIGIL_DEFINE_SECTION(Device, kDeviceFields)
VIGIL_DEFINE_SECTION(TimeOffset, kTimeOffsetFields)
VIGIL_DEFINE_SECTION(IntelRdt, kIntelRdtFields)
VIGIL_DEFINE_SECTION(Personality, kPersonalityFields)
VIGIL_DEFINE_SECTION(Linux, kLinuxFields)

const Namespace* Linux::FindNamespace(NamespaceType type) const {
  for (const Namespace& ns : namespaces) {
    if (ns.type == type) return &ns;
  }
  return nullptr;
}

}  // namespace vigil::config
