// pause --release-memory on any host, swap or none: the page cache a paused
// sandbox holds is given back, `state` says what stayed and why, the
// annotation makes a plain `pause` do it, and resume finds the workload's
// memory as it was. The anonymous-memory case needs swap:
// pause_release_swap.cc. vigil only: runc's pause only freezes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/file.h"
#include "tests/integration/harness/paused_memory.h"
#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kMiB = 1 << 20;

class PauseReleaseTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    out_ = scratch_ + "/out";
    std::filesystem::create_directories(out_);
  }

  BundleConfig WithOut(const std::string& script, const std::string& annotations = "{}") {
    BundleConfig config = Script(script);
    config.extra_mounts_json = {BindMountJson("/out", out_)};
    config.annotations_json = annotations;
    return config;
  }

  std::optional<PausedMemoryView> Memory(const std::string& id) {
    return PausedMemoryIn(Runtime({"state", id}).out);
  }

  std::string out_;
};

// 64 MiB written by the container, then synced: clean page cache charged to
// its cgroup, which the release drops whether or not the host has swap.
TEST_P(PauseReleaseTest, TheAnnotationMakesAPlainPauseDropThePageCache) {
  WriteConfig(
      WithOut("dd if=/dev/zero of=/out/cache bs=1M count=64 2>/dev/null; sync; "
              "touch /out/ready; while true; do sleep 1; done",
              R"({"dev.vigil.pause-release-memory": "true"})"));
  const std::string id = NewId();
  CreateAndStart(id);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/ready"); }));
  EXPECT_FALSE(Memory(id).has_value()) << "a running container shows no paused memory";

  Outcome pause = Runtime({"pause", id});
  ASSERT_TRUE(pause.ok()) << pause;
  EXPECT_EQ(StatusOf(id), "paused");
  std::optional<PausedMemoryView> memory = Memory(id);
  ASSERT_TRUE(memory) << Runtime({"state", id}).out;
  ASSERT_TRUE(memory->released);
  EXPECT_GE(memory->before, memory->after + 48 * kMiB)
      << "before " << memory->before << ", after " << memory->after;
  EXPECT_LE(memory->resident, memory->before - 48 * kMiB);
  const std::string meminfo = *ReadFile("/proc/meminfo", 1 << 16);
  if (meminfo.find("SwapTotal:             0 kB") != std::string::npos) {
    EXPECT_THAT(memory->note, HasSubstr("no swap on this host"));
  }

  ASSERT_TRUE(Runtime({"resume", id}).ok());
  EXPECT_EQ(StatusOf(id), "running");
  ASSERT_TRUE(Runtime({"pause", id}).ok());  // with the annotation: releases again
  memory = Memory(id);
  ASSERT_TRUE(memory);
  EXPECT_TRUE(memory->released);
}

// Without the flag or the annotation a pause only freezes: nothing is
// released, and state says what is resident.
TEST_P(PauseReleaseTest, APlainPauseOnlyFreezes) {
  WriteConfig(WithOut("touch /out/ready; while true; do sleep 1; done"));
  const std::string id = NewId();
  CreateAndStart(id);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/ready"); }));
  ASSERT_TRUE(Runtime({"pause", id}).ok());
  std::optional<PausedMemoryView> memory = Memory(id);
  ASSERT_TRUE(memory);
  EXPECT_FALSE(memory->released);
  EXPECT_GT(memory->resident, 0u);
}

// The heap a shell holds comes back intact after a release and resume:
// released pages come back from swap, or never left without it.
TEST_P(PauseReleaseTest, TheWorkloadsMemoryIsIntactAfterResume) {
  WriteConfig(WithOut(HeapHolderScript(16)));
  const std::string id = NewId();
  CreateAndStart(id);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/sum.0"); }));
  Outcome pause = Runtime({"pause", "--release-memory", id});
  ASSERT_TRUE(pause.ok()) << pause;
  ASSERT_TRUE(Runtime({"resume", id}).ok());
  EXPECT_FALSE(Memory(id).has_value()) << "a resumed container shows no paused memory";
  ASSERT_TRUE(Runtime({"kill", id, "USR1"}).ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(out_ + "/sum.1"); }));
  EXPECT_EQ(ReadWholeFile(out_ + "/sum.1"), ReadWholeFile(out_ + "/sum.0"));
}

// A value no pause could honour is refused at create, leaving nothing
// (TearDown checks), rather than at the first pause.
TEST_P(PauseReleaseTest, ABadAnnotationValueIsRefusedAtCreate) {
  WriteConfig(
      WithOut("while true; do sleep 1; done", R"({"dev.vigil.pause-release-memory": "yes"})"));
  Outcome create = Create(NewId());
  EXPECT_NE(create.status, 0);
  EXPECT_THAT(create.err, HasSubstr("annotation dev.vigil.pause-release-memory: \"yes\" is "
                                    "neither \"true\" nor \"false\""));
}

INSTANTIATE_TEST_SUITE_P(Runtimes, PauseReleaseTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
