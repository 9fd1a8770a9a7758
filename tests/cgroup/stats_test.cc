#include "runtime/cgroup/stats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/cgroup/fake_tree.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(StatsTest, HybridV1Files) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("memory", {"memory"}), tree.V1("pids", {"pids"}),
                              tree.V1("cpu", {"cpu"}), tree.V1("cpuacct", {"cpuacct"}),
                              tree.V2("unified", {"hugetlb"})};
  tree.File("memory/c/memory.usage_in_bytes", "1000\n");
  tree.File("memory/c/memory.max_usage_in_bytes", "2000\n");
  tree.File("memory/c/memory.limit_in_bytes", "67108864\n");
  tree.File("memory/c/memory.failcnt", "3\n");
  tree.File("memory/c/memory.memsw.usage_in_bytes", "1500\n");
  tree.File("memory/c/memory.memsw.limit_in_bytes", "9223372036854771712\n");
  tree.File("memory/c/memory.stat", "cache 400\nrss 600\n");
  tree.File("pids/c/pids.current", "2\n");
  tree.File("pids/c/pids.max", "10\n");
  tree.File("cpuacct/c/cpuacct.usage", "5000000\n");
  tree.File("cpuacct/c/cpuacct.usage_user", "3000000\n");
  tree.File("cpuacct/c/cpuacct.usage_sys", "2000000\n");
  tree.File("cpuacct/c/cpuacct.usage_percpu", "4000000 1000000 \n");
  tree.File("cpu/c/cpu.stat", "nr_periods 7\nnr_throttled 2\nthrottled_time 900\n");
  auto s = Cgroup::Open(h, "/c", fs).ReadStats();
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->memory);
  EXPECT_EQ(s->memory->usage, 1000u);
  EXPECT_EQ(s->memory->max_usage, 2000u);
  EXPECT_EQ(s->memory->limit, 67108864u);
  EXPECT_EQ(s->memory->failcnt, 3u);
  EXPECT_EQ(s->memory->swap_usage, 1500u);
  EXPECT_EQ(s->memory->swap_limit, 9223372036854771712u);
  EXPECT_EQ(s->memory->cache, 400u);
  EXPECT_EQ(s->memory->raw.at("rss"), 600u);
  ASSERT_TRUE(s->pids);
  EXPECT_EQ(s->pids->current, 2u);
  EXPECT_EQ(s->pids->limit, 10u);
  ASSERT_TRUE(s->cpu);
  EXPECT_EQ(s->cpu->usage_total, 5000000u);
  EXPECT_EQ(s->cpu->usage_user, 3000000u);
  EXPECT_EQ(s->cpu->usage_kernel, 2000000u);
  EXPECT_THAT(s->cpu->usage_percpu, ElementsAre(4000000u, 1000000u));
  EXPECT_EQ(s->cpu->periods, 7u);
  EXPECT_EQ(s->cpu->throttled_periods, 2u);
  EXPECT_EQ(s->cpu->throttled_time, 900u);
}

TEST(StatsTest, V1CpuacctStatTicks) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("cpuacct", {"cpuacct"})};
  tree.File("cpuacct/c/cpuacct.usage", "5\n");
  tree.File("cpuacct/c/cpuacct.stat", "user 2\nsystem 1\n");
  auto s = Cgroup::Open(h, "/c", fs).ReadStats();
  ASSERT_TRUE(s) << s.error().message;
  std::uint64_t tick = 1000000000 / static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK));
  EXPECT_EQ(s->cpu->usage_user, 2 * tick);
  EXPECT_EQ(s->cpu->usage_kernel, tick);
  EXPECT_FALSE(s->memory);
  EXPECT_FALSE(s->pids);
}

TEST(StatsTest, V2Files) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V2("unified", {"cpu", "memory", "pids"})};
  tree.File("unified/c/memory.current", "1000\n");
  tree.File("unified/c/memory.peak", "3000\n");
  tree.File("unified/c/memory.max", "max\n");
  tree.File("unified/c/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
  tree.File("unified/c/memory.swap.current", "24\n");
  tree.File("unified/c/memory.swap.max", "max\n");
  tree.File("unified/c/memory.stat", "anon 600\nfile 400\n");
  tree.File("unified/c/pids.current", "1\n");
  tree.File("unified/c/pids.max", "max\n");
  tree.File("unified/c/cpu.stat",
            "usage_usec 50\nuser_usec 30\nsystem_usec 20\nnr_periods 9\nnr_throttled 1\n"
            "throttled_usec 7\n");
  auto s = Cgroup::Open(h, "/c", fs).ReadStats();
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->memory->usage, 1000u);
  EXPECT_EQ(s->memory->max_usage, 3000u);
  EXPECT_EQ(s->memory->limit, UINT64_MAX);
  EXPECT_EQ(s->memory->failcnt, 4u);
  EXPECT_EQ(s->memory->swap_usage, 1024u);
  EXPECT_EQ(s->memory->swap_limit, UINT64_MAX);
  EXPECT_EQ(s->memory->cache, 400u);
  EXPECT_EQ(s->pids->limit, 0u);  // unlimited
  EXPECT_EQ(s->cpu->usage_total, 50000u);
  EXPECT_EQ(s->cpu->usage_user, 30000u);
  EXPECT_EQ(s->cpu->usage_kernel, 20000u);
  EXPECT_EQ(s->cpu->periods, 9u);
  EXPECT_EQ(s->cpu->throttled_time, 7000u);
  EXPECT_TRUE(s->cpu->usage_percpu.empty());
}

TEST(StatsTest, UnreadableFileNamesTheSection) {
  FakeTree tree;
  FakeFs fs;
  std::vector<Hierarchy> h = {tree.V1("pids", {"pids"})};
  tree.File("pids/c/pids.current", "1\n");
  EXPECT_THAT(Cgroup::Open(h, "/c", fs).ReadStats().error().message,
              HasSubstr("pids stats: open " + tree.Path("pids/c/pids.max")));
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
