// What the spec section tests share (spec_*_test.cc): documents made of
// a few members, the error they give, the round trip through DumpSpec, and
// one document per section, which the whole-document tests put together.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "config/oci/config.h"
#include "config/oci/spec.h"

namespace vigil::config {

using ::testing::HasSubstr;
using Strings = std::vector<std::string>;

// Failures print a Spec as its JSON, not as bytes. (Found by ADL, so it lives
// in the Spec's own namespace.)
inline void PrintTo(const Spec& spec, std::ostream* os) {
  *os << DumpSpec(spec, json::Writer::Style::kCompact);
}

// config.json holding ociVersion plus `members` (a comma-separated list).
inline std::string DocWith(std::string_view members) {
  return StrCat(R"({"ociVersion": "1.2.0", )", members, "}");
}

inline Result<Spec> ParseWith(std::string_view members) { return ParseSpec(DocWith(members)); }

// The error ParseSpec reports for the document, or "" if it parsed.
inline std::string ErrorWith(std::string_view members) {
  Result<Spec> spec = ParseWith(members);
  return spec ? "" : spec.error().message;
}

// ParseSpec(DumpSpec(spec)) == spec, compact and pretty, and dumping the
// result again gives the same text.
inline void ExpectRoundTrip(const Spec& spec) {
  for (json::Writer::Style style : {json::Writer::Style::kCompact, json::Writer::Style::kPretty}) {
    std::string text = DumpSpec(spec, style);
    Result<Spec> again = ParseSpec(text);
    ASSERT_TRUE(again) << again.error().message << "\n" << text;
    EXPECT_EQ(*again, spec) << text;
    EXPECT_EQ(DumpSpec(*again, style), text);
  }
}

// Parses `members`, checks that it round-trips, and that no property whose
// name starts with "x-" (the unknown ones in these documents) is written back.
inline void ExpectParsesAndRoundTrips(std::string_view members) {
  Result<Spec> spec = ParseWith(members);
  ASSERT_TRUE(spec) << spec.error().message;
  ExpectRoundTrip(*spec);
  EXPECT_THAT(DumpSpec(*spec), ::testing::Not(HasSubstr("\"x-")));
}

// ---- One document per section ------------------------------------------------

inline constexpr std::string_view kMounts = R"("mounts": [
  {"destination": "/proc", "type": "proc", "source": "proc"},
  {"destination": "/data", "type": "bind", "source": "/srv/data", "options": ["rbind", "ro"],
   "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536, "x-vendor": 0}],
   "gidMappings": [{"containerID": 1, "hostID": 200000, "size": 1000}],
   "x-vendor": {"note": "ignored"}}
])";

inline constexpr std::string_view kProcess = R"("process": {
  "terminal": true,
  "consoleSize": {"height": 24, "width": 80, "x-vendor": 1},
  "user": {"uid": 1000, "gid": 1001, "umask": 18, "additionalGids": [5, 10],
           "username": "alice", "x-vendor": 1},
  "args": ["sh", "-c", "echo hi"],
  "commandLine": "cmd.exe /c echo",
  "env": ["PATH=/bin", "TERM=xterm"],
  "cwd": "/home/alice",
  "capabilities": {
    "bounding": ["CAP_KILL", "CAP_CHOWN"],
    "effective": ["CAP_KILL"],
    "inheritable": ["CAP_NET_RAW"],
    "permitted": ["CAP_KILL", "CAP_AUDIT_WRITE"],
    "ambient": ["CAP_CHECKPOINT_RESTORE"],
    "x-vendor": ["CAP_NOT_CHECKED"]
  },
  "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 1024, "x-vendor": 1},
              {"type": "RLIMIT_CORE", "hard": 18446744073709551615, "soft": 0}],
  "noNewPrivileges": true,
  "apparmorProfile": "docker-default",
  "selinuxLabel": "system_u:system_r:container_t:s0",
  "oomScoreAdj": -500,
  "scheduler": {"policy": "SCHED_DEADLINE", "nice": -5, "priority": 0,
                "flags": ["SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM"],
                "runtime": 10000, "deadline": 20000, "period": 30000, "x-vendor": 1},
  "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 4, "x-vendor": 1},
  "execCPUAffinity": {"initial": "0-3", "final": "7", "x-vendor": 1},
  "x-vendor": {"a": 1}
})";

inline constexpr std::string_view kHooks = R"("hooks": {
  "prestart": [{"path": "/bin/pre", "args": ["pre", "-v"], "env": ["A=1"], "timeout": 5,
                "x-vendor": 1}],
  "createRuntime": [{"path": "/bin/cr1"}, {"path": "/bin/cr2"}],
  "createContainer": [{"path": "/bin/cc"}],
  "startContainer": [{"path": "/bin/sc"}],
  "poststart": [{"path": "/bin/ps"}],
  "poststop": [{"path": "/bin/pst", "timeout": 1}],
  "x-vendor": [{"path": "/bin/ignored"}]
})";

inline constexpr std::string_view kAnnotations = R"("annotations": {
  "io.kubernetes.cri.container-type": "sandbox",
  "org.opencontainers.image.ref.name": "alpine:3",
  "plain": "",
  "caf\u00e9": "na\u00efve"
})";

inline constexpr std::string_view kNamespaces = R"("linux": {"namespaces": [
  {"type": "pid"}, {"type": "network", "path": "/proc/1/ns/net"}, {"type": "mount"},
  {"type": "ipc"}, {"type": "uts"}, {"type": "user"}, {"type": "cgroup"},
  {"type": "time", "x-vendor": 1}
]})";

inline constexpr std::string_view kMappings = R"("linux": {
  "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1},
                  {"containerID": 1, "hostID": 100000, "size": 65536, "x-vendor": 1}],
  "gidMappings": [{"containerID": 0, "hostID": 4294967295, "size": 4294967295}]
})";

inline constexpr std::string_view kDevices = R"("linux": {"devices": [
  {"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229, "fileMode": 438, "uid": 0,
   "gid": 5, "x-vendor": 1},
  {"type": "b", "path": "/dev/sda", "major": 8, "minor": 0},
  {"type": "u", "path": "/dev/unbuffered", "major": 1, "minor": 9},
  {"type": "p", "path": "/dev/fifo"}
]})";

inline constexpr std::string_view kSysctl =
    R"("linux": {"sysctl": {"net.ipv4.ip_forward": "1", "kernel.shmmax": "4294967296"}})";

inline constexpr std::string_view kLinuxPaths = R"("linux": {
  "rootfsPropagation": "rslave",
  "maskedPaths": ["/proc/kcore", "/sys/firmware"],
  "readonlyPaths": ["/proc/sys", "/proc/sysrq-trigger"],
  "mountLabel": "system_u:object_r:container_file_t:s0:c1,c2",
  "cgroupsPath": "/vigil/c1",
  "x-vendor": {"masked": ["/"]}
})";

inline constexpr std::string_view kIntelRdt = R"("linux": {"intelRdt": {
  "closID": "guaranteed", "l3CacheSchema": "L3:0=7f0;1=1f", "memBwSchema": "MB:0=20;1=70",
  "enableCMT": true, "enableMBM": true, "x-vendor": 1
}})";

inline constexpr std::string_view kPersonality =
    R"("linux": {"personality": {"domain": "LINUX32", "flags": ["ADDR_NO_RANDOMIZE"], "x-v": 1}})";

inline constexpr std::string_view kTimeOffsets = R"("linux": {"timeOffsets": {
  "monotonic": {"secs": -3600, "nanosecs": 0, "x-vendor": 1},
  "boottime": {"secs": 86400, "nanosecs": 999999999}
}})";

inline constexpr std::string_view kResources = R"("linux": {"resources": {
  "devices": [{"allow": false, "access": "rwm"},
              {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw", "x-v": 1},
              {"allow": true, "type": "b", "major": -1, "minor": -1, "access": "m"}],
  "memory": {"limit": 536870912, "reservation": 268435456, "swap": -1, "kernel": 0,
             "kernelTCP": 1024, "swappiness": 60, "disableOOMKiller": false,
             "useHierarchy": true, "checkBeforeUpdate": true, "x-vendor": 1},
  "cpu": {"shares": 1024, "quota": 100000, "burst": 5000, "period": 100000,
          "realtimeRuntime": 950000, "realtimePeriod": 1000000, "cpus": "0-3", "mems": "0",
          "idle": 1, "x-vendor": 1},
  "pids": {"limit": 32, "x-vendor": 1},
  "blockIO": {"weight": 500, "leafWeight": 300,
              "weightDevice": [{"major": 8, "minor": 0, "weight": 600, "leafWeight": 200},
                               {"major": 8, "minor": 16}],
              "throttleReadBpsDevice": [{"major": 8, "minor": 0, "rate": 1048576}],
              "throttleWriteBpsDevice": [{"major": 8, "minor": 0, "rate": 2097152}],
              "throttleReadIOPSDevice": [{"major": 8, "minor": 0, "rate": 100}],
              "throttleWriteIOPSDevice": [{"major": 8, "minor": 16, "rate": 200, "x-v": 1}],
              "x-vendor": 1},
  "hugepageLimits": [{"pageSize": "2MB", "limit": 209715200}, {"pageSize": "1GB", "limit": 0}],
  "network": {"classID": 1048577,
              "priorities": [{"name": "eth0", "priority": 500}, {"name": "lo", "priority": 0}],
              "x-vendor": 1},
  "rdma": {"mlx5_1": {"hcaHandles": 3, "hcaObjects": 10000, "x-vendor": 1},
           "mlx4-0": {"hcaHandles": 1}},
  "unified": {"memory.high": "1073741824", "io.weight": "default 100"},
  "x-vendor": {"blkio": 1}
}})";

inline constexpr std::string_view kSeccomp = R"("linux": {"seccomp": {
  "defaultAction": "SCMP_ACT_ERRNO",
  "defaultErrnoRet": 1,
  "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
  "flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"],
  "listenerPath": "/run/seccomp-agent.sock",
  "listenerMetadata": "pod=a",
  "syscalls": [
    {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW", "x-comment": "io"},
    {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
     "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ", "x-v": 1},
              {"index": 1, "value": 255, "valueTwo": 8, "op": "SCMP_CMP_MASKED_EQ"}]},
    {"names": ["mount"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    {"names": ["ioctl"], "action": "SCMP_ACT_NOTIFY"}
  ],
  "x-vendor": {"comment": "ignored"}
}})";

}  // namespace vigil::config
