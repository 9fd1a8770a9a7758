// linux.resources.blockIO, as runc applies it.
//   v1 blkio: blkio.weight / blkio.weight_device (CFQ) or, on kernels
//       without CFQ, blkio.bfq.weight / blkio.bfq.weight_device;
//       blkio.leaf_weight[_device]; blkio.throttle.{read,write}_{bps,iops}_device
//       "MAJ:MIN RATE" (rate 0 removes the limit).
//   v2 io: io.bfq.weight when BFQ is there, else io.weight with the weight
//       converted to [1, 10000]; io.max "MAJ:MIN rbps=RATE" (rate 0 is
//       written "max", which is what 0 means on v1). Leaf weights do not
//       exist on v2.
// A weight of 0 means "unset", as Docker sends it.
#include <algorithm>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kBase = "linux.resources.blockIO";

struct Throttle {
  const std::vector<config::ThrottleDevice> config::BlockIo::*list;
  const char* json;     // "throttleReadBpsDevice"
  const char* v1_file;  // "blkio.throttle.read_bps_device"
  const char* v2_key;   // "rbps"
};

constexpr Throttle kThrottles[] = {
    {&config::BlockIo::throttle_read_bps_device, "throttleReadBpsDevice",
     "blkio.throttle.read_bps_device", "rbps"},
    {&config::BlockIo::throttle_write_bps_device, "throttleWriteBpsDevice",
     "blkio.throttle.write_bps_device", "wbps"},
    {&config::BlockIo::throttle_read_iops_device, "throttleReadIOPSDevice",
     "blkio.throttle.read_iops_device", "riops"},
    {&config::BlockIo::throttle_write_iops_device, "throttleWriteIOPSDevice",
     "blkio.throttle.write_iops_device", "wiops"},
};

std::string At(std::string_view field) { return StrCat(kBase, ".", field); }
std::string At(std::string_view list, std::size_t i, std::string_view field) {
  return StrCat(kBase, ".", list, "[", i, "]", field.empty() ? "" : ".", field);
}

// The first field the config sets, for the missing-controller error.
std::string FirstSet(const config::BlockIo& b) {
  if (b.weight.value_or(0) != 0) return At("weight");
  if (b.leaf_weight.value_or(0) != 0) return At("leafWeight");
  if (!b.weight_device.empty()) return At("weightDevice");
  for (const Throttle& t : kThrottles) {
    if (!(b.*t.list).empty()) return At(t.json);
  }
  return "";
}

Result<void> ApplyV1(const Knobs& knobs, const Placement& p, const config::BlockIo& b) {
  bool cfq = knobs.Exists(p, "blkio.weight");
  const char* weight_file = cfq ? "blkio.weight" : "blkio.bfq.weight";
  const char* weight_device_file = cfq ? "blkio.weight_device" : "blkio.bfq.weight_device";
  if (b.weight.value_or(0) != 0) {
    RETURN_IF_ERROR(knobs.Write(p, weight_file, StrCat(*b.weight), At("weight")));
  }
  if (b.leaf_weight.value_or(0) != 0) {
    RETURN_IF_ERROR(knobs.Write(p, "blkio.leaf_weight", StrCat(*b.leaf_weight), At("leafWeight")));
  }
  for (std::size_t i = 0; i < b.weight_device.size(); ++i) {
    const config::WeightDevice& d = b.weight_device[i];
    if (d.weight.value_or(0) != 0) {
      RETURN_IF_ERROR(knobs.Write(p, weight_device_file,
                                  StrCat(d.major, ":", d.minor, " ", *d.weight),
                                  At("weightDevice", i, "weight")));
    }
    if (d.leaf_weight.value_or(0) != 0) {
      RETURN_IF_ERROR(knobs.Write(p, "blkio.leaf_weight_device",
                                  StrCat(d.major, ":", d.minor, " ", *d.leaf_weight),
                                  At("weightDevice", i, "leafWeight")));
    }
  }
  for (const Throttle& t : kThrottles) {
    const std::vector<config::ThrottleDevice>& list = b.*t.list;
    for (std::size_t i = 0; i < list.size(); ++i) {
      RETURN_IF_ERROR(knobs.Write(p, t.v1_file,
                                  StrCat(list[i].major, ":", list[i].minor, " ", list[i].rate),
                                  At(t.json, i, "")));
    }
  }
  return {};
}

Result<void> ApplyV2(const Knobs& knobs, const Placement& p, const config::BlockIo& b) {
  if (b.leaf_weight.value_or(0) != 0) {
    return Fail(StrCat(At("leafWeight"), ": cgroup v2 has no leaf weights"));
  }
  for (std::size_t i = 0; i < b.weight_device.size(); ++i) {
    if (b.weight_device[i].leaf_weight.value_or(0) != 0) {
      return Fail(StrCat(At("weightDevice", i, "leafWeight"), ": cgroup v2 has no leaf weights"));
    }
  }
  // BFQ takes the v1 scale as it is; io.weight needs the conversion.
  bool bfq = knobs.Exists(p, "io.bfq.weight");
  auto weight_value = [&](std::uint16_t w) {
    return StrCat(bfq ? static_cast<std::uint64_t>(w) : BlkioWeightToIoWeight(w));
  };
  const char* weight_file = bfq ? "io.bfq.weight" : "io.weight";
  if (b.weight.value_or(0) != 0) {
    RETURN_IF_ERROR(knobs.Write(p, weight_file, weight_value(*b.weight), At("weight")));
  }
  for (std::size_t i = 0; i < b.weight_device.size(); ++i) {
    const config::WeightDevice& d = b.weight_device[i];
    if (d.weight.value_or(0) == 0) continue;
    RETURN_IF_ERROR(knobs.Write(p, weight_file,
                                StrCat(d.major, ":", d.minor, " ", weight_value(*d.weight)),
                                At("weightDevice", i, "weight")));
  }
  for (const Throttle& t : kThrottles) {
    const std::vector<config::ThrottleDevice>& list = b.*t.list;
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string rate = list[i].rate == 0 ? "max" : StrCat(list[i].rate);
      RETURN_IF_ERROR(knobs.Write(
          p, "io.max", StrCat(list[i].major, ":", list[i].minor, " ", t.v2_key, "=", rate),
          At(t.json, i, "")));
    }
  }
  return {};
}

}  // namespace

std::uint64_t BlkioWeightToIoWeight(std::uint64_t weight) {
  if (weight == 0) return 0;
  weight = std::clamp<std::uint64_t>(weight, 10, 1000);
  return 1 + (weight - 10) * 9999 / 990;
}

Result<void> ApplyBlockIo(const Knobs& knobs, const config::Resources& r) {
  if (!r.block_io) return {};
  std::string first = FirstSet(*r.block_io);
  if (first.empty()) return {};
  if (const Placement* p = knobs.Find("blkio"); p != nullptr && !p->hierarchy.v2) {
    return ApplyV1(knobs, *p, *r.block_io);
  }
  if (knobs.Find("io") == nullptr) {
    return Fail(StrCat(first,
                       ": no block I/O cgroup controller on this host (neither a v1 blkio "
                       "hierarchy nor io on the cgroup2 mount)"));
  }
  ASSIGN_OR_RETURN(const Placement* p, knobs.Require("io", first));
  return ApplyV2(knobs, *p, *r.block_io);
}

}  // namespace vigil::runtime::cgroup
