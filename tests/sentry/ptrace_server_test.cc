// The ptrace backend end to end, without a container: a child traced by
// the test (as the supervisor traces a container) loads the sentry's
// filter in its ptrace form and makes mediated syscalls; the server
// answers them at their seccomp stops.
#include "sentry/ptrace/ptrace_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "runtime/linux/seccomp_filter.h"
#include "sentry/table/sentry_filter.h"

namespace vigil::sentry {
namespace {

void Report(int fd, const std::string& line) {
  std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(104);
}

std::string NodeName() {
  utsname names{};
  if (::uname(&names) != 0) return StrCat("errno ", errno);
  return names.nodename;
}

// A child that, once told, loads the sentry's filter (mediated syscalls
// trace-stop) and runs `body`, which reports on a pipe.
class TracedChild {
 public:
  explicit TracedChild(const std::function<void(int report)>& body) {
    Result<runtime::CompiledFilter> filter = BuildSentryFilter({.traced = true});
    EXPECT_TRUE(filter);
    EXPECT_FALSE(filter->has_notify);
    int go[2], reports[2];
    EXPECT_EQ(::pipe2(go, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(reports, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      char c;
      if (::read(go[0], &c, 1) != 1) ::_exit(102);
      if (!runtime::LoadSeccomp(*filter)) ::_exit(100);
      body(reports[1]);
      ::_exit(0);
    }
    ::close(go[0]);
    ::close(reports[1]);
    go_.Reset(go[1]);
    reports_.Reset(reports[0]);
  }
  ~TracedChild() {
    if (!exit_) ::waitpid(pid_, nullptr, 0);
  }

  pid_t pid() const { return pid_; }
  void Go() { EXPECT_EQ(::write(go_.Get(), "g", 1), 1); }

  // Runs `loop` and feeds every child event to `server` until the child
  // has exited; what it reported.
  std::string ServeUntilExit(EventLoop& loop, Backend* server) {
    EXPECT_TRUE(loop.Every(std::chrono::milliseconds(1), [this, server] {
      siginfo_t info{};
      while (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG) == 0 && info.si_pid != 0) {
        const bool stop = server != nullptr && server->OnChildEvent(info);
        if (!stop && info.si_pid == pid_) exit_ = info;
        info = {};
      }
    }));
    EXPECT_TRUE(loop.Run([this] { return exit_.has_value(); }));
    std::string out;
    char buffer[512];
    ssize_t n;
    while ((n = ::read(reports_.Get(), buffer, sizeof buffer)) > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }

  const std::optional<siginfo_t>& exit() const { return exit_; }

 private:
  pid_t pid_ = -1;
  UniqueFd go_, reports_;
  std::optional<siginfo_t> exit_;
};

class PtraceServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u);
    Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create();
    ASSERT_TRUE(loop);
    loop_ = std::move(*loop);
    sandbox_.kernel_release = "4.4.0-sentry";
    sandbox_.uts_names = [] {
      utsname names{};
      ::uname(&names);
      std::strcpy(names.nodename, "sentried");
      return Result<utsname>(names);
    };
    SetPolicy("{}");
  }

  void SetPolicy(const std::string& json) {
    Result<config::Policy> policy = config::ParsePolicy(json);
    ASSERT_TRUE(policy) << policy.error().message;
    policy_ = *policy;
    sandbox_.policy = &policy_;
  }

  PtraceServer& Server() {
    server_ = std::make_unique<PtraceServer>(*loop_, sandbox_, [this](const DecisionRecord& r) {
      decided_.push_back(StrCat(r.event.number, ":", audit::DecisionName(r.verdict.decision)));
    });
    return *server_;
  }

  std::unique_ptr<EventLoop> loop_;
  Sandbox sandbox_;
  config::Policy policy_;
  std::unique_ptr<PtraceServer> server_;
  std::vector<std::string> decided_;
};

TEST_F(PtraceServerTest, AnswersMediatedSyscallsAtTheirStops) {
  PtraceServer& server = Server();
  TracedChild child([](int report) {
    Report(report, NodeName());
    Report(report, StrCat("getppid ", ::getppid() > 0 ? "ok" : "failed"));
    utsname* bad = reinterpret_cast<utsname*>(8);
    Report(report, StrCat("bad pointer ", ::uname(bad) == 0 ? 0 : errno));
  });
  ASSERT_TRUE(server.Adopt(child.pid(), UniqueFd()));
  child.Go();
  EXPECT_EQ(child.ServeUntilExit(*loop_, &server),
            StrCat("sentried\ngetppid ok\nbad pointer ", EFAULT, "\n"));
  ASSERT_TRUE(child.exit());
  EXPECT_EQ(child.exit()->si_code, CLD_EXITED);
  EXPECT_EQ(child.exit()->si_status, 0);
  EXPECT_EQ(decided_.size(), 2u) << "two unames, nothing else mediated";
  EXPECT_EQ(server.held(), 0u);
}

// Children and threads are traced from birth: theirs are answered too.
TEST_F(PtraceServerTest, WhatTheWorkloadStartsIsTracedFromBirth) {
  PtraceServer& server = Server();
  TracedChild child([](int report) {
    pid_t pid = ::fork();
    if (pid == 0) {
      Report(report, StrCat("child ", NodeName()));
      ::_exit(0);
    }
    ::waitpid(pid, nullptr, 0);
    Report(report, StrCat("parent ", NodeName()));
  });
  ASSERT_TRUE(server.Adopt(child.pid(), UniqueFd()));
  child.Go();
  EXPECT_EQ(child.ServeUntilExit(*loop_, &server), "child sentried\nparent sentried\n");
}

// Fail closed: with no tracer (the supervisor died), a mediated syscall
// fails with ENOSYS instead of reaching the host kernel.
TEST_F(PtraceServerTest, WithoutATracerMediatedSyscallsFail) {
  TracedChild child([](int report) { Report(report, NodeName()); });
  child.Go();
  EXPECT_EQ(child.ServeUntilExit(*loop_, nullptr), StrCat("errno ", ENOSYS, "\n"));
}

// Execs are checked at entry and verified at PTRACE_EVENT_EXEC.
TEST_F(PtraceServerTest, ExecsAreCheckedAndVerified) {
  if (::access("/bin/true", X_OK) != 0 || ::access("/bin/false", X_OK) != 0) {
    GTEST_SKIP() << "needs /bin/true and /bin/false";
  }
  SetPolicy(R"({"exec": {"allow": ["/usr/bin/true", "/bin/true"]}})");
  PtraceServer& server = Server();
  TracedChild child([](int report) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/false", "false", nullptr);
      ::_exit(errno == EACCES ? 42 : 43);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    Report(report, StrCat("false: ", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/true", "true", nullptr);
      ::_exit(43);
    }
    ::waitpid(pid, &status, 0);
    Report(report, StrCat("true: ", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  });
  ASSERT_TRUE(server.Adopt(child.pid(), UniqueFd()));
  child.Go();
  EXPECT_EQ(child.ServeUntilExit(*loop_, &server), "false: 42\ntrue: 0\n");
}

TEST(PlatformSupportsTest, FilePoliciesNeedUserNotification) {
  constexpr Platform kPtrace = Platform::kPtrace;
  EXPECT_TRUE(PlatformSupports(*config::BuiltinPolicy("default"), kPtrace));
  Result<void> agent = PlatformSupports(*config::BuiltinPolicy("agent"), kPtrace);
  ASSERT_FALSE(agent);
  EXPECT_NE(agent.error().message.find("--platform=ptrace"), std::string::npos);
  EXPECT_FALSE(PlatformSupports(*config::BuiltinPolicy("audit-only"), kPtrace));
  EXPECT_TRUE(PlatformSupports(*config::BuiltinPolicy("agent"), Platform::kUnotify));
  EXPECT_TRUE(PlatformSupports(*config::ParsePolicy(R"({"network": {"egress": "deny"}})"), kPtrace))
      << "network handlers act on the workload's own socket";
}

}  // namespace
}  // namespace vigil::sentry
