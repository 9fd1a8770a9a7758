// A sandbox nobody watches still ends: its timeout (`run --timeout`,
// dev.vigil.timeout) and a foreground `run` whose client is killed or told
// to stop end every process of it, even those that ignore SIGTERM, and
// leave no state, cgroup or process behind (TearDown checks). vigil only:
// runc has no timeout, and its state outlives a killed client.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LifetimeTest : public RuntimeTest {
 protected:
  std::string AuditPath() const { return scratch_ + "/audit.jsonl"; }

  // `--audit A run [flags] --bundle B id`.
  Child SpawnRun(const std::string& id, const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args = {"--audit", AuditPath(), "run"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--bundle", bundle_, "--pid-file", PidFile(id), id});
    return SpawnRuntime(args);
  }

  // Waits until the container's program runs (its init has exec'd `program`).
  void WaitUntilRunning(const std::string& program) {
    ASSERT_TRUE(Eventually([&] { return CountContainerProcesses(program) > 0; }))
        << program << " never started";
  }

  static BundleConfig Annotated(const std::string& annotations_json, const std::string& script) {
    BundleConfig config = Script(script);
    config.annotations_json = annotations_json;
    return config;
  }
};

// Every process ignores TERM (the shell's "" trap is inherited by what it
// starts): the KILL after the grace period ends them, 137 says so, and the
// audit log has both steps.
TEST_P(LifetimeTest, ATimeoutEndsEveryProcessEvenThoseThatIgnoreTerm) {
  WriteConfig(Annotated(R"({"dev.vigil.timeout-grace": "1s"})",
                        "trap '' TERM; sleep 1000 & sleep 1000 & wait"));
  Outcome run = SpawnRun(NewId(), {"--timeout", "1s"}).Wait();
  EXPECT_EQ(run.status, 137) << run;
  const std::string audit = ReadWholeFile(AuditPath());
  EXPECT_THAT(audit, HasSubstr(R"("event":"timeout","args":{"afterMs":1000,"graceMs":1000,)"
                               R"("signal":"SIGTERM","processes":3},"decision":"kill")"));
  EXPECT_THAT(audit, HasSubstr(R"("event":"timeout","args":{"signal":"SIGKILL","processes":3})"));
}

// A workload that ends on TERM ends as it chooses, within the grace period:
// no KILL follows.
TEST_P(LifetimeTest, AWorkloadThatEndsOnTermIsNotKilled) {
  WriteConfig(Annotated(R"({"dev.vigil.timeout": "1s", "dev.vigil.timeout-grace": "60s"})",
                        "trap 'exit 7' TERM; while :; do sleep 0.1; done"));
  Outcome run = SpawnRun(NewId()).Wait();
  EXPECT_EQ(run.status, 7) << run;
  const std::string audit = ReadWholeFile(AuditPath());
  EXPECT_THAT(audit, HasSubstr(R"("event":"timeout")"));
  EXPECT_THAT(audit, Not(HasSubstr("SIGKILL")));
}

// The timeout counts the time the sandbox runs: one paused for longer than
// its timeout (in a warm pool, or between an agent's calls) is there when
// resumed, and ends after the time it had left, not at once.
TEST_P(LifetimeTest, TimePausedDoesNotCountTowardsTheTimeout) {
  WriteConfig(Annotated(R"({"dev.vigil.timeout-grace": "0s"})", "sleep 1000"));
  const std::string id = NewId();
  Child run = SpawnRun(id, {"--timeout", "2s"});
  WaitUntilRunning("sleep");
  Outcome paused = Runtime({"pause", id});
  ASSERT_TRUE(paused.ok()) << paused;
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(StatusOf(id), "paused");
  Outcome resumed = Runtime({"resume", id});
  ASSERT_TRUE(resumed.ok()) << resumed;
  const auto resumed_at = std::chrono::steady_clock::now();
  EXPECT_EQ(StatusOf(id), "running");
  Outcome ended = run.Wait();
  EXPECT_EQ(ended.status, 137) << ended;
  // Paused some 100 ms after its start, it had most of its 2 s left.
  EXPECT_GE(std::chrono::steady_clock::now() - resumed_at, std::chrono::seconds(1));
  EXPECT_THAT(ReadWholeFile(AuditPath()),
              HasSubstr(R"("event":"timeout","args":{"afterMs":2000,)"));
}

// Bad timeouts: one line naming the flag or annotation, and nothing made.
TEST_P(LifetimeTest, BadTimeoutsAreRefusedWithOneLine) {
  WriteConfig(Script("true"));
  Outcome zero = SpawnRun(NewId(), {"--timeout", "0"}).Wait();
  EXPECT_NE(zero.status, 0);
  EXPECT_TRUE(IsOneLine(zero.err)) << zero;
  EXPECT_THAT(zero.err, HasSubstr(R"(--timeout: "0" is not a duration above 0)"));

  WriteConfig(Annotated(R"({"dev.vigil.timeout": "10s"})", "true"));
  Outcome longer = SpawnRun(NewId(), {"--timeout", "1s"}).Wait();
  EXPECT_NE(longer.status, 0);
  EXPECT_TRUE(IsOneLine(longer.err)) << longer;
  EXPECT_THAT(longer.err, HasSubstr("annotation dev.vigil.timeout: \"10s\" is longer than the "
                                    "runtime's --timeout \"1s\""));

  WriteConfig(Annotated(R"({"dev.vigil.timeout-grace": "soon"})", "true"));
  Outcome grace = SpawnRun(NewId()).Wait();
  EXPECT_NE(grace.status, 0);
  EXPECT_TRUE(IsOneLine(grace.err)) << grace;
  EXPECT_THAT(grace.err, HasSubstr("annotation dev.vigil.timeout-grace"));
}

// `timeout 5 vigil run ...` sends TERM to the client: passed on to the init,
// which as a pid namespace's init ignores it; the KILL follows the grace.
TEST_P(LifetimeTest, AClientToldToStopEndsAContainerThatIgnoresIt) {
  WriteConfig(Annotated(R"({"dev.vigil.timeout-grace": "1s"})", "exec sleep 1000"));
  Child client = SpawnRun(NewId());
  WaitUntilRunning("sleep");
  ::kill(client.pid(), SIGTERM);
  Outcome run = client.Wait();
  EXPECT_EQ(run.status, 137) << run;
  EXPECT_THAT(ReadWholeFile(AuditPath()),
              HasSubstr(R"("event":"client-signal","args":{"signal":"SIGKILL")"));
}

// A killed client takes its foreground container with it, and the state,
// cgroup and processes go too (TearDown finds none).
TEST_P(LifetimeTest, AKilledClientTakesItsContainerWithIt) {
  WriteConfig(Script("exec sleep 1000"));
  const std::string id = NewId();
  Child client = SpawnRun(id);
  WaitUntilRunning("sleep");
  ::kill(client.pid(), SIGKILL);
  (void)client.Wait();
  EXPECT_TRUE(Eventually([&] { return RootEntries().empty(); })) << "the container's state stays";
  EXPECT_THAT(ReadWholeFile(AuditPath()),
              HasSubstr(R"("event":"client-gone","args":{"signal":"SIGKILL","processes":1})"));
}

// With --keep the container ends with its client but stays, stopped.
TEST_P(LifetimeTest, AKilledClientsKeptContainerStaysStopped) {
  WriteConfig(Script("exec sleep 1000"));
  const std::string id = NewId();
  Child client = SpawnRun(id, {"--keep"});
  WaitUntilRunning("sleep");
  ::kill(client.pid(), SIGKILL);
  (void)client.Wait();
  EXPECT_TRUE(WaitForStatus(id, "stopped")) << StatusOf(id);
  EXPECT_EQ(CountContainerProcesses("sleep"), 0);
}

// `run` deletes the container, not its audit: the log kept under the state
// root reads after it is gone, until --prune removes it.
TEST_P(LifetimeTest, TheAuditLogOutlivesTheContainer) {
  WriteConfig(Annotated(R"({"dev.vigil.timeout": "1s", "dev.vigil.timeout-grace": "0"})",
                        "exec sleep 1000"));
  const std::string id = NewId();
  Outcome run = Runtime({"run", "--bundle", bundle_, id});
  EXPECT_EQ(run.status, 137) << run;
  Outcome audit = Runtime({"audit", "--format", "json", id});
  ASSERT_EQ(audit.status, 0) << audit;
  EXPECT_THAT(audit.out, HasSubstr(R"("event":"timeout")"));
  // An exec's record says what ran and with which arguments.
  EXPECT_THAT(audit.out, HasSubstr(R"("syscall":"execve","args":{"path":"/bin/sh",)"
                                   R"("argv":"sh -c 'exec sleep 1000'","argc":3})"));
  Outcome pruned = Runtime({"audit", "--prune"});
  ASSERT_EQ(pruned.status, 0) << pruned;
  EXPECT_THAT(pruned.out, HasSubstr("/.audit/" + id + ".jsonl"));
  Outcome gone = Runtime({"audit", id});
  EXPECT_EQ(gone.status, 1);
  EXPECT_TRUE(IsOneLine(gone.err)) << gone;
}

// The cgroup limits at work are audit events: an OOM kill, and forks the
// pids limit refused.
TEST_P(LifetimeTest, OomKillsAndPidsLimitRefusalsAreAuditEvents) {
  BundleConfig oom = Script("dd if=/dev/zero of=/dev/null bs=64M count=1; echo dd=$?");
  oom.resources_json = R"({"memory": {"limit": 33554432}})";
  WriteConfig(oom);
  Outcome killed = SpawnRun(NewId()).Wait();
  ASSERT_TRUE(killed.ok()) << killed;
  EXPECT_EQ(killed.out, "dd=137\n");
  EXPECT_THAT(ReadWholeFile(AuditPath()),
              HasSubstr(R"("event":"oom-kill","args":{"processes":1},"decision":"kill")"));

  BundleConfig forks = Script("for i in 1 2 3 4 5 6 7 8 9; do sleep 1 & done; wait");
  forks.resources_json = R"({"pids": {"limit": 4}})";
  WriteConfig(forks);
  (void)SpawnRun(NewId()).Wait();
  EXPECT_THAT(ReadWholeFile(AuditPath()), HasSubstr(R"("event":"pids-limit","args":{"forks":)"));
}

INSTANTIATE_TEST_SUITE_P(Runtimes, LifetimeTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
