// Reading audit files: truncated last lines, growing files, "dropped"
// lines, counts and the text people read.
#include "sentry/audit/reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "base/file.h"
#include "tests/support/temp_dir.h"

namespace vigil::sentry::audit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Record Make(std::string syscall, Decision decision, int error, pid_t pid = 7) {
  return Record{.time = "2026-11-29T11:00:00.123Z",
                .container_id = "c",
                .pid = pid,
                .tid = pid,
                .exe = "/bin/cat",
                .syscall = std::move(syscall),
                .decision = decision,
                .error = error,
                .latency_us = 4};
}

class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_ + "/audit.jsonl"; }
  void Append(const std::string& text) {
    FILE* f = std::fopen(path_.c_str(), "a");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }

  test::TempDir temp_{"audit-reader-test"};
  const std::string dir_ = temp_.path();
  std::string path_;
};

TEST_F(ReaderTest, ToleratesATruncatedLastLine) {
  std::string one = EncodeRecord(Make("openat", Decision::kAllow, 0, 1));
  std::string two = EncodeRecord(Make("connect", Decision::kDeny, EACCES, 2));
  Append(one + "\n" + two + "\n" + two.substr(0, 20));
  auto records = ReadAuditFile(path_);
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].pid, 1);
  EXPECT_EQ((*records)[1].syscall, "connect");
  EXPECT_EQ((*records)[1].error, EACCES);
}

TEST_F(ReaderTest, ABadLineInTheMiddleIsAnErrorNamingIt) {
  std::string one = EncodeRecord(Make("openat", Decision::kAllow, 0));
  Append(one + "\n{\"time\":\"x\"}\n" + one + "\n");
  auto records = ReadAuditFile(path_);
  ASSERT_FALSE(records);
  EXPECT_THAT(records.error().message, HasSubstr(path_ + ":2: audit record: missing field"));
}

TEST_F(ReaderTest, SkipsAndCountsDroppedLines) {
  std::string one = EncodeRecord(Make("openat", Decision::kAllow, 0));
  Append(one + "\n{\"time\":\"t\",\"dropped\":5}\n" + one + "\n{\"time\":\"u\",\"dropped\":2}\n");
  std::uint64_t dropped = 0;
  auto records = ReadAuditFile(path_, &dropped);
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ(records->size(), 2u);
  EXPECT_EQ(dropped, 7u);
  auto line = ParseAuditLine(R"({"time":"t","dropped":5})");
  ASSERT_TRUE(line);
  EXPECT_FALSE(line->record);
  EXPECT_EQ(line->dropped, 5u);
  EXPECT_EQ(line->time, "t");
  EXPECT_FALSE(ParseAuditLine(R"({"time":"t","dropped":"many"})"));
}

TEST_F(ReaderTest, AMissingFileIsAnError) {
  auto records = ReadAuditFile(dir_ + "/nope.jsonl");
  ASSERT_FALSE(records);
  EXPECT_EQ(records.error().code, ENOENT);
}

TEST_F(ReaderTest, TailReturnsOnlyCompleteLinesAsTheyCome) {
  AuditTail tail(path_);
  auto none = tail.ReadNewLines();  // not created yet
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
  Append("first\nsec");
  auto lines = tail.ReadNewLines();
  ASSERT_TRUE(lines);
  EXPECT_THAT(*lines, ElementsAre("first"));
  Append("ond\nthi");
  lines = tail.ReadNewLines();
  ASSERT_TRUE(lines);
  EXPECT_THAT(*lines, ElementsAre("second"));
  lines = tail.ReadNewLines();
  ASSERT_TRUE(lines);
  EXPECT_TRUE(lines->empty());
  Append("rd\n\nfourth\n");
  lines = tail.ReadNewLines();
  ASSERT_TRUE(lines);
  EXPECT_THAT(*lines, ElementsAre("third", "", "fourth"));
}

TEST_F(ReaderTest, TailStartsOverWhenTheFileIsTruncated) {
  AuditTail tail(path_);
  Append("a much longer first line\n");
  ASSERT_TRUE(tail.ReadNewLines());
  ASSERT_EQ(::truncate(path_.c_str(), 0), 0);
  Append("b\n");
  auto lines = tail.ReadNewLines();
  ASSERT_TRUE(lines);
  EXPECT_THAT(*lines, ElementsAre("b"));
}

TEST_F(ReaderTest, TailFollowsAReplacedFile) {
  AuditTail tail(path_);
  Append("old 1\n");
  ASSERT_TRUE(tail.ReadNewLines());
  std::string old_path = dir_ + "/audit.jsonl.1";
  ASSERT_EQ(::rename(path_.c_str(), old_path.c_str()), 0);  // rotated
  FILE* old_file = std::fopen(old_path.c_str(), "a");
  ASSERT_NE(old_file, nullptr);
  std::fputs("old 2\n", old_file);
  std::fclose(old_file);
  Append("new 1\n");
  auto lines = tail.ReadNewLines();
  ASSERT_TRUE(lines) << lines.error().message;
  EXPECT_THAT(*lines, ElementsAre("old 2", "new 1"));
}

TEST(SummaryTest, CountsPerSyscallDecisionAndErrno) {
  std::vector<Record> records = {
      Make("openat", Decision::kDeny, EACCES), Make("openat", Decision::kDeny, EACCES),
      Make("openat", Decision::kAllow, 0),     Make("connect", Decision::kDeny, EPERM),
      Make("uname", Decision::kEmulate, 0),    Make("openat", Decision::kDeny, ENOENT),
  };
  Summary s = Summarize(records, 3);
  EXPECT_EQ(s.total, 6u);
  EXPECT_EQ(s.dropped, 3u);
  EXPECT_EQ((s.by_syscall[{"openat", Decision::kDeny}]), 3u);
  EXPECT_EQ((s.by_syscall[{"openat", Decision::kAllow}]), 1u);
  EXPECT_EQ((s.by_syscall[{"connect", Decision::kDeny}]), 1u);
  EXPECT_EQ(s.by_syscall.size(), 4u);
  EXPECT_EQ(s.by_errno[EACCES], 2u);
  EXPECT_EQ(s.by_errno[EPERM], 1u);
  EXPECT_EQ(s.by_errno[ENOENT], 1u);
  EXPECT_EQ(s.by_errno.size(), 3u);
}

// A summary of repeats counts for the calls it stands for.
TEST(SummaryTest, SummariesOfRepeatsCountTheirCalls) {
  std::vector<Record> records = {Make("openat", Decision::kDeny, EACCES),
                                 Make("openat", Decision::kDeny, EACCES)};
  records[1].suppressed = 40;
  Summary s = Summarize(records);
  EXPECT_EQ(s.total, 42u);
  EXPECT_EQ(s.suppressed, 40u);
  EXPECT_EQ((s.by_syscall[{"openat", Decision::kDeny}]), 42u);
  EXPECT_EQ(s.by_errno[EACCES], 42u);
  EXPECT_NE(FormatRecord(records[1]).find("(and 40 more like it, suppressed)"), std::string::npos);
}

TEST(SummaryTest, FormatsAlignedTablesLargestFirst) {
  std::vector<Record> records;
  for (int i = 0; i < 12; ++i) records.push_back(Make("openat", Decision::kDeny, EACCES));
  records.push_back(Make("connect", Decision::kDeny, EPERM));
  records.push_back(Make("uname", Decision::kEmulate, 0));
  EXPECT_EQ(FormatSummary(Summarize(records, 1)),
            "COUNT  SYSCALL  DECISION\n"
            "   12  openat   deny\n"
            "    1  connect  deny\n"
            "    1  uname    emulate\n"
            "\n"
            "COUNT  ERRNO\n"
            "   12  EACCES\n"
            "    1  EPERM\n"
            "\n"
            "total 14, dropped 1, suppressed 0\n");
}

// The names the sandbox's resolver was asked, allowed and refused, in a
// table of their own.
TEST(SummaryTest, ListsTheNamesAskedAndRefused) {
  std::vector<Record> records;
  auto dns = [&](const char* name, Decision decision) {
    Record r = Make("", decision, 0);
    r.syscall.clear();
    r.event = "dns";
    r.args = {{"name", name, false}, {"type", "A", false}};
    records.push_back(r);
  };
  dns("api.example.com", Decision::kAllow);
  dns("api.example.com", Decision::kAllow);
  dns("c2vjcmv0.leak.test", Decision::kDeny);
  records.back().suppressed = 4;
  EXPECT_EQ(FormatSummary(Summarize(records)),
            "COUNT  SYSCALL  DECISION\n"
            "    5  dns      deny\n"
            "    2  dns      allow\n"
            "\n"
            "COUNT  NAME                DECISION\n"
            "    5  c2vjcmv0.leak.test  deny\n"
            "    2  api.example.com     allow\n"
            "\n"
            "total 7, dropped 0, suppressed 4\n");
}

TEST(FormatTest, OneRecordOnOneLine) {
  Record r = Make("openat", Decision::kDeny, EACCES, 12);
  r.args = {{"path", "/etc/shadow", false}, {"flags", "O_RDONLY", false}};
  EXPECT_EQ(FormatRecord(r),
            "2026-11-29T11:00:00.123Z  pid 12 tid 12  /bin/cat  "
            "openat(path=\"/etc/shadow\", flags=\"O_RDONLY\") = deny EACCES  4us");
  r.args = {{"fd", "3", true}, {"path", "a\nb", false}};
  r.decision = Decision::kAllow;
  r.error = 0;
  r.exe = "/tmp/x\ny";
  EXPECT_EQ(FormatRecord(r),
            "2026-11-29T11:00:00.123Z  pid 12 tid 12  \"/tmp/x\\ny\"  "
            "openat(fd=3, path=\"a\\nb\") = allow  4us");
  r.left_to_kernel = true;
  EXPECT_EQ(FormatRecord(r),
            "2026-11-29T11:00:00.123Z  pid 12 tid 12  \"/tmp/x\\ny\"  "
            "openat(fd=3, path=\"a\\nb\") = allow, left to the kernel  4us");
  Record event{.time = "T",
               .pid = 7,
               .tid = 7,
               .event = "timeout",
               .args = {{"signal", "SIGTERM", false}},
               .decision = Decision::kKill};
  EXPECT_EQ(FormatRecord(event), "T  pid 7  event timeout(signal=\"SIGTERM\") = kill  0us");
  EXPECT_EQ(FormatDropped("T", 3), "T  -- 3 records dropped (the writer's buffer was full) --");
}

}  // namespace
}  // namespace vigil::sentry::audit
