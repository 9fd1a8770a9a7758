#include "sentry/audit/repeats.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vigil::sentry::audit {
namespace {

using Clock = RepeatLimiter::Clock;
using std::chrono::milliseconds;

Record Stat(std::string path, Decision decision = Decision::kAllow, int error = 0) {
  Record r;
  r.time = "t";
  r.container_id = "c";
  r.pid = 10;
  r.tid = 10;
  r.exe = "/bin/sh";
  r.syscall = "newfstatat";
  r.args = {{.name = "path", .value = std::move(path)}};
  r.decision = decision;
  r.error = error;
  return r;
}

RepeatLimiter Limiter(std::uint32_t burst, std::size_t kinds = 64) {
  return RepeatLimiter(
      RepeatLimiter::Limits{.burst = burst, .window = milliseconds(1000), .kinds = kinds});
}

TEST(RepeatLimiterTest, AFloodOfOneKindIsWrittenABurstAtATimeAndCounted) {
  RepeatLimiter limiter = Limiter(3);
  const Clock::time_point t0{};
  int written = 0;
  for (int i = 0; i < 100; ++i) written += limiter.Admit(Stat("/x"), t0 + milliseconds(i));
  EXPECT_EQ(written, 3);
  EXPECT_EQ(limiter.suppressed(), 97u);
  EXPECT_TRUE(limiter.due().empty()) << "the window is not over";
  // The next window: the count comes out as a summary first.
  Record next = Stat("/x");
  next.time = "t2";
  EXPECT_TRUE(limiter.Admit(next, t0 + milliseconds(1000)));
  ASSERT_EQ(limiter.due().size(), 1u);
  const Record& summary = limiter.due()[0];
  EXPECT_EQ(summary.suppressed, 97u);
  EXPECT_EQ(summary.time, "t2");
  EXPECT_TRUE(SameKind(summary, Stat("/x")));
}

TEST(RepeatLimiterTest, OtherKindsAreNotHeldBack) {
  RepeatLimiter limiter = Limiter(2);
  const Clock::time_point t0{};
  for (int i = 0; i < 10; ++i) limiter.Admit(Stat("/x"), t0);
  EXPECT_TRUE(limiter.Admit(Stat("/y"), t0));
  EXPECT_TRUE(limiter.Admit(Stat("/x", Decision::kDeny, 13), t0)) << "a denial is its own kind";
  Record other_process = Stat("/z");
  EXPECT_TRUE(limiter.Admit(other_process, t0));
  other_process.pid = other_process.tid = 11;  // a loop forking a process per call: one kind
  EXPECT_TRUE(limiter.Admit(other_process, t0));
  EXPECT_FALSE(limiter.Admit(other_process, t0));
  Record other_program = Stat("/z");
  other_program.exe = "/bin/cat";
  EXPECT_TRUE(limiter.Admit(other_program, t0));
}

// Two kinds that share a slot: each takeover hands over the count, so
// nothing is lost however an attacker interleaves them.
TEST(RepeatLimiterTest, AKindPushedOutOfItsSlotHandsOverItsCount) {
  RepeatLimiter limiter = Limiter(1, /*kinds=*/1);
  const Clock::time_point t0{};
  EXPECT_TRUE(limiter.Admit(Stat("/a"), t0));
  EXPECT_FALSE(limiter.Admit(Stat("/a"), t0));
  EXPECT_FALSE(limiter.Admit(Stat("/a"), t0));
  EXPECT_TRUE(limiter.Admit(Stat("/b"), t0));
  ASSERT_EQ(limiter.due().size(), 1u);
  EXPECT_EQ(limiter.due()[0].suppressed, 2u);
  EXPECT_EQ(limiter.due()[0].args[0].value, "/a");
}

TEST(RepeatLimiterTest, SweepSumsUpWindowsThatAreOver) {
  RepeatLimiter limiter = Limiter(1);
  const Clock::time_point t0{};
  limiter.Admit(Stat("/a"), t0);
  limiter.Admit(Stat("/a"), t0);
  limiter.Sweep(t0 + milliseconds(500), "mid");
  EXPECT_TRUE(limiter.due().empty());
  limiter.Sweep(t0 + milliseconds(1000), "end");
  ASSERT_EQ(limiter.due().size(), 1u);
  EXPECT_EQ(limiter.due()[0].time, "end");
  EXPECT_EQ(limiter.due()[0].suppressed, 1u);
  limiter.due().clear();
  limiter.Admit(Stat("/b"), t0 + milliseconds(1000));
  limiter.Admit(Stat("/b"), t0 + milliseconds(1000));
  limiter.Sweep(t0 + milliseconds(1001), "exit", /*all=*/true);
  ASSERT_EQ(limiter.due().size(), 1u);
  EXPECT_EQ(limiter.due()[0].args[0].value, "/b");
}

TEST(RecordTest, ASummaryRoundTrips) {
  Record r = Stat("/x");
  r.suppressed = 97;
  const std::string line = EncodeRecord(r);
  EXPECT_NE(line.find(R"("suppressed":97)"), std::string::npos) << line;
  Result<Record> back = DecodeRecord(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
  EXPECT_EQ(EncodeRecord(Stat("/x")).find("suppressed"), std::string::npos);
}

}  // namespace
}  // namespace vigil::sentry::audit
