// Decode/Encode for every config struct, one pair per JSON object type, and
// Overlay (codec.h). Each section's field tables live in its own parse_*.cc.
#pragma once

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/result.h"
#include "config/oci/json_path.h"
#include "config/oci/spec.h"

namespace vigil::config {

#define VIGIL_DECLARE_SECTION(T)                                    \
  Result<void> Decode(json::Value v, const JsonPath& path, T& out); \
  void Encode(json::Writer& w, const T& in);                        \
  void Overlay(const T& from, T& to)

// parse_spec.cc
VIGIL_DECLARE_SECTION(Spec);
VIGIL_DECLARE_SECTION(Root);
VIGIL_DECLARE_SECTION(Mount);
VIGIL_DECLARE_SECTION(Hook);
VIGIL_DECLARE_SECTION(Hooks);
// parse_process.cc
VIGIL_DECLARE_SECTION(Process);
VIGIL_DECLARE_SECTION(ConsoleSize);
VIGIL_DECLARE_SECTION(User);
VIGIL_DECLARE_SECTION(Capabilities);
VIGIL_DECLARE_SECTION(Rlimit);
VIGIL_DECLARE_SECTION(Scheduler);
VIGIL_DECLARE_SECTION(IoPriority);
VIGIL_DECLARE_SECTION(ExecCpuAffinity);
// parse_linux.cc
VIGIL_DECLARE_SECTION(Linux);
VIGIL_DECLARE_SECTION(IdMapping);
VIGIL_DECLARE_SECTION(Namespace);
VIGIL_DECLARE_SECTION(Device);
VIGIL_DECLARE_SECTION(TimeOffset);
VIGIL_DECLARE_SECTION(IntelRdt);
VIGIL_DECLARE_SECTION(Personality);
// parse_resources.cc
VIGIL_DECLARE_SECTION(Resources);
VIGIL_DECLARE_SECTION(DeviceRule);
VIGIL_DECLARE_SECTION(Memory);
VIGIL_DECLARE_SECTION(Cpu);
VIGIL_DECLARE_SECTION(Pids);
VIGIL_DECLARE_SECTION(WeightDevice);
VIGIL_DECLARE_SECTION(ThrottleDevice);
VIGIL_DECLARE_SECTION(BlockIo);
VIGIL_DECLARE_SECTION(HugepageLimit);
VIGIL_DECLARE_SECTION(InterfacePriority);
VIGIL_DECLARE_SECTION(Network);
VIGIL_DECLARE_SECTION(Rdma);
// parse_seccomp.cc
VIGIL_DECLARE_SECTION(Seccomp);
VIGIL_DECLARE_SECTION(SeccompSyscall);
VIGIL_DECLARE_SECTION(SeccompArg);

#undef VIGIL_DECLARE_SECTION

// Defines the Decode/Encode pair and the Overlay of T from its field table.
#define VIGIL_DEFINE_SECTION(T, table)                                         \
  Result<void> Decode(json::Value v, const JsonPath& path, T& out) {           \
    return DecodeObject<T>(v, path, table, out);                               \
  }                                                                            \
  void Encode(json::Writer& w, const T& in) { EncodeObject<T>(w, table, in); } \
  void Overlay(const T& from, T& to) { Overlay<T>(table, from, to); }

}  // namespace vigil::config
