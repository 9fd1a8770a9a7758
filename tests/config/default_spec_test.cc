#include "config/oci/default_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_writer.h"
#include "config/oci/config.h"
#include "config/oci/validate.h"

namespace vigil::config {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using ::testing::Not;
using ::testing::StartsWith;
using Strings = std::vector<std::string>;

std::vector<NamespaceType> NamespaceTypes(const Spec& spec) {
  std::vector<NamespaceType> types;
  for (const Namespace& ns : spec.linux_spec->namespaces) types.push_back(ns.type);
  return types;
}

std::vector<std::string> Destinations(const Spec& spec) {
  std::vector<std::string> out;
  for (const Mount& m : spec.mounts) out.push_back(m.destination);
  return out;
}

const Mount* FindMount(const Spec& spec, std::string_view destination) {
  for (const Mount& m : spec.mounts) {
    if (m.destination == destination) return &m;
  }
  return nullptr;
}

void ExpectRoundTrip(const Spec& spec) {
  for (json::Writer::Style style : {json::Writer::Style::kCompact, json::Writer::Style::kPretty}) {
    Result<Spec> again = ParseSpec(DumpSpec(spec, style));
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_TRUE(*again == spec) << DumpSpec(spec, style);
  }
}

// ---- DefaultSpec: what `vigil spec` writes -----------------------------------

TEST(DefaultSpecTest, PassesValidate) {
  Result<void> valid = Validate(DefaultSpec());
  EXPECT_TRUE(valid) << valid.error().message;
}

TEST(DefaultSpecTest, RoundTrips) { ExpectRoundTrip(DefaultSpec()); }

TEST(DefaultSpecTest, IsTheCurrentSpecVersion) {
  EXPECT_EQ(DefaultSpec().oci_version, "1.2.0");
  EXPECT_EQ(DefaultSpec().oci_version, kOciVersion);
}

TEST(DefaultSpecTest, RunsShOnATerminal) {
  Spec spec = DefaultSpec();
  ASSERT_TRUE(spec.process);
  EXPECT_TRUE(spec.process->terminal);
  EXPECT_EQ(spec.process->args, Strings{"sh"});
  EXPECT_EQ(spec.process->cwd, "/");
  EXPECT_EQ(spec.process->user.uid, 0u);
  EXPECT_EQ(spec.process->user.gid, 0u);
  EXPECT_THAT(spec.process->env,
              ElementsAre("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                          "TERM=xterm"));
  EXPECT_TRUE(spec.process->no_new_privileges);
}

TEST(DefaultSpecTest, HasAReadonlyRootCalledRootfs) {
  EXPECT_EQ(DefaultSpec().root, (Root{.path = "rootfs", .readonly = true}));
}

TEST(DefaultSpecTest, KeepsOnlyRuncsThreeCapabilities) {
  Spec spec = DefaultSpec();
  ASSERT_TRUE(spec.process->capabilities);
  const Capabilities& c = *spec.process->capabilities;
  Strings caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  EXPECT_EQ(c.bounding, caps);
  EXPECT_EQ(c.effective, caps);
  EXPECT_EQ(c.permitted, caps);
  EXPECT_TRUE(c.inheritable.empty());
  EXPECT_TRUE(c.ambient.empty());
}

TEST(DefaultSpecTest, LimitsOpenFilesTo1024) {
  EXPECT_EQ(DefaultSpec().process->rlimits,
            (std::vector<Rlimit>{{.type = "RLIMIT_NOFILE", .hard = 1024, .soft = 1024}}));
}

// runc spec's namespaces, in its order: no cgroup namespace, no user one.
TEST(DefaultSpecTest, CreatesRuncsFiveNamespaces) {
  Spec spec = DefaultSpec();
  EXPECT_THAT(NamespaceTypes(spec),
              ElementsAre(NamespaceType::kPid, NamespaceType::kNetwork, NamespaceType::kIpc,
                          NamespaceType::kUts, NamespaceType::kMount));
  EXPECT_EQ(spec.linux_spec->FindNamespace(NamespaceType::kUser), nullptr);
  for (const Namespace& ns : spec.linux_spec->namespaces) EXPECT_TRUE(ns.path.empty());
  EXPECT_TRUE(spec.linux_spec->uid_mappings.empty());
  EXPECT_TRUE(spec.linux_spec->gid_mappings.empty());
}

TEST(DefaultSpecTest, MountsTheUsualFilesystems) {
  Spec spec = DefaultSpec();
  EXPECT_THAT(Destinations(spec), ElementsAre("/proc", "/dev", "/dev/pts", "/dev/shm",
                                              "/dev/mqueue", "/sys", "/sys/fs/cgroup"));
  EXPECT_EQ(*FindMount(spec, "/proc"),
            (Mount{.destination = "/proc", .type = "proc", .source = "proc"}));
  EXPECT_THAT(FindMount(spec, "/dev/pts")->options, Contains("gid=5"));
  EXPECT_THAT(FindMount(spec, "/dev/pts")->options, Contains("newinstance"));
  EXPECT_EQ(FindMount(spec, "/sys")->type, "sysfs");
  EXPECT_THAT(FindMount(spec, "/sys")->options, Contains("ro"));
  EXPECT_EQ(FindMount(spec, "/sys/fs/cgroup")->type, "cgroup");
  EXPECT_THAT(FindMount(spec, "/sys/fs/cgroup")->options, Contains("ro"));
}

TEST(DefaultSpecTest, DeniesAllDevicesInTheCgroup) {
  Spec spec = DefaultSpec();
  ASSERT_TRUE(spec.linux_spec->resources);
  EXPECT_EQ(spec.linux_spec->resources->devices,
            (std::vector<DeviceRule>{{.allow = false, .access = "rwm"}}));
}

TEST(DefaultSpecTest, MasksAndProtectsProcAndSys) {
  Spec spec = DefaultSpec();
  EXPECT_THAT(
      spec.linux_spec->masked_paths,
      IsSupersetOf({"/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                    "/proc/timer_list", "/proc/sched_debug", "/proc/scsi", "/sys/firmware"}));
  EXPECT_THAT(spec.linux_spec->readonly_paths, ElementsAre("/proc/bus", "/proc/fs", "/proc/irq",
                                                           "/proc/sys", "/proc/sysrq-trigger"));
}

TEST(DefaultSpecTest, NamesTheHostAndNeedsTheUtsNamespaceForIt) {
  Spec spec = DefaultSpec();
  EXPECT_FALSE(spec.hostname.empty());
  EXPECT_NE(spec.linux_spec->FindNamespace(NamespaceType::kUts), nullptr);
}

TEST(DefaultSpecTest, LeavesOptionalSectionsOut) {
  Spec spec = DefaultSpec();
  EXPECT_FALSE(spec.hooks);
  EXPECT_TRUE(spec.annotations.empty());
  EXPECT_FALSE(spec.linux_spec->seccomp);
  EXPECT_TRUE(spec.linux_spec->rootfs_propagation.empty());
}

// ---- RootlessSpec: what `vigil spec --rootless` writes -----------------------

TEST(RootlessSpecTest, PassesValidate) {
  Result<void> valid = Validate(RootlessSpec(1000, 1000));
  EXPECT_TRUE(valid) << valid.error().message;
}

TEST(RootlessSpecTest, RoundTrips) { ExpectRoundTrip(RootlessSpec(1000, 1000)); }

TEST(RootlessSpecTest, MapsTheCallerToRootInAUserNamespace) {
  Spec spec = RootlessSpec(1000, 1000);
  EXPECT_NE(spec.linux_spec->FindNamespace(NamespaceType::kUser), nullptr);
  EXPECT_EQ(spec.linux_spec->uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1000, .size = 1}}));
  EXPECT_EQ(spec.linux_spec->gid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1000, .size = 1}}));
}

TEST(RootlessSpecTest, MapsUidAndGidSeparately) {
  Spec spec = RootlessSpec(1000, 2000);
  EXPECT_EQ(spec.linux_spec->uid_mappings.at(0).host_id, 1000u);
  EXPECT_EQ(spec.linux_spec->gid_mappings.at(0).host_id, 2000u);
  Result<void> valid = Validate(spec);
  EXPECT_TRUE(valid) << valid.error().message;
}

TEST(RootlessSpecTest, HasOneUserNamespaceAndNoNetworkNamespace) {
  Spec spec = RootlessSpec(1000, 1000);
  std::vector<NamespaceType> types = NamespaceTypes(spec);
  EXPECT_EQ(std::count(types.begin(), types.end(), NamespaceType::kUser), 1);
  EXPECT_THAT(types, Not(Contains(NamespaceType::kNetwork)));
  EXPECT_THAT(types, IsSupersetOf({NamespaceType::kPid, NamespaceType::kIpc, NamespaceType::kUts,
                                   NamespaceType::kMount}));
  EXPECT_EQ(types.size(), 5u);  // as runc spec --rootless
}

TEST(RootlessSpecTest, HasNoCgroupMount) {
  Spec spec = RootlessSpec(1000, 1000);
  EXPECT_EQ(FindMount(spec, "/sys/fs/cgroup"), nullptr);
  for (const Mount& m : spec.mounts) EXPECT_NE(m.type, "cgroup") << m.destination;
}

TEST(RootlessSpecTest, BindMountsSysReadOnly) {
  Spec spec = RootlessSpec(1000, 1000);
  ASSERT_NE(FindMount(spec, "/sys"), nullptr);
  EXPECT_EQ(*FindMount(spec, "/sys"),
            (Mount{.destination = "/sys",
                   .type = "none",
                   .source = "/sys",
                   .options = {"rbind", "nosuid", "noexec", "nodev", "ro"}}));
}

TEST(RootlessSpecTest, AsksDevptsForNoGid) {
  Spec spec = RootlessSpec(1000, 1000);
  ASSERT_NE(FindMount(spec, "/dev/pts"), nullptr);
  for (const Mount& m : spec.mounts) {
    EXPECT_THAT(m.options, Not(Contains(StartsWith("gid=")))) << m.destination;
  }
  EXPECT_THAT(FindMount(spec, "/dev/pts")->options, Contains("newinstance"));
}

TEST(RootlessSpecTest, SetsNoResourceLimits) {
  EXPECT_FALSE(RootlessSpec(1000, 1000).linux_spec->resources);
}

TEST(RootlessSpecTest, KeepsTheRestOfTheDefault) {
  Spec rootless = RootlessSpec(1000, 1000);
  Spec fallback = DefaultSpec();
  EXPECT_EQ(rootless.root, fallback.root);
  EXPECT_EQ(rootless.process, fallback.process);
  EXPECT_EQ(rootless.hostname, fallback.hostname);
  EXPECT_EQ(rootless.linux_spec->masked_paths, fallback.linux_spec->masked_paths);
  EXPECT_EQ(rootless.linux_spec->readonly_paths, fallback.linux_spec->readonly_paths);
}

TEST(RootlessSpecTest, RootCallerStillGetsAValidSpec) {
  Result<void> valid = Validate(RootlessSpec(0, 0));
  EXPECT_TRUE(valid) << valid.error().message;
}

}  // namespace
}  // namespace vigil::config
