// The rest of config.json's process and linux settings, seen from inside the
// container: personality, oomScoreAdj, scheduler, sysctls, devices, user
// namespaces, domainname; and settings refused before anything is created.
// Every case runs against vigil and runc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

// runc 1.1.5 (Debian 12) predates linux.personality, process.scheduler and
// domainname, which came with runc 1.2; it ignores them.
constexpr char kNewerThanRunc11[] = "runc 1.1.5 ignores this setting (added in runc 1.2)";

std::string ReadLinkOrEmpty(const std::string& path) {
  std::error_code ec;
  std::string target = std::filesystem::read_symlink(path, ec).string();
  return ec ? "" : target;
}

class ProcessSettingsTest : public RuntimeTest {};

TEST_P(ProcessSettingsTest, Linux32PersonalityReportsA32BitMachine) {
  if (IsRunc()) GTEST_SKIP() << kNewerThanRunc11;
  BundleConfig config;
  config.linux_extra_json = R"("personality": {"domain": "LINUX32"})";
  Outcome run = RunScript(config, "uname -m");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "i686\n");
}

TEST_P(ProcessSettingsTest, OomScoreAdjIsSet) {
  BundleConfig config;
  config.process_extra_json = R"("oomScoreAdj": 500)";
  Outcome run = RunScript(config, "cat /proc/self/oom_score_adj");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "500\n");
}

TEST_P(ProcessSettingsTest, SchedulerPolicyIsSet) {
  if (IsRunc()) GTEST_SKIP() << kNewerThanRunc11;
  BundleConfig config;
  config.process_extra_json = R"("scheduler": {"policy": "SCHED_BATCH", "nice": 5})";
  // Field 41 of /proc/self/stat is the policy (SCHED_BATCH = 3), 19 the nice.
  Outcome run = RunScript(config,
                          "set -- $(cat /proc/self/stat); shift 18; echo nice=$1; "
                          "shift 22; echo policy=$1");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "nice=5\npolicy=3\n");
}

TEST_P(ProcessSettingsTest, NamespacedSysctlIsWritten) {
  BundleConfig config;
  config.readonly_paths.clear();  // /proc/sys stays writable for the runtime either way
  config.linux_extra_json = R"("sysctl": {"net.ipv4.ip_forward": "1"})";
  Outcome run = RunScript(config, "cat /proc/sys/net/ipv4/ip_forward");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "1\n");
}

TEST_P(ProcessSettingsTest, ConfiguredDeviceNodeIsCreated) {
  BundleConfig config;
  config.linux_extra_json =
      R"("devices": [{"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229,
                      "fileMode": 438, "uid": 0, "gid": 0}])";
  config.resources_json =
      R"({"devices": [{"allow": false, "access": "rwm"},
                      {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rwm"}]})";
  Outcome run = RunScript(config, "stat -c '%F %t:%T %a' /dev/fuse");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "character special file a:e5 666\n");
}

TEST_P(ProcessSettingsTest, DomainnameIsSet) {
  if (IsRunc()) GTEST_SKIP() << kNewerThanRunc11;
  BundleConfig config;
  config.domainname = "example.org";
  Outcome run = RunScript(config, "cat /proc/sys/kernel/domainname");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "example.org\n");
}

TEST_P(ProcessSettingsTest, UserNamespaceMapsRootToAnUnprivilegedHostUser) {
  BundleConfig config;
  config.namespaces.push_back("user");
  config.linux_extra_json = R"("uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
      "gidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}])";
  config.readonly_root = false;
  // The mapped root (host uid 100000) must reach and own the rootfs.
  namespace fs = std::filesystem;
  for (const std::string& dir : {dir_, bundle_}) {
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  }
  for (const auto& entry : fs::recursive_directory_iterator(bundle_ + "/rootfs")) {
    ASSERT_EQ(::lchown(entry.path().c_str(), 100000, 100000), 0) << entry.path();
  }
  ASSERT_EQ(::lchown((bundle_ + "/rootfs").c_str(), 100000, 100000), 0);
  Outcome run = RunScript(config, "id -u; cat /proc/self/uid_map");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("0\n"));
  EXPECT_THAT(run.out, HasSubstr("100000"));
}

// Docker's --network container:X, podman pods and CRI sandboxes join a
// container's namespaces through /proc/PID/ns/* of the pid its runtime
// reported. For vigil that pid is the supervisor's, which lives in the host's
// namespaces; the joiner must still land in the container's.
TEST_P(ProcessSettingsTest, JoiningThroughTheReportedPidReachesTheContainersNamespaces) {
  BundleConfig first;
  first.args = {"sleep", "100"};
  WriteConfig(first);
  std::string first_id = NewId();
  CreateAndStart(first_id);
  std::string pid = std::to_string(PidFromFile(first_id));
  Outcome inside = Runtime(
      {"exec", first_id, "sh", "-c", "for n in net ipc uts; do readlink /proc/self/ns/$n; done"});
  ASSERT_TRUE(inside.ok()) << inside;

  BundleConfig second;
  second.namespaces = {"pid", "mount", "network=/proc/" + pid + "/ns/net",
                       "ipc=/proc/" + pid + "/ns/ipc", "uts=/proc/" + pid + "/ns/uts"};
  Outcome joined = RunScript(second, "for n in net ipc uts; do readlink /proc/self/ns/$n; done");
  ASSERT_TRUE(joined.ok()) << joined;
  EXPECT_EQ(joined.out, inside.out);
  EXPECT_NE(joined.out.substr(0, joined.out.find('\n')), ReadLinkOrEmpty("/proc/self/ns/net"))
      << "joined the host's network namespace";
}

// --no-pivot (for a rootfs on a ramdisk, where pivot_root fails): the
// container still sees only its image.
TEST_P(ProcessSettingsTest, NoPivotStillConfinesToTheRootfs) {
  BundleConfig config;
  config.args = {"sh", "-c", "ls /; test -e /bundle || echo no-host-paths"};
  WriteConfig(config);
  Outcome run = Runtime({"run", "--no-pivot", "--bundle", bundle_, NewId()});
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "bin\ndev\netc\nproc\nsys\ntmp\nno-host-paths\n");
}

TEST_P(ProcessSettingsTest, UnsupportedIntelRdtIsRefusedLeavingNothing) {
  if (IsRunc()) GTEST_SKIP() << "runc applies intelRdt where resctrl exists; vigil refuses it";
  BundleConfig config;
  config.linux_extra_json = R"("intelRdt": {"closID": "x", "l3CacheSchema": "L3:0=f"})";
  WriteConfig(config);
  std::string id = NewId();
  Outcome create = Create(id);
  EXPECT_NE(create.status, 0);
  EXPECT_THAT(create.err, HasSubstr("linux.intelRdt"));
  ExpectFailedCreateLeftNothing(id);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, ProcessSettingsTest, ::testing::ValuesIn(RuntimesUnderTest()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
