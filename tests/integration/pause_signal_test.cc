// A signal sent the moment a container is resumed reaches its handler, as a
// warm pool sends it: pause (plainly, and for vigil also with
// --release-memory), resume, kill USR1 at once, a hundred times, and the
// workload's handler counts every one. Against runc and vigil on both
// cgroup freezers (v1's freezer.state, v2's cgroup.freeze) and on both of
// the sentry's platforms.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

constexpr int kRounds = 100;

class PauseSignalTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    std::filesystem::create_directories(OutDir());
    // The handler writes its count whole (a rename), so a read never sees
    // half of it. sleep is short: busybox sh runs a trap when its
    // foreground child ends.
    BundleConfig config = Script(
        "n=0; trap 'n=$((n+1)); echo $n > /out/count.new; mv /out/count.new /out/count' USR1; "
        "touch /out/ready; while true; do sleep 0.05; done");
    config.extra_mounts_json = {BindMountJson("/out", OutDir())};
    WriteConfig(config);
  }

  std::string Count() { return ReadWholeFile(OutDir() + "/count"); }

  // Runs kRounds of pause (with `pause_flags`), resume, kill USR1; returns
  // the rounds whose signal the handler never counted.
  std::vector<int> LostSignals(const std::vector<std::string>& pause_flags) {
    const std::string id = NewId();
    CreateAndStart(id);
    if (HasFatalFailure()) return {};
    EXPECT_TRUE(Eventually([&] { return std::filesystem::exists(OutDir() + "/ready"); }));
    std::vector<std::string> pause = {"pause"};
    pause.insert(pause.end(), pause_flags.begin(), pause_flags.end());
    pause.push_back(id);
    std::vector<int> lost;
    int counted = 0;
    for (int round = 1; round <= kRounds; ++round) {
      Outcome paused = Runtime(pause);
      EXPECT_TRUE(paused.ok()) << paused;
      Outcome resumed = Runtime({"resume", id});
      EXPECT_TRUE(resumed.ok()) << resumed;
      Outcome killed = Runtime({"kill", id, "USR1"});
      EXPECT_TRUE(killed.ok()) << killed;
      if (!paused.ok() || !resumed.ok() || !killed.ok()) break;
      const std::string want = std::to_string(counted + 1) + "\n";
      if (Eventually([&] { return Count() == want; }, std::chrono::seconds(3))) {
        ++counted;
      } else {
        lost.push_back(round);
      }
    }
    return lost;
  }

  // Where the workload's /out is on the host (scratch_ is set in SetUp).
  std::string OutDir() const { return scratch_ + "/out"; }
};

TEST_P(PauseSignalTest, ASignalRightAfterResumeIsHandled) {
  EXPECT_THAT(LostSignals({}), ::testing::IsEmpty());
}

TEST_P(PauseSignalTest, ASignalRightAfterAReleasingPauseIsHandled) {
  if (IsRunc()) GTEST_SKIP() << "runc's pause has no --release-memory";
  if (std::string lacks = Cgroup2Lacks(GetParam(), {"memory"}); !lacks.empty())
    GTEST_SKIP() << lacks;
  EXPECT_THAT(LostSignals({"--release-memory"}), ::testing::IsEmpty());
}

std::vector<RuntimeUnderTest> PauseRuntimes() {
  std::vector<RuntimeUnderTest> runtimes = CgroupRuntimes();
  runtimes.push_back({"vigil_ptrace", VIGIL_BINARY, {"--platform=ptrace"}});
  return runtimes;
}

INSTANTIATE_TEST_SUITE_P(Runtimes, PauseSignalTest, ::testing::ValuesIn(PauseRuntimes()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
