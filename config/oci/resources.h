// runtime-spec config.json "linux.resources": cgroup limits. Optional members
// are unset when the config leaves the knob alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vigil::config {

// One entry of the device cgroup's allow/deny list.
struct DeviceRule {
  bool allow = false;
  std::string type;                   // "a", "c" or "b"; empty means all
  std::optional<std::int64_t> major;  // absent: any
  std::optional<std::int64_t> minor;
  std::string access;  // subset of "rwm"
  bool operator==(const DeviceRule&) const = default;
};

struct Memory {
  std::optional<std::int64_t> limit;
  std::optional<std::int64_t> reservation;
  std::optional<std::int64_t> swap;  // memory+swap; -1 is unlimited
  std::optional<std::int64_t> kernel;
  std::optional<std::int64_t> kernel_tcp;
  std::optional<std::uint64_t> swappiness;
  std::optional<bool> disable_oom_killer;
  std::optional<bool> use_hierarchy;
  std::optional<bool> check_before_update;
  bool operator==(const Memory&) const = default;
};

struct Cpu {
  std::optional<std::uint64_t> shares;
  std::optional<std::int64_t> quota;
  std::optional<std::uint64_t> burst;
  std::optional<std::uint64_t> period;
  std::optional<std::int64_t> realtime_runtime;
  std::optional<std::uint64_t> realtime_period;
  std::string cpus;
  std::string mems;
  std::optional<std::int64_t> idle;
  bool operator==(const Cpu&) const = default;
};

struct Pids {
  std::int64_t limit = 0;  // <= 0: unlimited
  bool operator==(const Pids&) const = default;
};

struct WeightDevice {
  std::int64_t major = 0;
  std::int64_t minor = 0;
  std::optional<std::uint16_t> weight;
  std::optional<std::uint16_t> leaf_weight;
  bool operator==(const WeightDevice&) const = default;
};

struct ThrottleDevice {
  std::int64_t major = 0;
  std::int64_t minor = 0;
  std::uint64_t rate = 0;
  bool operator==(const ThrottleDevice&) const = default;
};

struct BlockIo {
  std::optional<std::uint16_t> weight;
  std::optional<std::uint16_t> leaf_weight;
  std::vector<WeightDevice> weight_device;
  std::vector<ThrottleDevice> throttle_read_bps_device;
  std::vector<ThrottleDevice> throttle_write_bps_device;
  std::vector<ThrottleDevice> throttle_read_iops_device;
  std::vector<ThrottleDevice> throttle_write_iops_device;
  bool operator==(const BlockIo&) const = default;
};

struct HugepageLimit {
  std::string page_size;  // "2MB", "1GB"
  std::uint64_t limit = 0;
  bool operator==(const HugepageLimit&) const = default;
};

struct InterfacePriority {
  std::string name;
  std::uint32_t priority = 0;
  bool operator==(const InterfacePriority&) const = default;
};

struct Network {
  std::optional<std::uint32_t> class_id;
  std::vector<InterfacePriority> priorities;
  bool operator==(const Network&) const = default;
};

struct Rdma {
  std::optional<std::uint32_t> hca_handles;
  std::optional<std::uint32_t> hca_objects;
  bool operator==(const Rdma&) const = default;
};

struct Resources {
  std::vector<DeviceRule> devices;
  std::optional<Memory> memory;
  std::optional<Cpu> cpu;
  std::optional<Pids> pids;
  std::optional<BlockIo> block_io;
  std::vector<HugepageLimit> hugepage_limits;
  std::optional<Network> network;
  std::map<std::string, Rdma> rdma;            // by device name
  std::map<std::string, std::string> unified;  // cgroup v2 file -> value
  bool operator==(const Resources&) const = default;
};

}  // namespace vigil::config
