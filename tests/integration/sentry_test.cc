// The sentry in real containers: mediated syscalls answered from the
// sandbox, denied ones refused, exec'd processes served too, nothing left
// running when the supervisor dies, and the audit log of its decisions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "base/strings.h"
#include "tests/integration/sentry_fixture.h"

namespace vigil::integration {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_P(SentryTest, UnameReportsTheSandboxNamesAndTheConfiguredRelease) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.kernel-release": "5.15.0-sandbox"})";
  Outcome run = RunScript(config, "uname -r; uname -n");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "5.15.0-sandbox\nit-host\n");
}

// The names are read live from the container's UTS namespace.
TEST_P(SentryTest, UnameFollowsTheContainersOwnSethostname) {
  BundleConfig config;
  config.capabilities->bounding.push_back("CAP_SYS_ADMIN");
  config.capabilities->effective.push_back("CAP_SYS_ADMIN");
  config.capabilities->permitted.push_back("CAP_SYS_ADMIN");
  Outcome run = RunScript(config, "hostname renamed && uname -n");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "renamed\n");
}

TEST_P(SentryTest, SysinfoReportsTheMemoryLimit) {
  BundleConfig config;
  config.resources_json = R"({"memory": {"limit": 100663296}})";
  // busybox free takes the total from sysinfo(2). (Its "used" column
  // subtracts the page cache from /proc/meminfo: the host's unless files
  // are mediated, see below.)
  Outcome run = RunScript(config, "free -b");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, ContainsRegex("Mem: +100663296"));
}

// With files mediated, /proc/meminfo, cpuinfo and stat show the container's
// memory and CPUs rather than the host's.
TEST_P(SentryTest, ProcShowsTheContainersMemoryAndCpus) {
  BundleConfig config;
  config.resources_json =
      R"({"memory": {"limit": 100663296}, "cpu": {"quota": 100000, "period": 100000}})";
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\"}}"})";
  Outcome run = RunScript(config,
                          "grep MemTotal /proc/meminfo; grep -c ^processor /proc/cpuinfo; "
                          "grep -c ^cpu /proc/stat");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, ContainsRegex("MemTotal: +98304 kB\n1\n2\n"));
}

// A container under agent whose config sets no limits gets the profile's.
TEST_P(SentryTest, AgentSetsItsDefaultLimitsWhereTheConfigSetsNone) {
  BundleConfig config;
  config.readonly_root = false;
  config.no_new_privileges = false;
  config.rlimits = {};
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.extra_mounts_json = {
      R"({"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
          "options": ["nosuid", "noexec", "nodev", "ro"]})"};
  Outcome run = RunScript(config,
                          "cat /sys/fs/cgroup/memory/memory.limit_in_bytes "
                          "/sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/cpu/cpu.cfs_quota_us; "
                          "ulimit -n");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "2147483648\n1024\n200000\n4096\n");
}

TEST_P(SentryTest, DeniedSyscallsFailInsteadOfReachingTheKernel) {
  BundleConfig config;
  // Even with the capability, unshare is the sentry's to refuse.
  config.capabilities->bounding.push_back("CAP_SYS_ADMIN");
  config.capabilities->effective.push_back("CAP_SYS_ADMIN");
  config.capabilities->permitted.push_back("CAP_SYS_ADMIN");
  Outcome run = RunScript(config, "unshare -m true; echo status=$?");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("Operation not permitted"));
}

TEST_P(SentryTest, ExecdProcessesAreServedToo) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  config.annotations_json = R"({"dev.vigil.kernel-release": "4.4.0-exec"})";
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  Outcome exec = Runtime({"exec", id, "uname", "-r"});
  EXPECT_TRUE(exec.ok()) << exec;
  EXPECT_EQ(exec.out, "4.4.0-exec\n");
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

// Fail closed: when the supervisor is killed, the workload goes with it and
// the container reads as stopped; delete cleans up everything.
TEST_P(SentryTest, KillingTheSupervisorKillsTheWorkload) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  const pid_t supervisor = SupervisorPid(id);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  EXPECT_TRUE(WaitForStatus(id, "stopped"));
  EXPECT_TRUE(Eventually([&] { return Leftovers().empty(); })) << "a workload process survived";
  Outcome deleted = Runtime({"delete", "--force", id});
  EXPECT_TRUE(deleted.ok()) << deleted;
  ExpectNothingLeftOf(id);
}

// Each mediated syscall leaves one record, which `vigil audit` prints.
// Once the container runs, the supervisor serves under its own seccomp
// filter (supervisor/self_confinement.h), and still serves: exec works.
TEST_P(SentryTest, TheRunningSupervisorIsConfined) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  const pid_t supervisor = SupervisorPid(id);
  ASSERT_GT(supervisor, 0);
  const std::string status = ReadWholeFile(StrCat("/proc/", supervisor, "/status"));
  EXPECT_THAT(status, HasSubstr("Seccomp:\t2\n"));
  EXPECT_THAT(status, HasSubstr("Seccomp_filters:\t1\n"));
  Outcome exec = Runtime({"exec", id, "uname", "-n"});
  EXPECT_TRUE(exec.ok()) << exec;
  Outcome deleted = Runtime({"delete", "--force", id});
  EXPECT_TRUE(deleted.ok()) << deleted;
  ExpectNothingLeftOf(id);
}

// audit-only denies nothing and records every file and network call.
TEST_P(SentryTest, AuditOnlyRecordsFilesAndConnectionsAndDeniesNothing) {
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  BundleConfig config;
  config.readonly_root = false;
  config.annotations_json = R"({"dev.vigil.policy": "audit-only"})";
  config.args = {"sh", "-c",
                 "cat /etc/motd; mkdir /made && rmdir /made && echo made; "
                 "nc -w 1 127.0.0.1 9 </dev/null 2>/dev/null; echo done"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\nmade\ndone\n");
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/etc/motd"},"decision":"allow")"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"mkdir")"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"connect")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("decision":"deny")")));
}

TEST_P(SentryTest, AuditLogRecordsEachMediatedDecision) {
  BundleConfig config;
  config.args = {"sh", "-c", "uname -r >/dev/null; uname -n >/dev/null; sleep 1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  // Two from the script's unames (busybox's sleep may add its own).
  Outcome json;
  EXPECT_TRUE(Eventually([&] {
    json = Runtime({"audit", "--format", "json", id});
    return json.ok() && std::count(json.out.begin(), json.out.end(), '\n') >= 2;
  })) << json;
  EXPECT_THAT(json.out, HasSubstr(R"("syscall":"uname")"));
  EXPECT_THAT(json.out, HasSubstr(R"("decision":"emulate")"));
  EXPECT_THAT(json.out, HasSubstr(StrCat(R"("id":")", id, R"(")")));
  EXPECT_THAT(json.out, HasSubstr(R"("exe":"/bin/busybox")"));
  Outcome summary = Runtime({"audit", "--summary", id});
  ASSERT_TRUE(summary.ok()) << summary;
  EXPECT_THAT(summary.out, ContainsRegex("[0-9]+ +uname +emulate"));
  Outcome denied = Runtime({"audit", "--denied", id});
  ASSERT_TRUE(denied.ok()) << denied;
  EXPECT_EQ(denied.out, "");
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

// A child whose exec is refused ends at once; its records still name the
// program it ran (read before the answer, not after, when it is gone).
TEST_P(SentryTest, ARefusedExecsRecordNamesTheCallerThoughItEndedAtOnce) {
  BundleConfig config = Script(
      "cp /bin/busybox /tmp/own; i=0; while [ $i -lt 200 ]; do /tmp/own true; i=$((i+1)); done; :");
  config.annotations_json = R"({"dev.vigil.policy": "{\"exec\": {\"allow\": [\"/bin/**\"]}}"})";
  config.extra_mounts_json = {
      R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["rw"]})"};
  auto [run, audit] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  int refusals = 0;
  std::istringstream lines(audit);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(R"("syscall":"execve")") == std::string::npos ||
        line.find(R"("decision":"deny")") == std::string::npos) {
      continue;
    }
    ++refusals;
    EXPECT_THAT(line, HasSubstr(R"("exe":"/bin/busybox")"));
  }
  // The first 20 of one kind are written, the rest counted (repeats.h).
  EXPECT_GE(refusals, 20) << audit;
}

TEST_P(SentryTest, PolicyCanTurnAuditingOff) {
  BundleConfig config;
  config.args = {"sh", "-c", "uname -r"};
  config.annotations_json = R"({"dev.vigil.policy": "{\"audit\": \"off\"}"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  ASSERT_TRUE(created.ok()) << created;
  ASSERT_TRUE(Runtime({"start", id}).ok());
  EXPECT_TRUE(WaitForStatus(id, "stopped"));
  Outcome audit = Runtime({"audit", id});
  ASSERT_TRUE(audit.ok()) << audit;
  EXPECT_EQ(audit.out, "");
  EXPECT_TRUE(Runtime({"delete", id}).ok());
}

TEST_P(SentryTest, BadPolicyAnnotationIsRefusedLeavingNothing) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"maybe\"}}"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  EXPECT_FALSE(created.ok());
  EXPECT_THAT(created.err, HasSubstr("dev.vigil.policy"));
  EXPECT_THAT(created.err, HasSubstr("policy.files.default"));
  ExpectFailedCreateLeftNothing(id);
}

// The annotation comes with the container: it cannot point the runtime at
// an arbitrary host file.
TEST_P(SentryTest, AuditAnnotationCannotNameAnyHostFile) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.audit": "/etc/cron.d/audit"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  EXPECT_FALSE(created.ok());
  EXPECT_THAT(created.err, HasSubstr("dev.vigil.audit"));
  EXPECT_FALSE(std::filesystem::exists("/etc/cron.d/audit"));
  ExpectFailedCreateLeftNothing(id);
}

// The egress policy's first test (docs/design.md, "The sentry"): a container on the host's network
// under `policy_annotation` tries the host's loopback, is refused with the
// policy's errno, and the refusal is audited.

INSTANTIATE_TEST_SUITE_P(Runtimes, SentryTest, ::testing::ValuesIn(SentryRuntimes()), RuntimeName);

}  // namespace
}  // namespace vigil::integration
