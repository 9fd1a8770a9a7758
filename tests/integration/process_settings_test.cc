// config.json's process and linux settings, seen from inside the container:
// hostname, environment, cwd, user and groups, rlimits, read-only and masked
// paths, no_new_privs, capabilities, personality, oomScoreAdj, scheduler,
// sysctls, devices, user namespaces, domainname; and settings refused before
// anything is created.
// Every case runs against vigil and runc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

// runc 1.1.5 (Debian 12) predates linux.personality, process.scheduler and
// domainname, which came with runc 1.2; it ignores them.
constexpr char kNewerThanRunc11[] = "runc 1.1.5 ignores this setting (added in runc 1.2)";

// Whether this process may raise its hard RLIMIT_NOFILE to `hard` (it may
// not without CAP_SYS_RESOURCE); probed in a child, which then exits.
bool CanRaiseNofileTo(rlim_t hard) {
  pid_t pid = ::fork();
  if (pid == 0) {
    rlimit limit{.rlim_cur = hard, .rlim_max = hard};
    ::_exit(::setrlimit(RLIMIT_NOFILE, &limit) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ReadLinkOrEmpty(const std::string& path) {
  std::error_code ec;
  std::string target = std::filesystem::read_symlink(path, ec).string();
  return ec ? "" : target;
}

class ProcessSettingsTest : public RuntimeTest {};

TEST_P(ProcessSettingsTest, HostnameIsSet) {
  BundleConfig config = Script("hostname");
  config.hostname = "box-" + unique_;
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "box-" + unique_ + "\n");
}

TEST_P(ProcessSettingsTest, EnvironmentIsPassed) {
  BundleConfig config = Script("echo \"[$GREETING]\"");
  config.env.push_back("GREETING=hello,  world");
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "[hello,  world]\n");
}

TEST_P(ProcessSettingsTest, CwdIsTheWorkingDirectory) {
  BundleConfig config = Script("pwd");
  config.cwd = "/tmp";
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "/tmp\n");
}

TEST_P(ProcessSettingsTest, MissingCwdIsCreated) {
  // runc creates a cwd the image lacks (before making the root read-only).
  BundleConfig config = Script("pwd");
  config.cwd = "/does/not/exist";
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "/does/not/exist\n");
}

TEST_P(ProcessSettingsTest, UserAndGroupsAreSet) {
  BundleConfig config = Script("id -u; id -g; id -G");
  config.uid = 1000;
  config.gid = 1000;
  config.additional_gids = {10, 20};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  std::istringstream lines(run.out);
  std::string uid, gid, groups;
  std::getline(lines, uid);
  std::getline(lines, gid);
  std::getline(lines, groups);
  EXPECT_EQ(uid, "1000");
  EXPECT_EQ(gid, "1000");
  std::set<std::string> group_set;
  std::istringstream words(groups);
  for (std::string g; words >> g;) group_set.insert(g);
  EXPECT_EQ(group_set, (std::set<std::string>{"1000", "10", "20"})) << groups;
}

TEST_P(ProcessSettingsTest, RlimitsAreSet) {
  BundleConfig config = Script("ulimit -n; ulimit -Hn");
  config.rlimits = {{"RLIMIT_NOFILE", /*hard=*/1024, /*soft=*/1000}};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "1000\n1024\n");
}

TEST_P(ProcessSettingsTest, HardRlimitAboveTheHostsFailsCreateAndLeavesNothing) {
  constexpr rlim_t kHard = 1048576;
  if (CanRaiseNofileTo(kHard)) {
    GTEST_SKIP() << "this host lets root raise RLIMIT_NOFILE to " << kHard
                 << " (CAP_SYS_RESOURCE), so there is no failure to test";
  }
  BundleConfig config = Script("sleep 100");
  config.rlimits = {{"RLIMIT_NOFILE", kHard, kHard}};
  WriteConfig(config);
  std::string id = NewId();
  Outcome created = Create(id);
  EXPECT_NE(created.status, 0) << created;
  EXPECT_TRUE(IsOneLine(created.err)) << created;
  EXPECT_THAT(created.err, HasSubstr("rlimit"));
  // runc 1.1.5 names the resource by number: "error setting rlimit type 7".
  if (!IsRunc()) {
    EXPECT_THAT(created.err, HasSubstr("RLIMIT_NOFILE"));
  }
  ExpectFailedCreateLeftNothing(id);
}

TEST_P(ProcessSettingsTest, ReadonlyRootCannotBeWritten) {
  BundleConfig config = Script("touch /probe");
  config.readonly_root = true;
  Outcome refused = RunWith(config);
  EXPECT_NE(refused.status, 0) << refused;
  EXPECT_THAT(refused.err, HasSubstr("Read-only file system"));
  EXPECT_FALSE(std::filesystem::exists(bundle_ + "/rootfs/probe"));

  config.readonly_root = false;
  Outcome allowed = RunWith(config);
  EXPECT_TRUE(allowed.ok()) << allowed;
  EXPECT_TRUE(std::filesystem::exists(bundle_ + "/rootfs/probe"));
}

TEST_P(ProcessSettingsTest, MaskedPathsReadEmpty) {
  // /proc/timer_list (a file) and /sys/firmware (a directory) have content on
  // the host; /proc/kcore too where the kernel provides it.
  std::string script = "wc -c < /proc/timer_list; ls -A /sys/firmware | wc -l";
  bool kcore = std::filesystem::exists("/proc/kcore");
  if (kcore) script += "; wc -c < /proc/kcore";
  ASSERT_FALSE(ReadWholeFile("/proc/timer_list").empty());
  ASSERT_FALSE(std::filesystem::is_empty("/sys/firmware"));
  Outcome run = RunWith(Script(script));
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, kcore ? "0\n0\n0\n" : "0\n0\n");
}

TEST_P(ProcessSettingsTest, ReadonlyPathsCannotBeWritten) {
  // Open for writing fails with EROFS before any permission check, and the
  // mount at /proc/sys is read-only.
  Outcome run = RunWith(
      Script("grep ' /proc/sys ' /proc/mounts; echo x > /proc/sys/kernel/hostname && echo wrote"));
  EXPECT_THAT(run.err, HasSubstr("Read-only file system")) << run;
  EXPECT_THAT(run.out, Not(HasSubstr("wrote")));
  std::istringstream fields(run.out);
  std::string source, target, type, options;
  fields >> source >> target >> type >> options;
  EXPECT_EQ(target, "/proc/sys") << run;
  EXPECT_TRUE(options.starts_with("ro,") || options == "ro") << run;
}

TEST_P(ProcessSettingsTest, NoNewPrivilegesIsSet) {
  for (bool nnp : {true, false}) {
    SCOPED_TRACE(nnp ? "noNewPrivileges true" : "noNewPrivileges false");
    BundleConfig config = Script("cat /proc/self/status");
    config.no_new_privileges = nnp;
    Outcome run = RunWith(config);
    ASSERT_TRUE(run.ok()) << run;
    EXPECT_EQ(StatusField(run.out, "NoNewPrivs"), nnp ? "1" : "0");
  }
}

TEST_P(ProcessSettingsTest, CapabilitiesAreExactlyThoseConfigured) {
  struct Case {
    std::vector<std::string> caps;
    std::string mask;
  };
  for (const Case& c : {Case{{"CAP_KILL"}, "0000000000000020"},
                        Case{{"CAP_KILL", "CAP_NET_BIND_SERVICE"}, "0000000000000420"},
                        Case{{}, "0000000000000000"}}) {
    SCOPED_TRACE(c.mask);
    BundleConfig config = Script("cat /proc/self/status");
    config.capabilities =
        Capabilities{.bounding = c.caps, .effective = c.caps, .permitted = c.caps};
    Outcome run = RunWith(config);
    ASSERT_TRUE(run.ok()) << run;
    EXPECT_EQ(StatusField(run.out, "CapEff"), c.mask);
    EXPECT_EQ(StatusField(run.out, "CapPrm"), c.mask);
    EXPECT_EQ(StatusField(run.out, "CapBnd"), c.mask);
    EXPECT_EQ(StatusField(run.out, "CapInh"), "0000000000000000");
    EXPECT_EQ(StatusField(run.out, "CapAmb"), "0000000000000000");
  }
}

TEST_P(ProcessSettingsTest, AmbientCapabilitiesNeedInheritableAndPermitted) {
  // Raised when also inheritable and permitted...
  BundleConfig config = Script("cat /proc/self/status");
  config.capabilities = Capabilities{.bounding = {"CAP_KILL"},
                                     .effective = {"CAP_KILL"},
                                     .permitted = {"CAP_KILL"},
                                     .inheritable = {"CAP_KILL"},
                                     .ambient = {"CAP_KILL"}};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(StatusField(run.out, "CapAmb"), "0000000000000020");

  // ...and skipped, not an error, when not inheritable: `runc spec` writes
  // exactly this (ambient = bounding, no inheritable) and runc runs it.
  config.capabilities->inheritable.clear();
  run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(StatusField(run.out, "CapAmb"), "0000000000000000");
  EXPECT_EQ(StatusField(run.out, "CapEff"), "0000000000000020");
}

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
