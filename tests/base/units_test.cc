#include "base/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vigil {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

TEST(ParseBytesTest, ReadsRuncSizes) {
  EXPECT_EQ(*ParseBytes("--memory", "1048576"), 1048576);
  EXPECT_EQ(*ParseBytes("--memory", "512k"), 512 << 10);
  EXPECT_EQ(*ParseBytes("--memory", "64m"), 64 << 20);
  EXPECT_EQ(*ParseBytes("--memory", "64MiB"), 64 << 20);
  EXPECT_EQ(*ParseBytes("--memory", "2 GB"), std::int64_t{2} << 30);
  EXPECT_EQ(*ParseBytes("--memory", "1.5g"), std::int64_t{3} << 29);
  EXPECT_EQ(*ParseBytes("--memory", "-1"), -1);
}

TEST(ParseBytesTest, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "m", "1x", "1..5m", ".5m", "5.m", "-2", "1mm"}) {
    auto r = ParseBytes("--memory", bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("--memory: invalid size")) << bad;
  }
  EXPECT_THAT(ParseBytes("--memory", "9000000p").error().message, HasSubstr("too large"));
}

TEST(ParseGoDurationTest, ReadsGoDurations) {
  EXPECT_EQ(*ParseGoDuration("--interval", "5s"), seconds(5));
  EXPECT_EQ(*ParseGoDuration("--interval", "500ms"), milliseconds(500));
  EXPECT_EQ(*ParseGoDuration("--interval", "1m30s"), seconds(90));
  EXPECT_EQ(*ParseGoDuration("--interval", "1.5h"), seconds(5400));
  EXPECT_EQ(*ParseGoDuration("--interval", "250us"), nanoseconds(250000));
  EXPECT_EQ(*ParseGoDuration("--interval", "0"), nanoseconds(0));
  EXPECT_EQ(*ParseGoDuration("--interval", "-2s"), seconds(-2));
}

TEST(ParseGoDurationTest, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "5", "s", "5x", "1.2.3s"}) {
    auto r = ParseGoDuration("--interval", bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("--interval: invalid duration")) << bad;
  }
}

}  // namespace
}  // namespace vigil
