// The ptrace backend end to end, without a container: a child traced by
// the test (as the supervisor traces a container) loads the sentry's
// filter in its ptrace form and makes mediated syscalls; the server
// answers them at their seccomp stops.
#include "sentry/ptrace/ptrace_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "seccomp/profile.h"
#include "sentry/core/platform.h"
#include "sentry/table/sentry_filter.h"
#include "tests/sentry/loop_ticker.h"

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
// With `channel`, it holds a descriptor channel as the runtime sets one up
// (runtime/process/launch.cc), whose sentry end is channel_end().
class TracedChild {
 public:
  explicit TracedChild(const std::function<void(int report)>& body,
                       FilterOptions options = {.traced = true}, bool channel = false) {
    Result<seccomp::CompiledFilter> filter = BuildSentryFilter(options);
    EXPECT_TRUE(filter);
    EXPECT_FALSE(filter->has_notify);
    Result<seccomp::CompiledFilter> guard = BuildChannelGuardFilter();
    EXPECT_TRUE(guard);
    int go[2], reports[2], ends[2] = {-1, -1};
    EXPECT_EQ(::pipe2(go, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(reports, O_CLOEXEC), 0);
    if (channel) {
      EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends), 0);
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      if (channel) {
        if (::dup3(ends[0], kDescriptorChannelFd, 0) < 0) ::_exit(103);
        ::close(ends[0]);
        ::close(ends[1]);
        Report(reports[1], "");  // set up: the test may adopt it now
      }
      ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      char c;
      if (::read(go[0], &c, 1) != 1) ::_exit(102);
      if (!seccomp::LoadSeccomp(*filter)) ::_exit(100);
      if (channel && !seccomp::LoadSeccomp(*guard)) ::_exit(100);
      body(reports[1]);
      ::_exit(0);
    }
    ::close(go[0]);
    ::close(reports[1]);
    go_.Reset(go[1]);
    reports_.Reset(reports[0]);
    if (channel) {
      ::close(ends[0]);
      channel_end_.Reset(ends[1]);
      char ready;
      EXPECT_EQ(::read(reports_.Get(), &ready, 1), 1);
    }
  }

  UniqueFd channel_end() { return std::move(channel_end_); }
  ~TracedChild() {
    if (!exit_) ::waitpid(pid_, nullptr, 0);
  }

  pid_t pid() const { return pid_; }
  void Go() { EXPECT_EQ(::write(go_.Get(), "g", 1), 1); }

  // Runs `loop` and feeds every child event to `server` until the child
  // has exited; what it reported.
  std::string ServeUntilExit(EventLoop& loop, Backend* server) {
    LoopTicker ticker(loop, std::chrono::milliseconds(1), [this, server] {
      siginfo_t info{};
      while (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG) == 0 && info.si_pid != 0) {
        const bool stop = server != nullptr && server->OnChildEvent(info);
        if (!stop && info.si_pid == pid_) exit_ = info;
        info = {};
      }
    });
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
  UniqueFd go_, reports_, channel_end_;
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
  // The dynamic loader /bin/true names (PT_INTERP) is checked as a program
  // too: the allow-list must name it.
  SetPolicy(R"({"exec": {"allow": ["/usr/bin/true", "/bin/true", "/usr/lib/*/ld-linux-*"]}})");
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

// What a child under a file policy reads from `path` through the sentry:
// its first line, or the errno of the open.
std::string FirstLine(const char* path, int flags = O_RDONLY) {
  int fd = ::open(path, flags);
  if (fd < 0) return StrCat("errno ", errno);
  char buffer[256];
  ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n < 0) return StrCat("read errno ", errno);
  std::string text(buffer, static_cast<std::size_t>(n));
  return text.substr(0, text.find('\n'));
}

class PtraceFilesTest : public PtraceServerTest {
 protected:
  void SetUp() override {
    PtraceServerTest::SetUp();
    char dir[] = "/tmp/vigil-ptrace-files-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    for (const char* name : {"a", "b", "c", "d", "secret"}) {
      std::string path = dir_ + "/" + name;
      FILE* f = std::fopen(path.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fprintf(f, "%s\n", name);
      std::fclose(f);
    }
    SetPolicy(StrCat(R"({"files": {"default": "read", "rules": [{"path": ")", dir_,
                     R"(/secret", "access": "hidden"}]}})"));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The policy hides a file: reads are the sentry's too.
  static constexpr FilterOptions kFiles{
      .mediate_files = true, .mediate_reads = true, .traced = true};

  std::string Path(const char* name) const { return dir_ + "/" + name; }

  // Runs `body` in a traced child with a descriptor channel, under the
  // file policy; what it reported.
  std::string Run(const std::function<void(int report)>& body) {
    PtraceServer& server = Server();
    TracedChild child(body, kFiles, /*channel=*/true);
    Result<void> adopted = server.Adopt(child.pid(), child.channel_end());
    EXPECT_TRUE(adopted) << adopted.error().message;
    child.Go();
    std::string out = child.ServeUntilExit(*loop_, &server);
    EXPECT_TRUE(child.exit() && child.exit()->si_code == CLD_EXITED && child.exit()->si_status == 0)
        << out << " code " << (child.exit() ? child.exit()->si_code : -1) << " status "
        << (child.exit() ? child.exit()->si_status : -1);
    EXPECT_EQ(server.held(), 0u);
    EXPECT_EQ(server.injecting(), 0u);
    return out;
  }

  std::string dir_;
};

// The files the sentry opens reach the workload through its channel, as
// the lowest free descriptor, with O_CLOEXEC as asked.
TEST_F(PtraceFilesTest, TheWorkloadGetsTheFilesTheSentryOpens) {
  const std::string a = Path("a"), secret = Path("secret");
  std::string out = Run([&](int report) {
    Report(report, FirstLine(a.c_str()));
    Report(report, FirstLine(secret.c_str()));
    for (int flags : {O_RDONLY | O_CLOEXEC, O_RDONLY}) {
      const int lowest_free = ::dup(0);
      ::close(lowest_free);
      int fd = ::open(a.c_str(), flags);
      Report(report, StrCat(fd == lowest_free ? "lowest" : StrCat("fd ", fd), " cloexec ",
                            ::fcntl(fd, F_GETFD) & FD_CLOEXEC));
    }
  });
  EXPECT_EQ(out, StrCat("a\nerrno ", ENOENT, "\nlowest cloexec 1\nlowest cloexec 0\n"));
}

// Unlike ADDFD, the channel carries O_PATH descriptors too.
TEST_F(PtraceFilesTest, OPathDescriptorsGoThrough) {
  const std::string a = Path("a");
  std::string out = Run([&](int report) {
    int fd = ::open(a.c_str(), O_PATH);
    Report(report, StrCat("path ", (::fcntl(fd, F_GETFL) & O_PATH) != 0 ? 1 : 0, " fchmod ",
                          ::fchmod(fd, 0600) == 0 ? 0 : errno));
  });
  EXPECT_EQ(out, StrCat("path 1 fchmod ", EBADF, "\n"));
}

// Closing everything (close_range(3, ~0U), as Python's subprocess does
// before an exec) closes everything but the channel, which still serves;
// the channel itself cannot be closed, duplicated or replaced.
TEST_F(PtraceFilesTest, TheChannelOutlivesClosingEverything) {
  const std::string b = Path("b");
  std::string out = Run([&](int report) {
    // Above the channel too: a descriptor limit that allows it.
    rlimit limit{.rlim_cur = 2048, .rlim_max = 2048};
    ::setrlimit(RLIMIT_NOFILE, &limit);
    int low = ::open(b.c_str(), O_RDONLY);
    int high = ::fcntl(low, F_DUPFD, 1500);
    int keep = ::dup(report);  // the report pipe survives on descriptor 0
    ::dup2(keep, 0);
    Report(0, StrCat("close ", ::close(kDescriptorChannelFd) == 0 ? 0 : errno));
    Report(0, StrCat("dup2 onto ", ::dup2(low, kDescriptorChannelFd) >= 0 ? 0 : errno));
    Report(0, StrCat("dup ", ::dup(kDescriptorChannelFd) >= 0 ? 0 : errno));
    Report(0, StrCat("fcntl ", ::fcntl(kDescriptorChannelFd, F_GETFD) >= 0 ? 0 : errno));
    Report(0, StrCat("close_range ", ::syscall(SYS_close_range, 3, ~0U, 0)));
    Report(0, StrCat("low ", ::fcntl(low, F_GETFD) >= 0 ? 0 : errno, " high ",
                     ::fcntl(high, F_GETFD) >= 0 ? 0 : errno));
    Report(0, FirstLine(b.c_str()));
    Report(0, StrCat("cloexec range ", ::syscall(SYS_close_range, 0, ~0U, CLOSE_RANGE_CLOEXEC)));
    Report(0, StrCat("report cloexec ", ::fcntl(0, F_GETFD) & FD_CLOEXEC));
    Report(0, FirstLine(b.c_str()));
  });
  EXPECT_EQ(out, StrCat("close ", EBADF, "\ndup2 onto ", EBUSY, "\ndup ", EBADF, "\nfcntl ", EBADF,
                        "\nclose_range 0\nlow ", EBADF, " high ", EBADF,
                        "\nb\ncloexec range 0\nreport cloexec 1\nb\n"));
}

// A close_range split around the channel passes through user mode between
// its two calls. Signals arriving all along (queued real-time ones, whose
// handler makes a syscall of its own) must neither run there, with the
// registers made for the second call, nor be lost: each is handled once
// the sequence is over, and the ABI's argument registers come back intact.
TEST_F(PtraceFilesTest, SignalsDoNotCutIntoASplitCloseRange) {
  const std::string c = Path("c");
  std::string out = Run([&](int report) {
    rlimit limit{.rlim_cur = 2048, .rlim_max = 2048};
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::dup2(report, 0);  // the report pipe, kept below the range closed
    static std::atomic<int> handled{0};
    struct sigaction action {};
    action.sa_handler = [](int) {
      handled.fetch_add(1);
      (void)::getppid();
    };
    ::sigaction(SIGRTMIN, &action, nullptr);
    const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
    std::atomic<bool> done{false};
    int sent = 0;
    // Slower than the test serves stops (every millisecond, ServeUntilExit),
    // or delivering them would be all the thread does.
    std::thread sender([&] {
      while (!done.load()) {
        if (::syscall(SYS_tgkill, ::getpid(), self, SIGRTMIN) == 0) ++sent;
        ::usleep(5000);
      }
    });
    int failed = 0, kept_above = 0, clobbered = 0;
    for (int i = 0; i < 200; ++i) {
      const int above = ::fcntl(0, F_DUPFD, 1500);
      // By hand, to see the argument registers after: the ABI keeps them.
      std::uint64_t rdi = 3, rsi = ~0U, rdx = 0;
      long result = SYS_close_range;
      asm volatile("syscall"
                   : "+a"(result), "+D"(rdi), "+S"(rsi), "+d"(rdx)
                   :
                   : "rcx", "r11", "memory");
      if (result != 0) ++failed;
      if (rdi != 3 || rsi != ~0U || rdx != 0) ++clobbered;
      // The second call closed what is above the channel.
      if (::fcntl(above, F_GETFD) >= 0) ++kept_above;
    }
    done.store(true);
    sender.join();
    for (int i = 0; i < 100 && handled.load() < sent; ++i) ::usleep(10000);
    Report(0, StrCat("failed ", failed, " kept above ", kept_above, " clobbered ", clobbered,
                     " lost ", sent - handled.load(), " sent ", sent > 0 ? "some" : "none"));
    Report(0, FirstLine(c.c_str()));
  });
  EXPECT_EQ(out, "failed 0 kept above 0 clobbered 0 lost 0 sent some\nc\n");
}

// Threads and children share the channel, and files are sent on it one at
// a time: each open gets its own file, never another thread's.
TEST_F(PtraceFilesTest, ConcurrentOpensGetTheirOwnFiles) {
  const std::vector<std::string> paths = {Path("a"), Path("b"), Path("c"), Path("d")};
  std::string out = Run([&](int report) {
    struct Worker {
      const std::string* path;
      int wrong = 0;
    };
    std::vector<Worker> workers;
    for (const std::string& path : paths) workers.push_back({&path});
    std::vector<pthread_t> threads(workers.size());
    auto work = [](void* arg) -> void* {
      auto* worker = static_cast<Worker*>(arg);
      const std::string expected = worker->path->substr(worker->path->rfind('/') + 1);
      for (int i = 0; i < 200; ++i) {
        if (FirstLine(worker->path->c_str()) != expected) ++worker->wrong;
      }
      return nullptr;
    };
    for (std::size_t i = 0; i < workers.size(); ++i) {
      ::pthread_create(&threads[i], nullptr, work, &workers[i]);
    }
    pid_t forked = ::fork();
    if (forked == 0) ::_exit(FirstLine(paths[0].c_str()) == "a" ? 0 : 1);
    int status = 0;
    ::waitpid(forked, &status, 0);
    int wrong = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      ::pthread_join(threads[i], nullptr);
      wrong += workers[i].wrong;
    }
    Report(report,
           StrCat("wrong ", wrong, " child ", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  });
  EXPECT_EQ(out, "wrong 0 child 0\n");
}

// With credentials fixed, the setuid family and capset are refused.
TEST_F(PtraceFilesTest, FixedCredentialsCannotChange) {
  sandbox_.credentials_fixed = true;
  std::string out = Run([](int report) {
    Report(report, StrCat("setuid ", ::syscall(SYS_setuid, 0) == 0 ? 0 : errno));
    Report(report, StrCat("setgroups ", ::syscall(SYS_setgroups, 0, nullptr) == 0 ? 0 : errno));
    Report(report, StrCat("umask ", ::syscall(SYS_umask, 022) >= 0 ? "ok" : "refused"));
  });
  EXPECT_EQ(out, StrCat("setuid ", EPERM, "\nsetgroups ", EPERM, "\numask ok\n"));
}

// The descriptor channel is shared by a process tree, so a policy on this
// platform under which the sentry opens files for the workload fixes the
// credentials (descriptor_channel.h). Under audit-only, which restricts no
// file, the kernel makes the file calls.
TEST(CredentialsFixedTest, OnlyOnThePtracePlatformUnderAPolicyRestrictingFiles) {
  const config::Policy agent = *config::BuiltinPolicy("agent");
  EXPECT_TRUE(CredentialsFixed(agent, Platform::kPtrace));
  EXPECT_FALSE(CredentialsFixed(agent, Platform::kUnotify));
  EXPECT_FALSE(CredentialsFixed(*config::BuiltinPolicy("audit-only"), Platform::kPtrace));
  EXPECT_FALSE(CredentialsFixed(*config::BuiltinPolicy("default"), Platform::kPtrace));
}

}  // namespace
}  // namespace vigil::sentry
