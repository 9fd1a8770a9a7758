// ParseSpec and DumpSpec for linux.resources, as spec_sections_test.cc
// tests the other sections.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tests/config/spec_sections.h"

namespace vigil::config {
namespace {

// ---- linux.resources --------------------------------------------------------

TEST(ResourcesTest, ParsesDeviceRules) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->devices,
            (std::vector<DeviceRule>{
                {.allow = false, .access = "rwm"},
                {.allow = true, .type = "c", .major = 1, .minor = 3, .access = "rw"},
                {.allow = true, .type = "b", .major = -1, .minor = -1, .access = "m"},
            }));
}

TEST(ResourcesTest, ParsesMemory) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->memory, (Memory{.limit = 536870912,
                                                         .reservation = 268435456,
                                                         .swap = -1,
                                                         .kernel = 0,
                                                         .kernel_tcp = 1024,
                                                         .swappiness = 60,
                                                         .disable_oom_killer = false,
                                                         .use_hierarchy = true,
                                                         .check_before_update = true}));
}

TEST(ResourcesTest, ParsesCpu) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->cpu, (Cpu{.shares = 1024,
                                                   .quota = 100000,
                                                   .burst = 5000,
                                                   .period = 100000,
                                                   .realtime_runtime = 950000,
                                                   .realtime_period = 1000000,
                                                   .cpus = "0-3",
                                                   .mems = "0",
                                                   .idle = 1}));
}

TEST(ResourcesTest, ParsesPids) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->pids, Pids{.limit = 32});
}

TEST(ResourcesTest, ParsesBlockIo) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->linux_spec->resources->block_io);
  const BlockIo& b = *spec->linux_spec->resources->block_io;
  EXPECT_EQ(b.weight, 500);
  EXPECT_EQ(b.leaf_weight, 300);
  EXPECT_EQ(b.weight_device,
            (std::vector<WeightDevice>{{.major = 8, .minor = 0, .weight = 600, .leaf_weight = 200},
                                       {.major = 8, .minor = 16}}));
  EXPECT_EQ(b.throttle_read_bps_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 1048576}}));
  EXPECT_EQ(b.throttle_write_bps_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 2097152}}));
  EXPECT_EQ(b.throttle_read_iops_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 100}}));
  EXPECT_EQ(b.throttle_write_iops_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 16, .rate = 200}}));
}

TEST(ResourcesTest, ParsesHugepageLimits) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->hugepage_limits,
            (std::vector<HugepageLimit>{{.page_size = "2MB", .limit = 209715200},
                                        {.page_size = "1GB", .limit = 0}}));
}

TEST(ResourcesTest, ParsesNetwork) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->network,
            (Network{.class_id = 1048577,
                     .priorities = {{.name = "eth0", .priority = 500}, {.name = "lo"}}}));
}

TEST(ResourcesTest, ParsesRdma) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->rdma,
            (std::map<std::string, Rdma>{{"mlx5_1", {.hca_handles = 3, .hca_objects = 10000}},
                                         {"mlx4-0", {.hca_handles = 1}}}));
}

TEST(ResourcesTest, ParsesUnified) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->unified,
            (std::map<std::string, std::string>{{"memory.high", "1073741824"},
                                                {"io.weight", "default 100"}}));
}

TEST(ResourcesTest, AbsentControllersStayUnset) {
  auto spec = ParseWith(R"("linux": {"resources": {"memory": {}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  const Resources& r = *spec->linux_spec->resources;
  EXPECT_EQ(r.memory, Memory{});
  EXPECT_FALSE(r.memory->limit);
  EXPECT_FALSE(r.memory->disable_oom_killer);
  EXPECT_FALSE(r.cpu);
  EXPECT_FALSE(r.pids);
  EXPECT_FALSE(r.block_io);
  EXPECT_FALSE(r.network);
  EXPECT_TRUE(r.devices.empty());
}

TEST(ResourcesTest, DeviceRuleErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"devices": [{"access": "rwm"}]}})"),
            "linux.resources.devices[0].allow: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"devices": [{"allow": true, "major": "8"}]}})"),
            R"(linux.resources.devices[0].major: expected integer, got string "8")");
}

TEST(ResourcesTest, MemoryErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"limit": "1g"}}})"),
            R"(linux.resources.memory.limit: expected integer, got string "1g")");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"swappiness": -1}}})"),
            "linux.resources.memory.swappiness: expected unsigned integer, got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"disableOOMKiller": 1}}})"),
            "linux.resources.memory.disableOOMKiller: expected boolean, got number 1");
}

TEST(ResourcesTest, CpuErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"cpu": {"shares": -1024}}})"),
            "linux.resources.cpu.shares: expected unsigned integer, got number -1024");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"cpu": {"cpus": 3}}})"),
            "linux.resources.cpu.cpus: expected string, got number 3");
}

TEST(ResourcesTest, PidsErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"pids": {}}})"),
            "linux.resources.pids.limit: required property is missing");
}

TEST(ResourcesTest, BlockIoErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"weightDevice": [
                           {"major": 8, "minor": 0, "weight": 65536}]}}})"),
            "linux.resources.blockIO.weightDevice[0].weight: expected unsigned 16-bit integer "
            "in [0, 65535], got number 65536");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"throttleWriteIOPSDevice": [
                           {"major": 8, "minor": 0}]}}})"),
            "linux.resources.blockIO.throttleWriteIOPSDevice[0].rate: required property is "
            "missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"weightDevice": [{"minor": 0}]}}})"),
            "linux.resources.blockIO.weightDevice[0].major: required property is missing");
}

TEST(ResourcesTest, HugepageLimitErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"hugepageLimits": [{"limit": 1}]}})"),
            "linux.resources.hugepageLimits[0].pageSize: required property is missing");
}

TEST(ResourcesTest, NetworkErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"network": {"priorities": [
                           {"name": "eth0", "priority": -1}]}}})"),
            "linux.resources.network.priorities[0].priority: expected unsigned 32-bit integer, "
            "got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"network": {"classID": "0x100001"}}})"),
            R"(linux.resources.network.classID: expected unsigned 32-bit integer, )"
            R"(got string "0x100001")");
}

TEST(ResourcesTest, RdmaErrorNamesTheDevice) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"rdma": {"mlx5_1": {"hcaHandles": "3"}}}})"),
            R"(linux.resources.rdma.mlx5_1.hcaHandles: expected unsigned 32-bit integer, )"
            R"(got string "3")");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"rdma": {"mlx4-0": []}}})"),
            R"(linux.resources.rdma["mlx4-0"]: expected object, got array)");
}

TEST(ResourcesTest, UnifiedErrorQuotesTheFile) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"unified": {"memory.high": 1073741824}}})"),
            R"(linux.resources.unified["memory.high"]: expected string, got number 1073741824)");
}

TEST(ResourcesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(
      R"("linux": {"resources": {"x-vendor": 1, "pids": {"limit": 5, "x-max": "max"},
                                 "memory": {"x-limit": "1g"}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources, (Resources{.memory = Memory{}, .pids = Pids{.limit = 5}}));
}

TEST(ResourcesTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kResources);
  ExpectParsesAndRoundTrips(
      R"("linux": {"resources": {"memory": {}, "cpu": {}, "blockIO": {}, "network": {}}})");
}

}  // namespace
}  // namespace vigil::config
