// Field tables for config.json "linux.resources".
#include "config/oci/codec.h"
#include "config/oci/sections.h"

namespace vigil::config {
namespace {

constexpr Field<DeviceRule> kDeviceRuleFields[] = {
    Required<&DeviceRule::allow>("allow"),
    BindName<&DeviceRule::type, kCgroupDeviceTypeNames, /*kRequired=*/false, /*kAllowEmpty=*/true>(
        "type"),
    Bind<&DeviceRule::major>("major"),
    Bind<&DeviceRule::minor>("minor"),
    Bind<&DeviceRule::access>("access"),
};

constexpr Field<Memory> kMemoryFields[] = {
    Bind<&Memory::limit>("limit"),
    Bind<&Memory::reservation>("reservation"),
    Bind<&Memory::swap>("swap"),
    Bind<&Memory::kernel>("kernel"),
    Bind<&Memory::kernel_tcp>("kernelTCP"),
    Bind<&Memory::swappiness>("swappiness"),
    Bind<&Memory::disable_oom_killer>("disableOOMKiller"),
    Bind<&Memory::use_hierarchy>("useHierarchy"),
    Bind<&Memory::check_before_update>("checkBeforeUpdate"),
};

constexpr Field<Cpu> kCpuFields[] = {
    Bind<&Cpu::shares>("shares"),
    Bind<&Cpu::quota>("quota"),
    Bind<&Cpu::burst>("burst"),
    Bind<&Cpu::period>("period"),
    Bind<&Cpu::realtime_runtime>("realtimeRuntime"),
    Bind<&Cpu::realtime_period>("realtimePeriod"),
    Bind<&Cpu::cpus>("cpus"),
    Bind<&Cpu::mems>("mems"),
    Bind<&Cpu::idle>("idle"),
};

constexpr Field<Pids> kPidsFields[] = {
    Required<&Pids::limit>("limit"),
};

constexpr Field<WeightDevice> kWeightDeviceFields[] = {
    Required<&WeightDevice::major>("major"),
    Required<&WeightDevice::minor>("minor"),
    Bind<&WeightDevice::weight>("weight"),
    Bind<&WeightDevice::leaf_weight>("leafWeight"),
};

constexpr Field<ThrottleDevice> kThrottleDeviceFields[] = {
    Required<&ThrottleDevice::major>("major"),
    Required<&ThrottleDevice::minor>("minor"),
    Required<&ThrottleDevice::rate>("rate"),
};

constexpr Field<BlockIo> kBlockIoFields[] = {
    Bind<&BlockIo::weight>("weight"),
    Bind<&BlockIo::leaf_weight>("leafWeight"),
    Bind<&BlockIo::weight_device>("weightDevice"),
    Bind<&BlockIo::throttle_read_bps_device>("throttleReadBpsDevice"),
    Bind<&BlockIo::throttle_write_bps_device>("throttleWriteBpsDevice"),
    Bind<&BlockIo::throttle_read_iops_device>("throttleReadIOPSDevice"),
    Bind<&BlockIo::throttle_write_iops_device>("throttleWriteIOPSDevice"),
};

constexpr Field<HugepageLimit> kHugepageLimitFields[] = {
    Required<&HugepageLimit::page_size>("pageSize"),
    Required<&HugepageLimit::limit>("limit"),
};

constexpr Field<InterfacePriority> kInterfacePriorityFields[] = {
    Required<&InterfacePriority::name>("name"),
    Required<&InterfacePriority::priority>("priority"),
};

constexpr Field<Network> kNetworkFields[] = {
    Bind<&Network::class_id>("classID"),
    Bind<&Network::priorities>("priorities"),
};

constexpr Field<Rdma> kRdmaFields[] = {
    Bind<&Rdma::hca_handles>("hcaHandles"),
    Bind<&Rdma::hca_objects>("hcaObjects"),
};

constexpr Field<Resources> kResourcesFields[] = {
    Bind<&Resources::devices>("devices"),  Bind<&Resources::memory>("memory"),
    Bind<&Resources::cpu>("cpu"),          Bind<&Resources::pids>("pids"),
    Bind<&Resources::block_io>("blockIO"), Bind<&Resources::hugepage_limits>("hugepageLimits"),
    Bind<&Resources::network>("network"),  Bind<&Resources::rdma>("rdma"),
    Bind<&Resources::unified>("unified"),
};

}  // namespace

VIGIL_DEFINE_SECTION(DeviceRule, kDeviceRuleFields)
VIGIL_DEFINE_SECTION(Memory, kMemoryFields)
VIGIL_DEFINE_SECTION(Cpu, kCpuFields)
VIGIL_DEFINE_SECTION(Pids, kPidsFields)
VIGIL_DEFINE_SECTION(WeightDevice, kWeightDeviceFields)
VIGIL_DEFINE_SECTION(ThrottleDevice, kThrottleDeviceFields)
VIGIL_DEFINE_SECTION(BlockIo, kBlockIoFields)
VIGIL_DEFINE_SECTION(HugepageLimit, kHugepageLimitFields)
VIGIL_DEFINE_SECTION(InterfacePriority, kInterfacePriorityFields)
VIGIL_DEFINE_SECTION(Network, kNetworkFields)
VIGIL_DEFINE_SECTION(Rdma, kRdmaFields)
VIGIL_DEFINE_SECTION(Resources, kResourcesFields)

}  // namespace vigil::config
