// The audit record's JSON line: every field, escaping, errno names, and
// errors that name the field.
#include "sentry/audit/record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>

#include "base/json/json_reader.h"

namespace vigil::sentry::audit {

// Failures show the record as its JSON line.
void PrintTo(const Record& record, std::ostream* os) { *os << EncodeRecord(record); }

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Record Openat() {
  return Record{.time = "2026-11-29T11:00:00.123456789Z",
                .container_id = "web-1",
                .pid = 12,
                .tid = 13,
                .exe = "/bin/cat",
                .syscall = "openat",
                .args = {{"dirfd", "-100", true},
                         {"path", "/etc/shadow", false},
                         {"flags", "O_RDONLY|O_CLOEXEC", false},
                         {"mode", "0", true}},
                .decision = Decision::kDeny,
                .error = EACCES,
                .latency_us = 4};
}

TEST(RecordTest, EncodesEveryFieldInOrder) {
  EXPECT_EQ(EncodeRecord(Openat()),
            R"({"time":"2026-11-29T11:00:00.123456789Z","id":"web-1","pid":12,"tid":13,)"
            R"("exe":"/bin/cat","syscall":"openat","args":{"dirfd":-100,"path":"/etc/shadow",)"
            R"("flags":"O_RDONLY|O_CLOEXEC","mode":0},"decision":"deny","errno":"EACCES",)"
            R"("latencyUs":4})");
}

TEST(RecordTest, OmitsErrnoWhenZero) {
  Record r = Openat();
  r.decision = Decision::kAllow;
  r.error = 0;
  std::string line = EncodeRecord(r);
  EXPECT_THAT(line, Not(HasSubstr("errno")));
  EXPECT_THAT(line, HasSubstr(R"("decision":"allow")"));
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
}

TEST(RecordTest, MarksACallLeftToTheKernel) {
  Record r = Openat();
  r.decision = Decision::kAllow;
  r.error = 0;
  r.left_to_kernel = true;
  const std::string line = EncodeRecord(r);
  EXPECT_THAT(line, HasSubstr(R"("decision":"allow","leftToKernel":true,"latencyUs":4)"));
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
  EXPECT_THAT(EncodeRecord(Openat()), Not(HasSubstr("leftToKernel")));
  std::string wrong = line;
  wrong.replace(wrong.find("true"), 4, "1");
  auto bad = DecodeRecord(wrong);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("\"leftToKernel\": expected true or false"));
}

// What happened to the container: "event" where "syscall" would be.
TEST(RecordTest, EventRecordsStandInForASyscall) {
  Record r{.time = "2026-12-04T23:02:24.179937278Z",
           .container_id = "job-7",
           .pid = 15196,
           .tid = 15196,
           .event = "timeout",
           .args = {{"signal", "SIGKILL", false}, {"processes", "3", true}},
           .decision = Decision::kKill};
  const std::string line = EncodeRecord(r);
  EXPECT_EQ(line, R"({"time":"2026-12-04T23:02:24.179937278Z","id":"job-7","pid":15196,)"
                  R"("tid":15196,"exe":"","event":"timeout","args":{"signal":"SIGKILL",)"
                  R"("processes":3},"decision":"kill","latencyUs":0})");
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
}

TEST(RecordTest, RoundTripsEveryDecision) {
  for (Decision d : {Decision::kAllow, Decision::kDeny, Decision::kEmulate, Decision::kKill}) {
    Record r = Openat();
    r.decision = d;
    auto back = DecodeRecord(EncodeRecord(r));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->decision, d);
    EXPECT_EQ(ParseDecision(DecisionName(d)), d);
  }
  EXPECT_EQ(DecisionName(Decision::kEmulate), "emulate");
  EXPECT_EQ(ParseDecision("Deny"), std::nullopt);
}

TEST(RecordTest, RoundTripsOddStrings) {
  Record r = Openat();
  r.container_id = "a\"b\\c";
  r.exe = "/tmp/new\nline\ttab\x01";
  r.args = {{"path", "/home/j\xC3\xBCrgen/\xE6\x97\xA5\xE6\x9C\xAC/\"q\"", false},
            {"weird key\n", "", false},
            {"big", "18446744073709551615", true},
            {"neg", "-9223372036854775808", true}};
  std::string line = EncodeRecord(r);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one record, one line";
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
}

TEST(RecordTest, NonCanonicalNumbersAreWrittenAsStrings) {
  Record r = Openat();
  r.args = {
      {"mode", "0644", true}, {"flags", "0x80000", true}, {"huge", "18446744073709551616", true}};
  std::string line = EncodeRecord(r);
  EXPECT_THAT(line, HasSubstr(R"("mode":"0644","flags":"0x80000","huge":"18446744073709551616")"));
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->args[0].is_number);
  EXPECT_EQ(back->args[0].value, "0644");
}

TEST(RecordTest, InvalidUtf8StaysParseable) {
  Record r = Openat();
  r.exe = "/bin/\xff\xfe";
  auto back = DecodeRecord(EncodeRecord(r));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->exe, "/bin/??");
}

TEST(RecordTest, ErrnoNames) {
  EXPECT_EQ(ErrnoName(EACCES), "EACCES");
  EXPECT_EQ(ErrnoName(EPERM), "EPERM");
  EXPECT_EQ(ErrnoName(ENOSYS), "ENOSYS");
  EXPECT_EQ(ErrnoName(0), "");
  EXPECT_EQ(ErrnoName(100000), "");
  EXPECT_EQ(ParseErrnoName("ENOENT"), ENOENT);
  EXPECT_EQ(ParseErrnoName("EHWPOISON"), EHWPOISON);
  EXPECT_EQ(ParseErrnoName("EWOULDBLOCK"), EAGAIN);
  EXPECT_EQ(ParseErrnoName("ENOTSUP"), EOPNOTSUPP);
  EXPECT_EQ(ParseErrnoName("EBOGUS"), std::nullopt);
  EXPECT_EQ(ParseErrnoName(""), std::nullopt);
  // Every name glibc gives reads back as its number.
  for (int e = 1; e <= 133; ++e) {
    if (std::string_view name = ErrnoName(e); !name.empty()) {
      EXPECT_EQ(ParseErrnoName(name), e) << name;
    }
  }
}

TEST(RecordTest, UnnamedErrnoIsWrittenAsANumber) {
  Record r = Openat();
  r.error = 4000;
  std::string line = EncodeRecord(r);
  EXPECT_THAT(line, HasSubstr(R"("errno":4000)"));
  auto back = DecodeRecord(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->error, 4000);
}

TEST(RecordTest, ErrorsNameTheField) {
  auto missing = DecodeRecord(R"({"time":"t","id":"x","pid":1,"tid":1,"exe":"e",)"
                              R"("decision":"allow","latencyUs":1})");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "audit record: missing field \"syscall\"");

  std::string good = EncodeRecord(Openat());
  auto with = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return DecodeRecord(text.replace(at, from.size(), to));
  };
  auto pid = with(R"("pid":12)", R"("pid":"12")");
  ASSERT_FALSE(pid);
  EXPECT_THAT(pid.error().message, HasSubstr("\"pid\": expected integer"));
  auto tid = with(R"("tid":13)", R"("tid":99999999999)");
  ASSERT_FALSE(tid);
  EXPECT_THAT(tid.error().message, HasSubstr("\"tid\""));
  auto decision = with(R"("decision":"deny")", R"("decision":"maybe")");
  ASSERT_FALSE(decision);
  EXPECT_THAT(decision.error().message, HasSubstr("\"decision\""));
  auto error = with(R"("errno":"EACCES")", R"("errno":"EFOO")");
  ASSERT_FALSE(error);
  EXPECT_THAT(error.error().message, HasSubstr("unknown errno name \"EFOO\""));
  auto arg = with(R"("mode":0)", R"("mode":true)");
  ASSERT_FALSE(arg);
  EXPECT_THAT(arg.error().message, HasSubstr("\"args.mode\""));
  auto latency = with(R"("latencyUs":4)", R"("latencyUs":-4)");
  ASSERT_FALSE(latency);
  EXPECT_THAT(latency.error().message, HasSubstr("\"latencyUs\""));
  EXPECT_FALSE(DecodeRecord("[1]"));
  EXPECT_FALSE(DecodeRecord(good.substr(0, good.size() - 1)));  // truncated
}

TEST(RecordTest, UnknownKeysAndAbsentArgsAreAccepted) {
  auto r = DecodeRecord(R"({"time":"t","id":"x","pid":1,"tid":2,"exe":"e","syscall":"uname",)"
                        R"("decision":"emulate","latencyUs":3,"future":[1,2]})");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->args.empty());
  EXPECT_EQ(r->error, 0);
  EXPECT_EQ(r->tid, 2);
}

}  // namespace
}  // namespace vigil::sentry::audit
