// Cgroup::ReleaseMemory (pause --release-memory): v1 squeezes the limit with
// swappiness 100 and puts both back whatever the kernel answered; v2 asks
// memory.reclaim for everything and takes EAGAIN (reclaimed less) as done.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ReclaimV1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    hierarchies_ = {tree_.V1("memory", {"memory"}), tree_.V2("unified", {})};
    tree_.File("memory/c/memory.usage_in_bytes", "209715200\n");
    tree_.File("memory/c/memory.limit_in_bytes", "2147483648\n");
    tree_.File("memory/c/memory.swappiness", "60\n");
  }
  std::string File(const std::string& name) { return tree_.Path("memory/c/" + name); }

  FakeTree tree_;
  FakeFs fs_;
  std::vector<Hierarchy> hierarchies_;
};

TEST_F(ReclaimV1Test, SqueezesWithSwappiness100ThenPutsBothBack) {
  // The kernel reclaims what it can, cannot reach the page, refuses.
  fs_.write_errors[File("memory.limit_in_bytes")] = {EBUSY};
  Result<MemoryRelease> release = Cgroup::Open(hierarchies_, "/c", fs_).ReleaseMemory();
  ASSERT_TRUE(release) << release.error().message;
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("memory/c")),
              ElementsAre("memory.swappiness=100", "memory.limit_in_bytes=4096",
                          "memory.limit_in_bytes=2147483648", "memory.swappiness=60"));
  EXPECT_EQ(release->before, 209715200u);
  EXPECT_THAT(fs_.WritesUnder(tree_.Path("unified/c")), ::testing::IsEmpty());
}

TEST_F(ReclaimV1Test, ALimitTheKernelTookIsPutBackToo) {
  Result<MemoryRelease> release = Cgroup::Open(hierarchies_, "/c", fs_).ReleaseMemory();
  ASSERT_TRUE(release) << release.error().message;
  EXPECT_EQ(tree_.Contents("memory/c/memory.limit_in_bytes"), "2147483648");
  EXPECT_EQ(tree_.Contents("memory/c/memory.swappiness"), "60");
}

TEST_F(ReclaimV1Test, AnotherErrorFailsAfterPuttingTheLimitBack) {
  fs_.write_errors[File("memory.limit_in_bytes")] = {EINVAL};
  Result<MemoryRelease> release = Cgroup::Open(hierarchies_, "/c", fs_).ReleaseMemory();
  ASSERT_FALSE(release);
  EXPECT_THAT(release.error().message, HasSubstr("memory.limit_in_bytes"));
  EXPECT_THAT(fs_.WritesTo(File("memory.limit_in_bytes")), ElementsAre("4096", "2147483648"));
  EXPECT_THAT(fs_.WritesTo(File("memory.swappiness")), ElementsAre("100", "60"));
}

TEST(ReclaimV2Test, AsksMemoryReclaimForEverythingAndTakesEagain) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V2("unified", {"memory"})};
  tree.File("unified/c/cgroup.controllers", "memory\n");
  tree.File("unified/c/memory.current", "104857600\n");
  tree.File("unified/c/memory.reclaim", "");
  fs.write_errors[tree.Path("unified/c/memory.reclaim")] = {EAGAIN};
  Result<MemoryRelease> release = Cgroup::Open(h, "/c", fs).ReleaseMemory();
  ASSERT_TRUE(release) << release.error().message;
  EXPECT_THAT(fs.WritesUnder(tree.Path("unified/c")), ElementsAre("memory.reclaim=104857600"));
}

TEST(ReclaimTest, NoMemoryControllerIsAnError) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("freezer", {"freezer"})};
  Result<MemoryRelease> release = Cgroup::Open(h, "/c", fs).ReleaseMemory();
  ASSERT_FALSE(release);
  EXPECT_THAT(release.error().message, HasSubstr("memory"));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
