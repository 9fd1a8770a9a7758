// `vigil audit` as a user runs it: a container record and an audit file in
// a temporary --root, each output mode, --follow until the container stops,
// and the errors.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "base/file.h"
#include "base/proc.h"
#include "runtime/container/state_dir.h"
#include "sentry/audit/record.h"
#include "tests/support/temp_dir.h"

namespace vigil::sentry::audit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) { return ReadFile(path, 1 << 20).value_or(""); }

Record Make(std::string syscall, Decision decision, int error, pid_t pid) {
  return Record{.time = "2026-11-29T11:00:00.123456789Z",
                .container_id = "box",
                .pid = pid,
                .tid = pid,
                .exe = "/bin/cat",
                .syscall = std::move(syscall),
                .args = {{"path", "/etc/shadow", false}},
                .decision = decision,
                .error = error,
                .latency_us = 4};
}

class AuditCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ + "/root";
    allow_ = EncodeRecord(Make("openat", Decision::kAllow, 0, 10));
    deny_ = EncodeRecord(Make("openat", Decision::kDeny, EACCES, 11));
    kill_ = EncodeRecord(Make("ptrace", Decision::kKill, 0, 12));
  }
  void TearDown() override {
    if (supervisor_ > 0) {
      ::kill(supervisor_, SIGKILL);
      ::waitpid(supervisor_, nullptr, 0);
    }
  }

  // A container record as `create` leaves it (its log the kept one unless
  // `audit_path`); `supervisor` 0: stopped.
  void MakeContainer(const std::string& id, const std::string& audit_path = "",
                     pid_t supervisor = 0) {
    auto state = runtime::StateDir::Create(root_, id);
    ASSERT_TRUE(state) << state.error().message;
    std::filesystem::create_directories(root_ + "/.audit");
    runtime::ContainerRecord record{
        .id = id,
        .bundle = dir_,
        .audit_path = audit_path.empty() ? DefaultAuditPath(id) : audit_path};
    record.status =
        supervisor ? config::ContainerStatus::kRunning : config::ContainerStatus::kStopped;
    if (supervisor) {
      record.supervisor_pid = supervisor;
      auto start = ProcessStartTime(supervisor);
      ASSERT_TRUE(start);
      record.supervisor_start = *start;
    }
    ASSERT_TRUE(state->SaveRecord(record));
  }
  std::string DefaultAuditPath(const std::string& id) { return root_ + "/.audit/" + id + ".jsonl"; }
  void AppendTo(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "a");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }

  Outcome Vigil(const std::string& args) {
    std::string out = dir_ + "/stdout", err = dir_ + "/stderr";
    // An empty PATH: no Docker client answers for a name (hermetic).
    std::string command = "env PATH=" + dir_ + " " + std::string(VIGIL_BINARY) + " --root " +
                          root_ + " " + args + " >" + out + " 2>" + err;
    int raw = std::system(command.c_str());
    return Outcome{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Slurp(out), Slurp(err)};
  }

  test::TempDir temp_{"audit-cli-test"};
  const std::string dir_ = temp_.path();
  std::string root_;
  std::string allow_, deny_, kill_;
  pid_t supervisor_ = 0;
};

TEST_F(AuditCliTest, PrintsRecordsAsText) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("box"), allow_ + "\n" + deny_ + "\n" + deny_.substr(0, 30));
  Outcome r = Vigil("audit box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "2026-11-29T11:00:00.123456789Z  pid 10 tid 10  /bin/cat  "
            "openat(path=\"/etc/shadow\") = allow  4us\n"
            "2026-11-29T11:00:00.123456789Z  pid 11 tid 11  /bin/cat  "
            "openat(path=\"/etc/shadow\") = deny EACCES  4us\n");
}

TEST_F(AuditCliTest, DeniedKeepsDenyAndKill) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("box"), allow_ + "\n" + deny_ + "\n" + kill_ + "\n");
  Outcome r = Vigil("audit --denied --format json box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, deny_ + "\n" + kill_ + "\n");
}

TEST_F(AuditCliTest, JsonPrintsTheLinesAsStored) {
  MakeContainer("box");
  std::string dropped = R"({"time":"2026-11-29T11:00:01Z","dropped":3})";
  AppendTo(DefaultAuditPath("box"), allow_ + "\n" + dropped + "\n" + deny_ + "\n");
  Outcome r = Vigil("audit --format=json box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, allow_ + "\n" + dropped + "\n" + deny_ + "\n");
  Outcome text = Vigil("audit box");
  EXPECT_THAT(text.out, HasSubstr("2026-11-29T11:00:01Z  -- 3 records dropped"));
}

TEST_F(AuditCliTest, SummaryCountsWhatTheFiltersKeep) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("box"), allow_ + "\n" + deny_ + "\n" + deny_ + "\n" + kill_ + "\n" +
                                        R"({"time":"t","dropped":2})" + "\n");
  Outcome r = Vigil("audit --summary box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "COUNT  SYSCALL  DECISION\n"
            "    2  openat   deny\n"
            "    1  openat   allow\n"
            "    1  ptrace   kill\n"
            "\n"
            "COUNT  ERRNO\n"
            "    2  EACCES\n"
            "\n"
            "total 4, dropped 2, suppressed 0\n");
  Outcome denied = Vigil("audit --summary --denied box");
  ASSERT_EQ(denied.status, 0) << denied.err;
  EXPECT_THAT(denied.out, Not(HasSubstr("allow")));
  EXPECT_THAT(denied.out, HasSubstr("total 3, dropped 2"));
}

TEST_F(AuditCliTest, ReadsTheRecordsAuditPath) {
  std::string elsewhere = dir_ + "/elsewhere.jsonl";
  MakeContainer("box", elsewhere);
  AppendTo(elsewhere, deny_ + "\n");
  AppendTo(DefaultAuditPath("box"), allow_ + "\n");  // not this one
  Outcome r = Vigil("audit --format json box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, deny_ + "\n");
}

TEST_F(AuditCliTest, NoAuditFileYetPrintsNothing) {
  MakeContainer("box");
  Outcome r = Vigil("audit box");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST_F(AuditCliTest, UnknownContainerIsOneErrorLine) {
  MakeContainer("box");
  Outcome r = Vigil("audit nope");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "vigil: audit: no container \"nope\" (an id, the start of one, or a Docker "
            "name) in " +
                root_ + "; a log elsewhere: --file\n");
}

// The log outlives its container (`run`, `delete`) until --prune.
TEST_F(AuditCliTest, TheKeptLogOutlivesItsContainer) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("box"), deny_ + "\n");
  std::filesystem::remove_all(root_ + "/box");  // as delete leaves it
  Outcome r = Vigil("audit --format json box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, deny_ + "\n");
}

// What rotation moved aside (LOG.2, LOG.1) is read before the current
// file, oldest first, for a container's log as for --file.
TEST_F(AuditCliTest, RotatedFilesAreReadFirstOldestFirst) {
  MakeContainer("box");
  const std::string log = DefaultAuditPath("box");
  AppendTo(log + ".2", allow_ + "\n");
  AppendTo(log + ".1", deny_ + "\n");
  AppendTo(log, kill_ + "\n");
  Outcome r = Vigil("audit --format json box");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, allow_ + "\n" + deny_ + "\n" + kill_ + "\n");
  Outcome file = Vigil("audit --format json --file " + log);
  EXPECT_EQ(file.out, r.out);
  // A bad line names the file it is in, and its line there.
  AppendTo(log + ".1", "not json\n");
  Outcome bad = Vigil("audit box");
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.err, HasSubstr(log + ".1:2: "));
}

// --file reads any log; an id keeps that container's records of a log
// several containers share (an --audit path, the annotation's directory).
TEST_F(AuditCliTest, FileReadsAnyLogAndAnIdFiltersIt) {
  const std::string shared = dir_ + "/shared.jsonl";
  Record other = Make("connect", Decision::kDeny, EPERM, 13);
  other.container_id = "other";
  AppendTo(shared, deny_ + "\n" + EncodeRecord(other) + "\n");
  Outcome all = Vigil("audit --format json --file " + shared);
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out, deny_ + "\n" + EncodeRecord(other) + "\n");
  Outcome one = Vigil("audit --format json --file " + shared + " other");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, EncodeRecord(other) + "\n");
  MakeContainer("box", shared);
  Outcome by_record = Vigil("audit --format json box");
  ASSERT_EQ(by_record.status, 0) << by_record.err;
  EXPECT_EQ(by_record.out, deny_ + "\n");
  Outcome missing = Vigil("audit --file " + dir_ + "/none.jsonl");
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.err, HasSubstr("none.jsonl: No such file or directory"));
}

// --prune removes the kept logs of containers that are gone (rotated files
// too), not those of containers that exist, nor recent ones with --older-than.
TEST_F(AuditCliTest, PruneRemovesTheLogsOfContainersThatAreGone) {
  MakeContainer("live");
  AppendTo(DefaultAuditPath("live"), allow_ + "\n");
  AppendTo(DefaultAuditPath("gone"), allow_ + "\n");
  AppendTo(DefaultAuditPath("gone") + ".1", allow_ + "\n");
  Outcome recent = Vigil("audit --prune --older-than 1h");
  ASSERT_EQ(recent.status, 0) << recent.err;
  EXPECT_EQ(recent.out, "");
  Outcome pruned = Vigil("audit --prune");
  ASSERT_EQ(pruned.status, 0) << pruned.err;
  EXPECT_THAT(pruned.out, HasSubstr(DefaultAuditPath("gone") + "\n"));
  EXPECT_THAT(pruned.out, HasSubstr(DefaultAuditPath("gone") + ".1\n"));
  EXPECT_FALSE(std::filesystem::exists(DefaultAuditPath("gone")));
  EXPECT_FALSE(std::filesystem::exists(DefaultAuditPath("gone") + ".1"));
  EXPECT_TRUE(std::filesystem::exists(DefaultAuditPath("live")));
  EXPECT_EQ(Vigil("audit --prune box").status, 1);
  EXPECT_EQ(Vigil("audit --older-than 1h box").status, 1);
}

// Without an id: the audited containers, the deleted ones' kept logs too.
TEST_F(AuditCliTest, WithoutAnIdListsTheAuditedContainers) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("gone"), "");
  Outcome r = Vigil("audit");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ID"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("box +stopped +" + DefaultAuditPath("box")));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("gone +deleted +" + DefaultAuditPath("gone")));
}

// A prefix of one id is that container, as Docker's short ids are.
TEST_F(AuditCliTest, APrefixOfOneIdIsThatContainer) {
  MakeContainer("0123456789abcdef");
  Record record = Make("connect", Decision::kDeny, EPERM, 13);
  record.container_id = "0123456789abcdef";
  AppendTo(DefaultAuditPath("0123456789abcdef"), EncodeRecord(record) + "\n");
  Outcome r = Vigil("audit --format json 0123456789ab");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, EncodeRecord(record) + "\n");
}

TEST_F(AuditCliTest, BadArgumentsAreOneErrorLine) {
  MakeContainer("box");
  Outcome r = Vigil("audit extra arguments");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "vigil: audit: unexpected argument \"arguments\"\n");
  r = Vigil("audit --format yaml box");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "vigil: audit: unknown format \"yaml\": use \"text\" or \"json\"\n");
  r = Vigil("audit --summary --follow box");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("--summary"));
}

TEST_F(AuditCliTest, ACorruptLineNamesTheFileAndLine) {
  MakeContainer("box");
  AppendTo(DefaultAuditPath("box"), allow_ + "\nnot json\n");
  Outcome r = Vigil("audit box");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("vigil: audit: " + DefaultAuditPath("box") + ":2: "));
}

TEST_F(AuditCliTest, FollowPrintsNewRecordsUntilTheContainerStops) {
  // A stand-in supervisor: the container runs while it lives.
  supervisor_ = ::fork();
  ASSERT_GE(supervisor_, 0);
  if (supervisor_ == 0) {
    ::pause();
    ::_exit(0);
  }
  MakeContainer("box", "", supervisor_);
  std::string path = DefaultAuditPath("box");
  AppendTo(path, allow_ + "\n");

  std::string out = dir_ + "/follow.out";
  pid_t vigil = ::fork();
  ASSERT_GE(vigil, 0);
  if (vigil == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::execl(VIGIL_BINARY, VIGIL_BINARY, "--root", root_.c_str(), "audit", "--follow", "--format",
            "json", "box", nullptr);
    ::_exit(127);
  }
  auto exited = [&](std::chrono::milliseconds within, int* status) {
    for (auto end = std::chrono::steady_clock::now() + within;
         std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
      if (::waitpid(vigil, status, WNOHANG) == vigil) return true;
    }
    return false;
  };
  int status = 0;
  ASSERT_FALSE(exited(std::chrono::milliseconds(600), &status)) << "exited while running";
  EXPECT_EQ(Slurp(out), allow_ + "\n");
  AppendTo(path, deny_ + "\n" + kill_.substr(0, 10));  // the last line half written
  ASSERT_FALSE(exited(std::chrono::milliseconds(600), &status));
  EXPECT_EQ(Slurp(out), allow_ + "\n" + deny_ + "\n");
  AppendTo(path, kill_.substr(10) + "\n");

  ::kill(supervisor_, SIGKILL);  // the container stops
  ::waitpid(supervisor_, nullptr, 0);
  supervisor_ = 0;
  bool done = exited(std::chrono::seconds(5), &status);
  if (!done) {
    ::kill(vigil, SIGKILL);
    ::waitpid(vigil, nullptr, 0);
  }
  ASSERT_TRUE(done) << "--follow did not notice the stop";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Slurp(out), allow_ + "\n" + deny_ + "\n" + kill_ + "\n");
}

}  // namespace
}  // namespace vigil::sentry::audit
