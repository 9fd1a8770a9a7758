#include "base/time.h"

#include <gtest/gtest.h>

#include <regex>

namespace vigil {
namespace {

TEST(FormatRfc3339Nano, WritesUtcWithNineFractionDigits) {
  std::string out = "left over from before";
  FormatRfc3339Nano({.tv_sec = 0, .tv_nsec = 5}, out);
  EXPECT_EQ(out, "1970-01-01T00:00:00.000000005Z");
  FormatRfc3339Nano({.tv_sec = 1796115600, .tv_nsec = 123456789}, out);
  EXPECT_EQ(out, "2026-12-01T09:00:00.123456789Z");
}

TEST(FormatRfc3339Nano, TheCachedSecondFollowsTheClock) {
  std::string out;
  FormatRfc3339Nano({.tv_sec = 1796115600, .tv_nsec = 1}, out);
  FormatRfc3339Nano({.tv_sec = 1796115600, .tv_nsec = 999999999}, out);
  EXPECT_EQ(out, "2026-12-01T09:00:00.999999999Z");
  FormatRfc3339Nano({.tv_sec = 1796115601, .tv_nsec = 0}, out);
  EXPECT_EQ(out, "2026-12-01T09:00:01.000000000Z");
  FormatRfc3339Nano({.tv_sec = 1796115600, .tv_nsec = 0}, out);  // back again
  EXPECT_EQ(out, "2026-12-01T09:00:00.000000000Z");
}

TEST(Rfc3339NanoNow, HasTheShapeGoPrints) {
  EXPECT_TRUE(
      std::regex_match(Rfc3339NanoNow(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z)")));
}

}  // namespace
}  // namespace vigil
