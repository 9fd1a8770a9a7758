// linux.resources.cpu (bandwidth, shares, real-time) against v1 and v2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>

#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/controllers.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CpuSharesToWeightTest, RuncMapping) {
  EXPECT_EQ(CpuSharesToWeight(0), 0u);
  EXPECT_EQ(CpuSharesToWeight(2), 1u);
  EXPECT_EQ(CpuSharesToWeight(1024), 39u);
  EXPECT_EQ(CpuSharesToWeight(262144), 10000u);
  EXPECT_EQ(CpuSharesToWeight(1), 1u);  // clamped
  EXPECT_EQ(CpuSharesToWeight(1 << 20), 10000u);
}

class CpuTest : public FamilyTest<&config::Resources::cpu> {};

class CpuV1Test : public CpuTest {
 protected:
  void SetUp() override {
    hierarchies_ = {tree_.V1("cpu", {"cpu"}), tree_.V1("cpuacct", {"cpuacct"})};
    for (const char* f : {"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us",
                          "cpu.idle", "cpu.rt_period_us", "cpu.rt_runtime_us"}) {
      tree_.File(std::string("cpu/c/") + f);
    }
  }
  std::vector<std::string> Writes() const { return fs_.WritesUnder(tree_.Path("cpu/c")); }
};

TEST_F(CpuV1Test, AllKnobsInOrder) {
  ASSERT_TRUE(Apply({.shares = 512,
                     .quota = 50000,
                     .burst = 1000,
                     .period = 100000,
                     .realtime_runtime = 950,
                     .realtime_period = 1000,
                     .idle = 0}));
  EXPECT_THAT(Writes(), ElementsAre("cpu.shares=512", "cpu.cfs_period_us=100000",
                                    "cpu.cfs_quota_us=50000", "cpu.cfs_burst_us=1000", "cpu.idle=0",
                                    "cpu.rt_period_us=1000", "cpu.rt_runtime_us=950"));
}

TEST_F(CpuV1Test, ClampedSharesAreAnError) {
  fs_.stored_instead[tree_.Path("cpu/c/cpu.shares")] = "262144";
  EXPECT_THAT(Apply({.shares = 1000000}).error().message,
              HasSubstr("linux.resources.cpu.shares: the kernel took 1000000 as 262144 (the "
                        "allowed range is 2-262144)"));
}

TEST_F(CpuV1Test, RefusedPeriodIsRetriedAfterTheQuota) {
  fs_.write_errors[tree_.Path("cpu/c/cpu.cfs_period_us")] = {EINVAL};
  ASSERT_TRUE(Apply({.quota = 20000, .period = 50000}));
  EXPECT_THAT(Writes(), ElementsAre("cpu.cfs_period_us=50000", "cpu.cfs_quota_us=20000",
                                    "cpu.cfs_period_us=50000"));
}

TEST_F(CpuV1Test, RefusedPeriodWithoutQuotaIsAnError) {
  fs_.write_errors[tree_.Path("cpu/c/cpu.cfs_period_us")] = {EINVAL};
  EXPECT_THAT(Apply({.period = 50000}).error().message,
              HasSubstr("linux.resources.cpu.period: write " +
                        tree_.Path("cpu/c/cpu.cfs_period_us") + ": Invalid argument"));
}

TEST_F(CpuV1Test, UnlimitedQuota) {
  ASSERT_TRUE(Apply({.quota = -1}));
  EXPECT_THAT(Writes(), ElementsAre("cpu.cfs_quota_us=-1"));
}

TEST_F(CpuV1Test, RealtimeWithoutKernelSupportNamesTheField) {
  std::filesystem::remove(tree_.Path("cpu/c/cpu.rt_runtime_us"));
  EXPECT_THAT(Apply({.realtime_runtime = 100}).error().message,
              HasSubstr("linux.resources.cpu.realtimeRuntime: open " +
                        tree_.Path("cpu/c/cpu.rt_runtime_us")));
}

TEST_F(CpuV1Test, CpusAloneNeedsNoCpuController) {
  hierarchies_ = {tree_.V1("cpuset", {"cpuset"})};
  tree_.File("cpuset/c/cpuset.cpus");
  tree_.File("cpuset/c/cpuset.mems");
  EXPECT_TRUE(Apply({.cpus = "0"}));
  EXPECT_THAT(Apply({.shares = 10}).error().message,
              HasSubstr("linux.resources.cpu.shares: the cpu cgroup controller is not available"));
}

class CpuV2Test : public CpuTest {
 protected:
  void SetUp() override {
    hierarchies_ = {tree_.V2("unified", {"cpu", "cpuset"})};
    for (const char* f : {"cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle"}) {
      tree_.File(std::string("unified/c/") + f);
    }
  }
  std::vector<std::string> Writes() const { return fs_.WritesUnder(tree_.Path("unified/c")); }
};

TEST_F(CpuV2Test, WeightMaxAndBurst) {
  ASSERT_TRUE(Apply({.shares = 1024, .quota = 50000, .burst = 10, .period = 100000, .idle = 1}));
  EXPECT_THAT(Writes(), ElementsAre("cpu.weight=39", "cpu.idle=1", "cpu.max=50000 100000",
                                    "cpu.max.burst=10"));
}

TEST_F(CpuV2Test, MaxForms) {
  ASSERT_TRUE(Apply({.quota = 20000}));
  ASSERT_TRUE(Apply({.quota = -1, .period = 10000}));
  ASSERT_TRUE(Apply({.period = 10000}));
  EXPECT_THAT(fs_.WritesTo(tree_.Path("unified/c/cpu.max")),
              ElementsAre("20000", "max 10000", "max 10000"));
}

TEST_F(CpuV2Test, RealtimeIsRefused) {
  EXPECT_THAT(Apply({.realtime_period = 1000}).error().message,
              HasSubstr("linux.resources.cpu.realtimePeriod: cgroup v2 has no real-time"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
