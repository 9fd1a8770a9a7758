// KibFieldBytes: a "Key:   N kB" line of /proc/meminfo or /proc/PID/status.
#include "base/proc.h"

#include <gtest/gtest.h>

namespace vigil {
namespace {

constexpr std::string_view kStatus =
    "Name:\tpython3\nVmRSS:\t   20480 kB\nRssAnon:\t   1024 kB\nVmSwap:\t   92160 kB\n";

TEST(KibFieldBytesTest, ReadsTheKeysLineInBytes) {
  EXPECT_EQ(KibFieldBytes(kStatus, "VmSwap:"), 92160u * 1024);
  EXPECT_EQ(KibFieldBytes("MemTotal:       24576000 kB\n", "MemTotal:"), 24576000ull * 1024);
}

TEST(KibFieldBytesTest, AKeyInsideAnotherLineIsNotIt) {
  // "Anon:" is the tail of "RssAnon:", never a line of its own here.
  EXPECT_EQ(KibFieldBytes(kStatus, "Anon:"), 0u);
  EXPECT_EQ(KibFieldBytes(kStatus, "VmRSS:"), 20480u * 1024);
}

TEST(KibFieldBytesTest, AMissingKeyIsZero) { EXPECT_EQ(KibFieldBytes(kStatus, "SwapTotal:"), 0u); }

}  // namespace
}  // namespace vigil
