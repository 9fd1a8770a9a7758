// linux.resources seen from inside: limits that hold, a freezer that
// freezes, and the container's own cgroups at /sys/fs/cgroup. Every case
// runs against vigil and runc on this host's cgroup layout (hybrid here).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <charconv>
#include <sstream>
#include <string>
#include <thread>

#include "base/strings.h"
#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

constexpr char kCgroupMount[] =
    R"({"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
        "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]})";

class ResourcesTest : public RuntimeTest {};

// Skips, saying why, where vigil_cgroup2 cannot have these controllers.
#define SKIP_WITHOUT_CGROUP2(...)                                                    \
  if (const std::string why = Cgroup2Lacks(GetParam(), {__VA_ARGS__}); !why.empty()) \
  GTEST_SKIP() << why

TEST_P(ResourcesTest, MemoryLimitOomKillsAnAllocationAboveIt) {
  SKIP_WITHOUT_CGROUP2("memory");
  BundleConfig config;
  // 64 MiB of memory and of memory+swap; dd's 200 MiB buffer cannot fit.
  config.resources_json = R"({"memory": {"limit": 67108864, "swap": 67108864}})";
  config.args = {"sh", "-c",
                 "dd if=/dev/zero of=/dev/null bs=200M count=1 2>/dev/null; "
                 "echo dd=$?"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "dd=137\n") << "dd was not OOM-killed (SIGKILL)";
}

TEST_P(ResourcesTest, MemoryBelowTheLimitIsFine) {
  SKIP_WITHOUT_CGROUP2("memory");
  BundleConfig config;
  config.resources_json = R"({"memory": {"limit": 67108864, "swap": 67108864}})";
  config.args = {"sh", "-c",
                 "dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null; "
                 "echo dd=$?"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "dd=0\n");
}

TEST_P(ResourcesTest, PidsLimitStopsAForkLoop) {
  SKIP_WITHOUT_CGROUP2("pids");
  BundleConfig config;
  config.resources_json = R"({"pids": {"limit": 10}})";
  // Twenty background sleeps against a limit of ten, in a subshell: ash
  // exits when a fork fails. The outer shell then counts processes with
  // builtins only (a glob), since it could not fork either.
  config.args = {"sh", "-c",
                 "(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "
                 "sleep 100 & done) 2>/dev/null; set -- /proc/[0-9]*; echo processes=$#"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  std::string out = run.out;
  ASSERT_THAT(out, HasSubstr("processes="));
  int count = 0;
  std::from_chars(out.data() + out.find('=') + 1, out.data() + out.size(), count);
  EXPECT_GE(count, 2);
  EXPECT_LE(count, 10) << out;
}

TEST_P(ResourcesTest, ContainerSeesItsOwnCgroupLimits) {
  SKIP_WITHOUT_CGROUP2("memory", "pids");
  BundleConfig config;
  config.extra_mounts_json = {kCgroupMount};
  config.resources_json = R"({"memory": {"limit": 67108864}, "pids": {"limit": 42}})";
  // v1's files, or cgroup2's.
  config.args = {"sh", "-c",
                 "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || "
                 "cat /sys/fs/cgroup/memory.max; "
                 "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max; "
                 "touch /sys/fs/cgroup/x 2>/dev/null || echo read-only"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "67108864\n42\nread-only\n");
}

// The line of /proc/PID/cgroup for `controller` ("4:memory:/vigil/x").
std::string CgroupLine(const std::string& proc_cgroup, const std::string& controller) {
  std::istringstream in(proc_cgroup);
  for (std::string line; std::getline(in, line);) {
    const std::size_t colon = line.find(':');
    const std::size_t last = line.rfind(':');
    if (colon == std::string::npos || last == colon) continue;
    const std::string names = line.substr(colon + 1, last - colon - 1);
    std::istringstream list(names);
    for (std::string name; std::getline(list, name, ',');) {
      if (name == controller) return line.substr(last + 1);
    }
  }
  return "";
}

// Clients read the cgroup of the pid the runtime reports (containerd's shim
// loads it for stats and OOM events): its memory and CPU cgroups are the
// container's, where the workload's own are. For vigil that pid is the
// supervisor, whose work is charged there.
TEST_P(ResourcesTest, TheReportedPidIsChargedToTheContainersCgroup) {
  SKIP_WITHOUT_CGROUP2("memory");
  BundleConfig config;
  config.resources_json = R"({"memory": {"limit": 67108864}})";
  config.args = {"sh", "-c", "cat /proc/self/cgroup; sleep 30"};
  WriteConfig(config);
  std::string id = NewId();
  CreateAndStart(id);
  const pid_t pid = PidFromFile(id);
  ASSERT_GT(pid, 0);
  const std::string reported = ReadWholeFile(StrCat("/proc/", pid, "/cgroup"));
  for (const char* controller : {"memory", "cpu", "cpuacct"}) {
    const std::string dir = CgroupLine(reported, controller);
    if (dir.empty()) continue;  // not a v1 controller on this host
    EXPECT_THAT(dir, HasSubstr(id)) << controller << " of pid " << pid << ":\n" << reported;
  }
  Runtime({"kill", id, "KILL"});
}

TEST_P(ResourcesTest, PauseFreezesAndResumeThawsTheWorkload) {
  // The workload counts into a file the test reads from the host.
  std::string out_dir = scratch_ + "/out";
  std::filesystem::create_directories(out_dir);
  BundleConfig config;
  config.extra_mounts_json = {BindMountJson("/out", out_dir)};
  config.args = {"sh", "-c",
                 "i=0; while true; do i=$((i+1)); echo $i > /out/tick; "
                 "usleep 20000; done"};
  WriteConfig(config);
  std::string id = NewId();
  CreateAndStart(id);
  auto tick = [&] { return ReadWholeFile(out_dir + "/tick"); };
  ASSERT_TRUE(Eventually([&] { return !tick().empty(); }));

  ASSERT_TRUE(Runtime({"pause", id}).ok());
  EXPECT_EQ(StatusOf(id), "paused");
  std::string frozen_at = tick();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(tick(), frozen_at) << "the workload ran while paused";

  ASSERT_TRUE(Runtime({"resume", id}).ok());
  EXPECT_EQ(StatusOf(id), "running");
  EXPECT_TRUE(Eventually([&] { return tick() != frozen_at; })) << "no progress after resume";
}

TEST_P(ResourcesTest, PauseOfAStoppedContainerFails) {
  BundleConfig config;
  config.args = {"true"};
  WriteConfig(config);
  std::string id = NewId();
  ASSERT_TRUE(Create(id).ok());
  ASSERT_TRUE(Runtime({"start", id}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  Outcome pause = Runtime({"pause", id});
  EXPECT_NE(pause.status, 0);
  Outcome resume = Runtime({"resume", id});
  EXPECT_NE(resume.status, 0);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, ResourcesTest, ::testing::ValuesIn(CgroupRuntimes()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
