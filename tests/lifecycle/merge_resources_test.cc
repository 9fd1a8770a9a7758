// `vigil update`'s rule for folding new limits into a container's: what the
// changes set replaces, what they leave unset stays (runc's update).
#include <gtest/gtest.h>

#include "lifecycle/update.h"

namespace vigil::lifecycle {
namespace {

config::Resources Current() {
  config::Resources current;
  current.memory = config::Memory{.limit = 100 << 20, .swap = 200 << 20, .swappiness = 10};
  current.cpu = config::Cpu{.shares = 512, .quota = 50000, .period = 100000, .cpus = "0-1"};
  current.pids = config::Pids{.limit = 64};
  current.hugepage_limits = {{.page_size = "2MB", .limit = 1 << 21}};
  current.unified = {{"memory.high", "max"}};
  return current;
}

TEST(MergeResourcesTest, WhatTheChangesSetReplacesAndTheRestStays) {
  config::Resources into = Current();
  config::Resources changes;
  changes.memory = config::Memory{.limit = 300 << 20};
  changes.cpu = config::Cpu{.quota = 20000, .mems = "0"};
  MergeResources(changes, into);

  EXPECT_EQ(into.memory->limit, 300 << 20);
  EXPECT_EQ(into.memory->swap, 200 << 20);
  EXPECT_EQ(into.memory->swappiness, 10u);
  EXPECT_EQ(into.cpu->quota, 20000);
  EXPECT_EQ(into.cpu->shares, 512u);
  EXPECT_EQ(into.cpu->period, 100000u);
  EXPECT_EQ(into.cpu->cpus, "0-1");
  EXPECT_EQ(into.cpu->mems, "0");
  EXPECT_EQ(into.pids->limit, 64);
}

TEST(MergeResourcesTest, ASectionTheContainerLacksIsMadeFromTheChanges) {
  config::Resources into;
  config::Resources changes;
  changes.block_io = config::BlockIo{.weight = 300};
  changes.network = config::Network{.class_id = 7};
  changes.pids = config::Pids{.limit = 10};
  MergeResources(changes, into);
  EXPECT_EQ(into.block_io, changes.block_io);
  EXPECT_EQ(into.network, changes.network);
  EXPECT_EQ(into.pids, changes.pids);
}

TEST(MergeResourcesTest, UnlimitedMemoryAloneMakesSwapUnlimited) {
  config::Resources into = Current();
  config::Resources changes;
  changes.memory = config::Memory{.limit = -1};
  MergeResources(changes, into);
  EXPECT_EQ(into.memory->swap, -1);

  into = Current();
  changes.memory = config::Memory{.limit = -1, .swap = 500 << 20};
  MergeResources(changes, into);
  EXPECT_EQ(into.memory->swap, 500 << 20);
}

TEST(MergeResourcesTest, KeyedListsMergeByKey) {
  config::Resources into = Current();
  config::Resources changes;
  changes.hugepage_limits = {{.page_size = "2MB", .limit = 1 << 22},
                             {.page_size = "1GB", .limit = 0}};
  changes.unified = {{"pids.max", "20"}};
  changes.rdma = {{"mlx5_0", {.hca_handles = 3}}};
  MergeResources(changes, into);
  ASSERT_EQ(into.hugepage_limits.size(), 2u);
  EXPECT_EQ(into.hugepage_limits[0].limit, 1u << 22);
  EXPECT_EQ(into.hugepage_limits[1].page_size, "1GB");
  EXPECT_EQ(into.unified.at("memory.high"), "max");
  EXPECT_EQ(into.unified.at("pids.max"), "20");
  EXPECT_EQ(into.rdma.at("mlx5_0").hca_handles, 3u);
}

}  // namespace
}  // namespace vigil::lifecycle
