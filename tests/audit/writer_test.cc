// AuditWriter: records committed on one thread are encoded and written on
// another, on Flush, on its period, when the ring is half full and at the
// end; a full ring drops and counts, and the log marks the gap.
#include "sentry/audit/writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "base/file.h"
#include "base/strings.h"
#include "sentry/audit/reader.h"
#include "tests/support/temp_dir.h"

namespace vigil::sentry::audit {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kNever(3'600'000);  // a period no test waits for

void Fill(Record& record, int n) {
  record.time = "2026-12-02T04:00:00.000000001Z";
  record.container_id = "c";
  record.pid = n;
  record.tid = n;
  record.exe = "/bin/sh";
  record.syscall = "openat";
  record.args.assign({{.name = "path", .value = StrCat("/file", n)}});
  record.decision = Decision::kAllow;
  record.latency_us = 1;
}

class AuditWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_ + "/audit.jsonl"; }

  std::unique_ptr<AuditWriter> Start(milliseconds period, std::size_t slots) {
    Result<AuditLog> log = AuditLog::Open(path_);
    EXPECT_TRUE(log) << log.error().message;
    Result<std::unique_ptr<AuditWriter>> writer =
        AuditWriter::Start(std::move(*log), period, slots);
    EXPECT_TRUE(writer) << writer.error().message;
    return std::move(*writer);
  }
  // Commits records first..last (pids); false if one was dropped.
  static bool Commit(AuditWriter& writer, int first, int last) {
    for (int n = first; n <= last; ++n) {
      Record* record = writer.Claim();
      if (record == nullptr) return false;
      Fill(*record, n);
      writer.Commit();
    }
    return true;
  }
  std::vector<int> WrittenPids() {
    std::vector<int> pids;
    if (Result<std::vector<Record>> records = ReadAuditFile(path_)) {
      for (const Record& record : *records) pids.push_back(record.pid);
    }
    return pids;
  }
  // Waits (up to 10 s) until `count` records are in the file.
  bool EventuallyWritten(std::size_t count) {
    for (int i = 0; i < 1000; ++i) {
      if (WrittenPids().size() >= count) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  test::TempDir temp_{"audit-writer-test"};
  const std::string dir_ = temp_.path();
  std::string path_;
};

TEST_F(AuditWriterTest, FlushReturnsOnceEverythingCommittedIsWrittenInOrder) {
  std::unique_ptr<AuditWriter> writer = Start(kNever, 64);
  ASSERT_TRUE(Commit(*writer, 1, 3));
  writer->Flush();
  EXPECT_EQ(WrittenPids(), (std::vector<int>{1, 2, 3}));
  // Slots are reused round the ring: a second lap writes what it holds now.
  for (int lap = 0; lap < 3; ++lap) {
    ASSERT_TRUE(Commit(*writer, 10 + lap * 30, 10 + lap * 30 + 29));
    writer->Flush();
  }
  std::vector<int> pids = WrittenPids();
  ASSERT_EQ(pids.size(), 3u + 90u);
  for (std::size_t i = 3; i < pids.size(); ++i) EXPECT_EQ(pids[i], static_cast<int>(i) + 7);
  Result<std::vector<Record>> records = ReadAuditFile(path_);
  ASSERT_TRUE(records);
  EXPECT_EQ(records->back().args.at(0).value, "/file99");
}

TEST_F(AuditWriterTest, TheEndWritesWhatIsLeft) {
  {
    std::unique_ptr<AuditWriter> writer = Start(kNever, 64);
    ASSERT_TRUE(Commit(*writer, 1, 5));
  }
  EXPECT_EQ(WrittenPids(), (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST_F(AuditWriterTest, ThePeriodWritesWithoutAFlush) {
  std::unique_ptr<AuditWriter> writer = Start(milliseconds(20), 64);
  ASSERT_TRUE(Commit(*writer, 1, 2));
  EXPECT_TRUE(EventuallyWritten(2));
}

TEST_F(AuditWriterTest, AHalfFullRingWakesTheWriterBeforeItsPeriod) {
  std::unique_ptr<AuditWriter> writer = Start(kNever, 8);
  ASSERT_TRUE(Commit(*writer, 1, 3));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_TRUE(WrittenPids().empty());  // below half: waits for its period
  ASSERT_TRUE(Commit(*writer, 4, 4));
  EXPECT_TRUE(EventuallyWritten(4));
}

// A record given back (the repeat limiter's path for every repeat) is the
// same record on the next Claim, its contents and their storage kept: a
// slot constructed anew each time round would leak what the old one held.
TEST_F(AuditWriterTest, AnAbandonedRecordIsClaimedAgainAsItWasLeft) {
  std::unique_ptr<AuditWriter> writer = Start(kNever, 8);
  Record* first = writer->Claim();
  ASSERT_NE(first, nullptr);
  Fill(*first, 1);
  first->args[0].value.assign(200, 'p');  // on the heap, not in the string itself
  const char* storage = first->args[0].value.data();
  writer->Abandon();
  Record* again = writer->Claim();
  ASSERT_EQ(again, first);
  ASSERT_EQ(again->args.size(), 1u);
  EXPECT_EQ(again->args[0].value.data(), storage);
  Fill(*again, 2);
  writer->Commit();
  writer->Flush();
  EXPECT_EQ(WrittenPids(), (std::vector<int>{2}));
}

// The writer is held in a write to a full pipe, so the ring fills: what
// does not fit is dropped and counted, and every record submitted is in the
// output or in a "dropped" line.
TEST_F(AuditWriterTest, AFullRingDropsCountsAndMarksTheGap) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]);
  const std::string filler(static_cast<std::size_t>(::fcntl(pipe_fds[1], F_GETPIPE_SZ)), 'x');
  ASSERT_EQ(::write(pipe_fds[1], filler.data(), filler.size()),
            static_cast<ssize_t>(filler.size()));
  Result<std::unique_ptr<AuditWriter>> writer =
      AuditWriter::Start(AuditLog::Adopt(UniqueFd(pipe_fds[1]), "pipe"), kNever, 4);
  ASSERT_TRUE(writer);
  constexpr int kSubmitted = 50;
  int kept = 0;
  for (int n = 1; n <= kSubmitted; ++n) {
    if (Commit(**writer, n, n)) ++kept;
    if (n == 10) std::this_thread::sleep_for(milliseconds(50));  // the writer blocks meanwhile
  }
  ASSERT_GT((*writer)->dropped(), 0u);
  EXPECT_EQ(static_cast<std::uint64_t>(kept) + (*writer)->dropped(),
            static_cast<std::uint64_t>(kSubmitted));
  const std::uint64_t dropped = (*writer)->dropped();
  // Draining the pipe lets the writer go on; the end writes the rest.
  std::string output;
  std::thread reader([&] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(read_end.Get(), buffer, sizeof buffer)) > 0;) {
      output.append(buffer, static_cast<std::size_t>(n));
    }
  });
  writer->reset();
  reader.join();
  output.erase(0, filler.size());
  ASSERT_TRUE(WriteFileAtomic(path_, output, 0600, true));
  std::uint64_t dropped_in_file = 0;
  Result<std::vector<Record>> records = ReadAuditFile(path_, &dropped_in_file);
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ(records->size(), static_cast<std::size_t>(kept));
  EXPECT_EQ(dropped_in_file, dropped);
  // Each "dropped" line stands where its records would have been: the pid
  // after it is the one before it plus the count plus one.
  int next_pid = 1;
  for (std::string_view rest = output; !rest.empty();) {
    const std::size_t end = rest.find('\n');
    const std::string line(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    Result<json::Document> doc = json::Document::Parse(line);
    ASSERT_TRUE(doc) << line;
    if (std::optional<json::Value> count = doc->root().Find("dropped")) {
      next_pid += std::stoi(std::string(*count->NumberText()));
      continue;
    }
    Result<Record> record = DecodeRecord(line);
    ASSERT_TRUE(record) << line;
    EXPECT_EQ(record->pid, next_pid) << line;
    next_pid = record->pid + 1;
  }
  EXPECT_LE(next_pid, kSubmitted + 1);
}

}  // namespace
}  // namespace vigil::sentry::audit
