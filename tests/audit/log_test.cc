// AuditLog: appends stay in memory until Flush, overflow is dropped and
// reported, and a failed or short write loses nothing.
#include "sentry/audit/log.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/file.h"
#include "sentry/audit/reader.h"
#include "tests/support/temp_dir.h"

namespace vigil::sentry::audit {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Record Sample(int n) {
  return Record{.time = "2026-11-29T11:00:00.000000001Z",
                .container_id = "c",
                .pid = n,
                .tid = n,
                .exe = "/bin/sh",
                .syscall = "openat",
                .args = {{"path", "/etc/passwd", false}},
                .decision = Decision::kAllow,
                .latency_us = 2};
}

std::size_t LineSize() { return EncodeRecord(Sample(1)).size() + 1; }

class AuditLogTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_ + "/audit.jsonl"; }
  std::string Contents() { return ReadFile(path_, 64 << 20).value_or("<unreadable>"); }

  test::TempDir temp_{"audit-log-test"};
  const std::string dir_ = temp_.path();
  std::string path_;
};

// Size-capped rotation: no file passes the cap (by more than one flush),
// max_files files are kept in all, the newest records in PATH.
TEST_F(AuditLogTest, RotatesBySizeKeepingMaxFiles) {
  auto log = AuditLog::Open(path_);
  ASSERT_TRUE(log) << log.error().message;
  log->SetRotation({.max_bytes = 4 * LineSize(), .max_files = 3});
  for (int i = 0; i < 40; ++i) {
    log->Append(Sample(i));
    ASSERT_TRUE(log->Flush());
  }
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(path_));
  EXPECT_TRUE(fs::exists(path_ + ".1"));
  EXPECT_TRUE(fs::exists(path_ + ".2"));
  EXPECT_FALSE(fs::exists(path_ + ".3"));
  for (const std::string& p : {path_, path_ + ".1", path_ + ".2"}) {
    EXPECT_LE(fs::file_size(p), 4 * LineSize()) << p;
  }
  Result<std::vector<Record>> newest = ReadAuditFile(path_);
  ASSERT_TRUE(newest);
  ASSERT_FALSE(newest->empty());
  EXPECT_EQ(newest->back().pid, 39);
  Result<std::vector<Record>> older = ReadAuditFile(path_ + ".1");
  ASSERT_TRUE(older);
  EXPECT_EQ(older->back().pid + 1, newest->front().pid) << "nothing lost between the two";
}

TEST_F(AuditLogTest, OneFileMeansNoOldOnesKept) {
  auto log = AuditLog::Open(path_);
  ASSERT_TRUE(log);
  log->SetRotation({.max_bytes = 2 * LineSize(), .max_files = 1});
  for (int i = 0; i < 10; ++i) {
    log->Append(Sample(i));
    ASSERT_TRUE(log->Flush());
  }
  EXPECT_FALSE(std::filesystem::exists(path_ + ".1"));
  EXPECT_LE(std::filesystem::file_size(path_), 2 * LineSize());
}

// Another supervisor sharing the file rotated it: this one moves to the
// new file rather than rotating again.
TEST_F(AuditLogTest, ALogRotatedByAnotherWriterIsReopened) {
  auto first = AuditLog::Open(path_);
  auto second = AuditLog::Open(path_);
  ASSERT_TRUE(first && second);
  first->SetRotation({.max_bytes = 2 * LineSize(), .max_files = 3});
  second->SetRotation({.max_bytes = 2 * LineSize(), .max_files = 3});
  for (int i = 0; i < 2; ++i) {
    first->Append(Sample(i));
    ASSERT_TRUE(first->Flush());
  }
  first->Append(Sample(2));
  ASSERT_TRUE(first->Flush());  // rotated: audit.jsonl.1 holds 0 and 1
  second->Append(Sample(3));
  ASSERT_TRUE(second->Flush());  // its file is .1 now, and full: it reopens
  EXPECT_FALSE(std::filesystem::exists(path_ + ".2"));
  Result<std::vector<Record>> current = ReadAuditFile(path_);
  ASSERT_TRUE(current);
  ASSERT_EQ(current->size(), 2u);
  EXPECT_EQ((*current)[1].pid, 3);
}

TEST_F(AuditLogTest, OpenCreatesTheFilePrivate) {
  auto log = AuditLog::Open(path_);
  ASSERT_TRUE(log) << log.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(::fcntl(log->fd(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  EXPECT_NE(::fcntl(log->fd(), F_GETFL) & O_APPEND, 0);
}

TEST_F(AuditLogTest, OpenNeedsTheDirectory) {
  auto log = AuditLog::Open(dir_ + "/missing/audit.jsonl");
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error().code, ENOENT);
  EXPECT_THAT(log.error().message, HasSubstr(dir_ + "/missing/audit.jsonl"));
}

TEST_F(AuditLogTest, AppendWritesNothingUntilFlush) {
  auto log = AuditLog::Open(path_);
  ASSERT_TRUE(log);
  log->Append(Sample(1));
  log->Append(Sample(2));
  EXPECT_EQ(Contents(), "");
  EXPECT_EQ(log->pending_bytes(), 2 * LineSize());
  ASSERT_TRUE(log->Flush());
  EXPECT_EQ(log->pending_bytes(), 0u);
  EXPECT_EQ(Contents(), EncodeRecord(Sample(1)) + "\n" + EncodeRecord(Sample(2)) + "\n");
  log->Append(Sample(3));
  ASSERT_TRUE(log->Flush());
  auto records = ReadAuditFile(path_);
  ASSERT_TRUE(records);
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[2].pid, 3);
}

TEST_F(AuditLogTest, AppendsToAnExistingFile) {
  ASSERT_TRUE(WriteFileAtomic(path_, "earlier\n", 0600, true));
  {
    auto log = AuditLog::Open(path_);
    ASSERT_TRUE(log);
    log->Append(Sample(1));
  }  // the destructor flushes
  EXPECT_EQ(Contents(), "earlier\n" + EncodeRecord(Sample(1)) + "\n");
}

TEST_F(AuditLogTest, OverflowIsDroppedCountedAndReported) {
  auto log = AuditLog::Open(path_, 3 * LineSize());
  ASSERT_TRUE(log);
  for (int i = 1; i <= 5; ++i) log->Append(Sample(i));
  EXPECT_EQ(log->dropped(), 2u);
  EXPECT_EQ(log->pending_bytes(), 3 * LineSize());
  ASSERT_TRUE(log->Flush());
  std::string text = Contents();
  std::string kept = EncodeRecord(Sample(1)) + "\n" + EncodeRecord(Sample(2)) + "\n" +
                     EncodeRecord(Sample(3)) + "\n";
  ASSERT_EQ(text.substr(0, kept.size()), kept);
  std::string note = text.substr(kept.size());
  ASSERT_TRUE(note.ends_with("\n"));
  note.pop_back();
  EXPECT_THAT(note, StartsWith(R"({"time":")"));
  EXPECT_THAT(note, EndsWith(R"(Z","dropped":2})"));
  auto parsed = ParseAuditLine(note);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->record);
  EXPECT_EQ(parsed->dropped, 2u);
  EXPECT_EQ(parsed->time.size(), std::string_view("2026-11-29T11:00:00.000000001Z").size());

  // Reported once; the buffer has room again.
  log->Append(Sample(6));
  ASSERT_TRUE(log->Flush());
  EXPECT_EQ(log->dropped(), 2u);
  std::uint64_t dropped = 0;
  auto records = ReadAuditFile(path_, &dropped);
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 4u);
  EXPECT_EQ(records->back().pid, 6);
  EXPECT_EQ(dropped, 2u);
}

TEST_F(AuditLogTest, WantsFlushPastTheHighWaterMark) {
  auto log = AuditLog::Open(path_, 8 * LineSize());
  ASSERT_TRUE(log);
  for (int i = 0; i < 3; ++i) log->Append(Sample(i));
  EXPECT_FALSE(log->WantsFlush());
  log->Append(Sample(4));
  EXPECT_TRUE(log->WantsFlush());  // half the capacity, below 64 KiB
  ASSERT_TRUE(log->Flush());
  EXPECT_FALSE(log->WantsFlush());

  auto big = AuditLog::Open(path_);
  ASSERT_TRUE(big);
  std::size_t appended = 0;
  while (!big->WantsFlush()) {
    big->Append(Sample(1));
    appended += LineSize();
    ASSERT_LT(appended, AuditLog::kHighWater + LineSize());
  }
  EXPECT_GE(appended, AuditLog::kHighWater);
}

TEST_F(AuditLogTest, AFailedFlushKeepsTheData) {
  // /dev/full fails every write with ENOSPC.
  auto log = AuditLog::Open("/dev/full");
  ASSERT_TRUE(log) << log.error().message;
  log->Append(Sample(1));
  auto flushed = log->Flush();
  ASSERT_FALSE(flushed);
  EXPECT_EQ(flushed.error().code, ENOSPC);
  EXPECT_THAT(flushed.error().message, HasSubstr("/dev/full"));
  EXPECT_EQ(log->pending_bytes(), LineSize());
}

TEST_F(AuditLogTest, AShortWriteIsContinuedAndTheRestKept) {
  // A non-blocking pipe takes what fits (a short write), then says EAGAIN.
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  UniqueFd read_end(fds[0]);
  int pipe_size = ::fcntl(fds[1], F_SETPIPE_SZ, 4096);
  ASSERT_GE(pipe_size, 4096);
  AuditLog log = AuditLog::Adopt(UniqueFd(fds[1]), "pipe", 1 << 20);
  std::string expected;
  for (int i = 0; expected.size() < 3 * static_cast<std::size_t>(pipe_size); ++i) {
    log.Append(Sample(i));
    expected += EncodeRecord(Sample(i)) + "\n";
  }
  std::string got;
  char buf[65536];
  for (int round = 0; round < 100 && got.size() < expected.size(); ++round) {
    std::size_t before = log.pending_bytes();
    Result<void> flushed = log.Flush();
    if (!flushed) {
      EXPECT_EQ(flushed.error().code, EAGAIN);
      EXPECT_GT(log.pending_bytes(), 0u);
      EXPECT_LT(log.pending_bytes(), before);  // the short write counted
    }
    ssize_t n;
    while ((n = ::read(read_end.Get(), buf, sizeof buf)) > 0) got.append(buf, n);
  }
  EXPECT_EQ(log.pending_bytes(), 0u);
  EXPECT_EQ(got, expected);  // every byte once, in order
}

TEST_F(AuditLogTest, AMovedLogKeepsItsBuffer) {
  auto opened = AuditLog::Open(path_);
  ASSERT_TRUE(opened);
  opened->Append(Sample(1));
  AuditLog moved = std::move(*opened);
  ASSERT_TRUE(moved.Flush());
  EXPECT_EQ(Contents(), EncodeRecord(Sample(1)) + "\n");
}

}  // namespace
}  // namespace vigil::sentry::audit
