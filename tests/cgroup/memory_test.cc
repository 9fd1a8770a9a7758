// linux.resources.memory against v1 and v2 layouts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"
#include "tests/cgroup/resources_fixture.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kUnlimitedV1[] = "9223372036854771712\n";

class MemoryV1Test : public FamilyTest<&config::Resources::memory> {
 protected:
  void SetUp() override {
    hierarchies_ = {tree_.V1("memory", {"memory"})};
    for (const char* f : {"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"}) {
      tree_.File(std::string("memory/c/") + f, kUnlimitedV1);
    }
    for (const char* f : {"memory.soft_limit_in_bytes", "memory.swappiness", "memory.oom_control",
                          "memory.kmem.limit_in_bytes", "memory.kmem.tcp.limit_in_bytes"}) {
      tree_.File(std::string("memory/c/") + f);
    }
    tree_.File("memory/c/memory.usage_in_bytes", "5000000\n");
  }
  std::vector<std::string> Writes() const { return fs_.WritesUnder(tree_.Path("memory/c")); }
};

TEST_F(MemoryV1Test, LimitAlone) {
  ASSERT_TRUE(Apply({.limit = 67108864}));
  EXPECT_THAT(Writes(), ElementsAre("memory.limit_in_bytes=67108864"));
}

TEST_F(MemoryV1Test, GrowingSwapGoesFirst) {
  // Current limit (unlimited here, then 64M) below the new memory+swap:
  // memsw first, or the kernel refuses limit > memsw.
  tree_.File("memory/c/memory.limit_in_bytes", "67108864\n");
  tree_.File("memory/c/memory.memsw.limit_in_bytes", "67108864\n");
  ASSERT_TRUE(Apply({.limit = 134217728, .swap = 268435456}));
  EXPECT_THAT(Writes(), ElementsAre("memory.memsw.limit_in_bytes=268435456",
                                    "memory.limit_in_bytes=134217728"));
}

TEST_F(MemoryV1Test, ShrinkingLimitGoesFirst) {
  // Current limit unlimited, at least the new memory+swap: lower the limit,
  // then memsw (which must stay >= the limit).
  ASSERT_TRUE(Apply({.limit = 67108864, .swap = 134217728}));
  EXPECT_THAT(Writes(), ElementsAre("memory.limit_in_bytes=67108864",
                                    "memory.memsw.limit_in_bytes=134217728"));
}

TEST_F(MemoryV1Test, UnlimitedMemoryMeansUnlimitedSwapToo) {
  ASSERT_TRUE(Apply({.limit = -1}));
  EXPECT_THAT(Writes(), ElementsAre("memory.memsw.limit_in_bytes=-1", "memory.limit_in_bytes=-1"));
}

TEST_F(MemoryV1Test, OtherKnobs) {
  ASSERT_TRUE(Apply({.reservation = 1000,
                     .kernel = 12345,  // ignored
                     .kernel_tcp = 2000,
                     .swappiness = 10,
                     .disable_oom_killer = true}));
  EXPECT_THAT(Writes(),
              ElementsAre("memory.kmem.tcp.limit_in_bytes=2000", "memory.soft_limit_in_bytes=1000",
                          "memory.swappiness=10", "memory.oom_control=1"));
}

TEST_F(MemoryV1Test, KernelMemoryAloneIsANoOp) {
  ASSERT_TRUE(Apply({.kernel = 1 << 20}));
  EXPECT_THAT(Writes(), IsEmpty());
}

TEST_F(MemoryV1Test, SwappinessMinusOneIsUnsetAndOutOfRangeIsRefused) {
  ASSERT_TRUE(Apply({.swappiness = UINT64_MAX}));
  EXPECT_THAT(Writes(), IsEmpty());
  EXPECT_THAT(Apply({.swappiness = 101}).error().message,
              HasSubstr("linux.resources.memory.swappiness: must be in [0, 100]"));
}

TEST_F(MemoryV1Test, BusyLimitReportsTheUsage) {
  std::string file = tree_.Path("memory/c/memory.limit_in_bytes");
  fs_.write_errors[file] = {EBUSY};
  auto r = Apply({.limit = 4096});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EBUSY);
  EXPECT_EQ(r.error().message, "linux.resources.memory.limit: write " + file +
                                   ": Device or resource busy (the limit 4096 is below the "
                                   "current usage of 5000000 bytes)");
}

TEST_F(MemoryV1Test, SwapWithoutSwapAccountingIsAnError) {
  std::filesystem::remove(tree_.Path("memory/c/memory.memsw.limit_in_bytes"));
  EXPECT_THAT(Apply({.limit = 1000, .swap = 2000}).error().message,
              HasSubstr("linux.resources.memory.swap: swap accounting is off on this host"));
  // Unlimited swap is what there is anyway.
  fs_.writes.clear();
  ASSERT_TRUE(Apply({.limit = 1000, .swap = -1}));
  EXPECT_THAT(Writes(), ElementsAre("memory.limit_in_bytes=1000"));
}

TEST_F(MemoryV1Test, MissingControllerNamesTheField) {
  hierarchies_ = {tree_.V1("pids", {"pids"})};
  EXPECT_THAT(Apply({.reservation = 5}).error().message,
              HasSubstr("linux.resources.memory.reservation: the memory cgroup controller is not "
                        "available on this host"));
}

class MemoryV2Test : public FamilyTest<&config::Resources::memory> {
 protected:
  void SetUp() override {
    hierarchies_ = {tree_.V2("unified", {"memory", "pids"})};
    for (const char* f : {"memory.max", "memory.swap.max", "memory.low"}) {
      tree_.File(std::string("unified/c/") + f, "max\n");
    }
    tree_.File("unified/c/memory.current", "8192\n");
  }
  std::vector<std::string> Writes() const { return fs_.WritesUnder(tree_.Path("unified/c")); }
};

TEST_F(MemoryV2Test, SwapMaxIsSwapAlone) {
  ASSERT_TRUE(Apply({.limit = 1000, .reservation = 500, .swap = 3000}));
  EXPECT_THAT(Writes(), ElementsAre("memory.swap.max=2000", "memory.max=1000", "memory.low=500"));
}

TEST_F(MemoryV2Test, SwapEqualToLimitDisablesSwap) {
  ASSERT_TRUE(Apply({.limit = 1000, .swap = 1000}));
  EXPECT_THAT(Writes(), ElementsAre("memory.swap.max=0", "memory.max=1000"));
}

TEST_F(MemoryV2Test, MinusOneIsMax) {
  ASSERT_TRUE(Apply({.limit = -1}));
  EXPECT_THAT(Writes(), ElementsAre("memory.swap.max=max", "memory.max=max"));
}

TEST_F(MemoryV2Test, SwapNeedsALimit) {
  EXPECT_THAT(Apply({.swap = 3000}).error().message,
              HasSubstr("linux.resources.memory.swap: a memory+swap limit needs a memory limit"));
  EXPECT_THAT(Apply({.limit = 2000, .swap = 1000}).error().message,
              HasSubstr("below the memory limit"));
}

TEST_F(MemoryV2Test, NoSwapFileIsFineForMaxOrZero) {
  std::filesystem::remove(tree_.Path("unified/c/memory.swap.max"));
  ASSERT_TRUE(Apply({.limit = 1000, .swap = 1000}));
  ASSERT_TRUE(Apply({.limit = -1}));
  auto r = Apply({.limit = 1000, .swap = 2000});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("linux.resources.memory.swap: open "));
}

TEST_F(MemoryV2Test, V1OnlyKnobsAreRefused) {
  EXPECT_THAT(Apply({.swappiness = 60}).error().message,
              HasSubstr("linux.resources.memory.swappiness: cgroup v2 has no per-cgroup"));
  EXPECT_THAT(Apply({.disable_oom_killer = true}).error().message,
              HasSubstr("linux.resources.memory.disableOOMKiller: cgroup v2 cannot"));
  // kernel and kernelTCP are accounted in memory.max on v2: nothing to do.
  ASSERT_TRUE(Apply({.kernel = 1, .kernel_tcp = 1, .disable_oom_killer = false}));
  EXPECT_THAT(Writes(), IsEmpty());
}

TEST_F(MemoryV2Test, CheckBeforeUpdate) {
  EXPECT_THAT(Apply({.limit = 4096, .check_before_update = true}).error().message,
              HasSubstr("4096 is below the current usage of 8192 bytes (checkBeforeUpdate)"));
  EXPECT_TRUE(Apply({.limit = 16384, .check_before_update = true}));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
