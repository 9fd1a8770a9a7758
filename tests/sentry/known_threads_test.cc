// What the sentry keeps about workload threads between their syscalls
// (KnownThreads), end to end with a child under the filter: kept while the
// thread lives, forgotten when what it describes changes.
#include "sentry/serve/known_threads.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/strings.h"
#include "sentry/notify/unotify_server.h"
#include "tests/sentry/filtered_child.h"
#include "tests/sentry/loop_ticker.h"

namespace vigil::sentry {
namespace {

void Report(int fd, const std::string& line) {
  std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(104);
}

std::string Machine() {
  utsname names{};
  if (::uname(&names) != 0) return StrCat("errno ", errno);
  return names.machine;
}

std::string NodeName() {
  utsname names{};
  if (::uname(&names) != 0) return StrCat("errno ", errno);
  return names.nodename;
}

std::string OpenResult(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return StrCat("errno ", errno);
  ::close(fd);
  return "opened";
}

class KnownThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "the children change their credentials";
    Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create();
    ASSERT_TRUE(loop);
    loop_ = std::move(*loop);
    sandbox_.uts_names = [] {
      utsname names{};
      ::uname(&names);
      std::strcpy(names.nodename, "sentried");
      return Result<utsname>(names);
    };
    Result<config::Policy> policy = config::ParsePolicy(R"({"files": {"default": "read"}})");
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }

  // Serves `child` until it has reported everything, and returns the report.
  std::string Serve(FilteredChild& child) {
    server_ = std::make_unique<UnotifyServer>(*loop_, sandbox_, [this](const DecisionRecord& r) {
      decided_.push_back(StrCat(r.event.number));
    });
    EXPECT_TRUE(server_->AddListener(child.TakeListener()));
    child.Go();
    // Read as it comes, until the pipe's end closes with the child: then
    // every notification has been served.
    ::fcntl(child.report_fd(), F_SETFL, O_NONBLOCK);
    std::string report;
    bool ended = false;
    EXPECT_TRUE(loop_->Watch(child.report_fd(), [&](std::uint32_t) {
      char buffer[512];
      ssize_t n = ::read(child.report_fd(), buffer, sizeof buffer);
      if (n > 0) report.append(buffer, static_cast<std::size_t>(n));
      if (n == 0) ended = true;
    }));
    // The test is the tracer of the execs the sentry verifies, as the
    // supervisor is: their stops come through waitid (a tracer sees them
    // without asking), polled here as its SIGCHLD loop would be woken.
    LoopTicker ticker(*loop_, std::chrono::milliseconds(1), [this, pid = child.pid()] {
      siginfo_t stop{};
      while (::waitid(P_PID, pid, &stop, WSTOPPED | WNOHANG) == 0 && stop.si_pid != 0) {
        server_->OnChildEvent(stop);
        stop = {};
      }
    });
    EXPECT_TRUE(loop_->Run([&] { return ended; }));
    loop_->Unwatch(child.report_fd());
    return report;
  }

  std::unique_ptr<EventLoop> loop_;
  Sandbox sandbox_;
  config::Policy policy_;
  std::unique_ptr<UnotifyServer> server_;
  std::vector<std::string> decided_;
};

// The credentials the sentry acts with are the thread's after setresuid,
// not the ones it read for an earlier open.
TEST_F(KnownThreadsTest, OpenAfterDroppingRootUsesTheNewCredentials) {
  char path[] = "/tmp/vigil-known-threads-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_EQ(::chmod(path, 0600), 0);
  FilteredChild child(
      [&](int report) {
        Report(report, OpenResult(path));
        if (::setresuid(65534, 65534, 65534) != 0) Report(report, "setresuid failed");
        Report(report, OpenResult(path));
      },
      FilterOptions{.mediate_files = true});
  EXPECT_EQ(Serve(child), StrCat("opened\nerrno ", EACCES, "\n"));
  ::unlink(path);
  EXPECT_NE(std::find(decided_.begin(), decided_.end(), "117"), decided_.end())
      << "setresuid was let through by the sentry";
}

// After exec the process has a new memory: uname's answer lands there.
TEST_F(KnownThreadsTest, ExecdProgramIsAnsweredInItsNewMemory) {
  if (::access("/bin/uname", X_OK) != 0) GTEST_SKIP() << "needs /bin/uname";
  FilteredChild child([](int report) {
    Report(report, NodeName());
    ::dup2(report, STDOUT_FILENO);
    ::execl("/bin/uname", "uname", "-n", nullptr);
    Report(report, "exec failed");
  });
  EXPECT_EQ(Serve(child), "sentried\nsentried\n");
}

// uname follows personality(PER_LINUX32), which the sentry sees go by.
TEST_F(KnownThreadsTest, UnameFollowsAPersonalityChange) {
  FilteredChild child([](int report) {
    Report(report, Machine());
    if (::personality(PER_LINUX32) < 0) Report(report, "personality failed");
    Report(report, Machine());
  });
  EXPECT_EQ(Serve(child), "x86_64\ni686\n");
}

// A thread that exits is forgotten with its descriptors.
TEST_F(KnownThreadsTest, ExitedThreadsAreForgotten) {
  FilteredChild child([](int report) { Report(report, NodeName()); });
  EXPECT_EQ(Serve(child), "sentried\n");
  EXPECT_EQ(child.Wait(), 0);
  // The pidfd's exit event is served by the loop; give it up to a second.
  int ticks = 0;
  LoopTicker ticker(*loop_, std::chrono::milliseconds(20), [&] { ++ticks; });
  ASSERT_TRUE(loop_->Run([&] { return ticks > 50 || server_->threads().size() == 0; }));
  EXPECT_EQ(server_->threads().size(), 0u);
}

}  // namespace
}  // namespace vigil::sentry
