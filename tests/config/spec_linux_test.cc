// ParseSpec and DumpSpec for the sections under linux (but resources and
// seccomp, which have files of their own), as spec_sections_test.cc tests
// the others.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tests/config/spec_sections.h"

namespace vigil::config {
namespace {

// ---- linux.namespaces, uidMappings, gidMappings -----------------------------

TEST(NamespacesTest, ParsesTypesAndPaths) {
  auto spec = ParseWith(kNamespaces);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->namespaces,
            (std::vector<Namespace>{
                {.type = NamespaceType::kPid},
                {.type = NamespaceType::kNetwork, .path = "/proc/1/ns/net"},
                {.type = NamespaceType::kMount},
                {.type = NamespaceType::kIpc},
                {.type = NamespaceType::kUts},
                {.type = NamespaceType::kUser},
                {.type = NamespaceType::kCgroup},
                {.type = NamespaceType::kTime},
            }));
  ASSERT_NE(spec->linux_spec->FindNamespace(NamespaceType::kNetwork), nullptr);
  EXPECT_EQ(spec->linux_spec->FindNamespace(NamespaceType::kNetwork)->path, "/proc/1/ns/net");
}

TEST(NamespacesTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"namespaces": [{"type": "pid"}, {"path": "/x"}]})"),
            "linux.namespaces[1].type: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"namespaces": [{"type": "pid", "path": 1}]})"),
            "linux.namespaces[0].path: expected string, got number 1");
}

TEST(NamespacesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"namespaces": [{"type": "uts", "x-vendor": "host"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->namespaces, (std::vector<Namespace>{{.type = NamespaceType::kUts}}));
}

TEST(NamespacesTest, RoundTrips) { ExpectParsesAndRoundTrips(kNamespaces); }

TEST(IdMappingsTest, ParsesUidAndGidMappings) {
  auto spec = ParseWith(kMappings);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1000, .size = 1},
                                    {.container_id = 1, .host_id = 100000, .size = 65536}}));
  EXPECT_EQ(
      spec->linux_spec->gid_mappings,
      (std::vector<IdMapping>{{.container_id = 0, .host_id = 4294967295u, .size = 4294967295u}}));
}

TEST(IdMappingsTest, ErrorNamesThePath) {
  EXPECT_EQ(
      ErrorWith(
          R"("linux": {"gidMappings": [{"containerID": 4294967296, "hostID": 0, "size": 1}]})"),
      "linux.gidMappings[0].containerID: expected unsigned 32-bit integer in [0, 4294967295], "
      "got number 4294967296");
  EXPECT_EQ(ErrorWith(R"("linux": {"uidMappings": [{"containerID": 0, "size": 1}]})"),
            "linux.uidMappings[0].hostID: required property is missing");
}

TEST(IdMappingsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(
      R"("linux": {"uidMappings": [{"containerID": 0, "hostID": 1, "size": 2, "x-v": "a"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1, .size = 2}}));
}

TEST(IdMappingsTest, RoundTrips) { ExpectParsesAndRoundTrips(kMappings); }

// ---- linux.devices ----------------------------------------------------------

TEST(DevicesTest, ParsesEveryMember) {
  auto spec = ParseWith(kDevices);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->devices,
            (std::vector<Device>{
                {.type = "c",
                 .path = "/dev/fuse",
                 .major = 10,
                 .minor = 229,
                 .file_mode = 0666,
                 .uid = 0,
                 .gid = 5},
                {.type = "b", .path = "/dev/sda", .major = 8, .minor = 0},
                {.type = "u", .path = "/dev/unbuffered", .major = 1, .minor = 9},
                {.type = "p", .path = "/dev/fifo"},
            }));
}

TEST(DevicesTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"devices": [{"type": "c", "major": 1}]})"),
            "linux.devices[0].path: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"devices": [{"path": "/dev/null"}]})"),
            "linux.devices[0].type: required property is missing");
  EXPECT_EQ(
      ErrorWith(R"("linux": {"devices": [{"type": "c", "path": "/dev/x", "fileMode": "0666"}]})"),
      R"(linux.devices[0].fileMode: expected unsigned 32-bit integer, got string "0666")");
}

TEST(DevicesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"devices": [{"type": "p", "path": "/f", "x-mode": "rw"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->devices, (std::vector<Device>{{.type = "p", .path = "/f"}}));
}

TEST(DevicesTest, RoundTrips) { ExpectParsesAndRoundTrips(kDevices); }

// ---- linux.sysctl -----------------------------------------------------------

TEST(SysctlTest, ParsesEveryEntry) {
  auto spec = ParseWith(kSysctl);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->sysctl,
            (std::map<std::string, std::string>{{"net.ipv4.ip_forward", "1"},
                                                {"kernel.shmmax", "4294967296"}}));
}

TEST(SysctlTest, ErrorQuotesTheKey) {
  EXPECT_EQ(ErrorWith(R"("linux": {"sysctl": {"net.ipv4.ip_forward": 1}})"),
            R"(linux.sysctl["net.ipv4.ip_forward"]: expected string, got number 1)");
}

TEST(SysctlTest, RoundTrips) { ExpectParsesAndRoundTrips(kSysctl); }

// ---- linux: rootfsPropagation, maskedPaths, readonlyPaths, mountLabel, cgroupsPath

TEST(LinuxPathsTest, ParsesEveryMember) {
  auto spec = ParseWith(kLinuxPaths);
  ASSERT_TRUE(spec) << spec.error().message;
  const Linux& l = *spec->linux_spec;
  EXPECT_EQ(l.rootfs_propagation, "rslave");
  EXPECT_EQ(l.masked_paths, (Strings{"/proc/kcore", "/sys/firmware"}));
  EXPECT_EQ(l.readonly_paths, (Strings{"/proc/sys", "/proc/sysrq-trigger"}));
  EXPECT_EQ(l.mount_label, "system_u:object_r:container_file_t:s0:c1,c2");
  EXPECT_EQ(l.cgroups_path, "/vigil/c1");
}

TEST(LinuxPathsTest, AcceptsEveryPropagation) {
  for (std::string_view p : {"shared", "rshared", "slave", "rslave", "private", "rprivate",
                             "unbindable", "runbindable"}) {
    auto spec = ParseWith(StrCat(R"("linux": {"rootfsPropagation": ")", p, R"("})"));
    ASSERT_TRUE(spec) << spec.error().message;
    EXPECT_EQ(spec->linux_spec->rootfs_propagation, p);
  }
}

TEST(LinuxPathsTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"maskedPaths": ["/proc/kcore", null]})"),
            "linux.maskedPaths[1]: expected string, got null");
  EXPECT_EQ(ErrorWith(R"("linux": {"readonlyPaths": "/proc/sys"})"),
            R"(linux.readonlyPaths: expected array, got string "/proc/sys")");
  EXPECT_EQ(ErrorWith(R"("linux": {"mountLabel": []})"),
            "linux.mountLabel: expected string, got array");
  EXPECT_EQ(ErrorWith(R"("linux": {"rootfsPropagation": 1})"),
            "linux.rootfsPropagation: expected string, got number 1");
}

TEST(LinuxPathsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"x-vendor": 1, "mountLabel": "l"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec, Linux{.mount_label = "l"});
}

TEST(LinuxPathsTest, RoundTrips) { ExpectParsesAndRoundTrips(kLinuxPaths); }

// ---- linux.intelRdt ---------------------------------------------------------

TEST(IntelRdtTest, ParsesEveryMember) {
  auto spec = ParseWith(kIntelRdt);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->intel_rdt, (IntelRdt{.clos_id = "guaranteed",
                                                   .l3_cache_schema = "L3:0=7f0;1=1f",
                                                   .mem_bw_schema = "MB:0=20;1=70",
                                                   .enable_cmt = true,
                                                   .enable_mbm = true}));
}

TEST(IntelRdtTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"intelRdt": {"enableCMT": "true"}})"),
            R"(linux.intelRdt.enableCMT: expected boolean, got string "true")");
}

TEST(IntelRdtTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"intelRdt": {"closID": "c", "x-schema": 1}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->intel_rdt, IntelRdt{.clos_id = "c"});
}

TEST(IntelRdtTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kIntelRdt);
  ExpectParsesAndRoundTrips(R"("linux": {"intelRdt": {}})");
}

// ---- linux.personality ------------------------------------------------------

TEST(PersonalityTest, ParsesDomainAndFlags) {
  auto spec = ParseWith(kPersonality);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->personality,
            (Personality{.domain = "LINUX32", .flags = {"ADDR_NO_RANDOMIZE"}}));
}

TEST(PersonalityTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"personality": {"flags": []}})"),
            "linux.personality.domain: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"personality": {"domain": "LINUX", "flags": "x"}})"),
            R"(linux.personality.flags: expected array, got string "x")");
}

TEST(PersonalityTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"personality": {"domain": "LINUX", "x-flags": 3}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->personality, Personality{.domain = "LINUX"});
}

TEST(PersonalityTest, RoundTrips) { ExpectParsesAndRoundTrips(kPersonality); }

// ---- linux.timeOffsets ------------------------------------------------------

TEST(TimeOffsetsTest, ParsesEachClock) {
  auto spec = ParseWith(kTimeOffsets);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->time_offsets,
            (std::map<std::string, TimeOffset>{
                {"monotonic", {.secs = -3600, .nanosecs = 0}},
                {"boottime", {.secs = 86400, .nanosecs = 999999999}},
            }));
}

TEST(TimeOffsetsTest, ErrorNamesTheClock) {
  EXPECT_EQ(
      ErrorWith(R"("linux": {"timeOffsets": {"monotonic": {"nanosecs": -1}}})"),
      "linux.timeOffsets.monotonic.nanosecs: expected unsigned 32-bit integer, got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"timeOffsets": {"boottime": {"secs": "1"}}})"),
            R"(linux.timeOffsets.boottime.secs: expected integer, got string "1")");
}

TEST(TimeOffsetsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"timeOffsets": {"boottime": {"secs": 1, "x-v": "a"}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->time_offsets.at("boottime"), TimeOffset{.secs = 1});
}

TEST(TimeOffsetsTest, RoundTrips) { ExpectParsesAndRoundTrips(kTimeOffsets); }

}  // namespace
}  // namespace vigil::config
