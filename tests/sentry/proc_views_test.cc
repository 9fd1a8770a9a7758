// The container's views of /proc/meminfo, cpuinfo and stat, from host text.
#include "sentry/handlers/proc_views.h"

#include <gtest/gtest.h>

namespace vigil::sentry {
namespace {

constexpr std::string_view kMeminfo =
    "MemTotal:       24684092 kB\n"
    "MemFree:        21706632 kB\n"
    "MemAvailable:   23702376 kB\n"
    "Buffers:           10496 kB\n"
    "Cached:          2080000 kB\n"
    "SwapCached:            0 kB\n"
    "Active:          1107304 kB\n"
    "SwapTotal:       1048572 kB\n"
    "SwapFree:        1048572 kB\n"
    "Shmem:             10340 kB\n";

TEST(ProcViewsTest, MeminfoShowsTheCgroupsMemory) {
  const std::string view = MeminfoView(
      kMeminfo, MemoryView{.limit = 256u << 20, .usage = 100u << 20, .cache = 20u << 20});
  EXPECT_EQ(view,
            "MemTotal:         262144 kB\n"
            "MemFree:          159744 kB\n"
            "MemAvailable:     180224 kB\n"
            "Buffers:               0 kB\n"
            "Cached:            20480 kB\n"
            "SwapCached:            0 kB\n"
            "Active:          1107304 kB\n"
            "SwapTotal:             0 kB\n"
            "SwapFree:              0 kB\n"
            "Shmem:             10340 kB\n");
}

TEST(ProcViewsTest, MeminfoWithoutALimitIsTheHosts) {
  EXPECT_EQ(MeminfoView(kMeminfo, std::nullopt), kMeminfo);
  // A limit above the host's memory is the host's memory.
  const std::string view =
      MeminfoView(kMeminfo, MemoryView{.limit = std::uint64_t{1} << 40, .usage = 0});
  EXPECT_TRUE(view.starts_with("MemTotal:       24684092 kB\n")) << view;
}

constexpr std::string_view kCpuinfo =
    "processor\t: 0\nmodel name\t: zero\n\n"
    "processor\t: 1\nmodel name\t: one\n\n"
    "processor\t: 2\nmodel name\t: two\n\n"
    "processor\t: 3\nmodel name\t: three\n\n";

TEST(ProcViewsTest, CpuinfoListsTheAllowedCpusRenumbered) {
  EXPECT_EQ(CpuinfoView(kCpuinfo, CpuView{.allowed_mask = 0b1010}),
            "processor\t: 0\nmodel name\t: one\n\n"
            "processor\t: 1\nmodel name\t: three\n\n");
  // A quota of one CPU shows one.
  EXPECT_EQ(CpuinfoView(kCpuinfo, CpuView{.allowed_mask = 0b1111, .limit = 1}),
            "processor\t: 0\nmodel name\t: zero\n\n");
}

TEST(ProcViewsTest, StatSumsTheVisibleCpus) {
  constexpr std::string_view stat =
      "cpu  10 20 30\n"
      "cpu0 1 2 3\n"
      "cpu1 2 4 6\n"
      "cpu2 3 6 9\n"
      "cpu3 4 8 12\n"
      "intr 5 0\n"
      "btime 1795942936\n";
  EXPECT_EQ(StatView(stat, CpuView{.allowed_mask = 0b0110}),
            "cpu  5 10 15\n"
            "cpu0 2 4 6\n"
            "cpu1 3 6 9\n"
            "intr 5 0\n"
            "btime 1795942936\n");
}

TEST(ProcViewsTest, OnlyThosePathsAreViews) {
  EXPECT_EQ(ProcViewOf("/proc/meminfo"), ProcView::kMeminfo);
  EXPECT_EQ(ProcViewOf("/proc/cpuinfo"), ProcView::kCpuinfo);
  EXPECT_EQ(ProcViewOf("/proc/stat"), ProcView::kStat);
  EXPECT_EQ(ProcViewOf("/proc/1/stat"), ProcView::kNone);
  EXPECT_EQ(ProcViewOf("/tmp/proc/meminfo"), ProcView::kNone);
}

}  // namespace
}  // namespace vigil::sentry
