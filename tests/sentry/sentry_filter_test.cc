// The sentry's BPF program, loaded in a child process: each verdict of the
// table and its guards, as the kernel applies it.
#include "sentry/table/sentry_filter.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <thread>
#include <vector>

namespace vigil::sentry {
namespace {

// Runs `body` in a child under the sentry's filter, given its listener;
// returns the child's wait status.
int RunServed(const std::function<int(int listener)>& body, const FilterOptions& options = {}) {
  Result<seccomp::CompiledFilter> filter = BuildSentryFilter(options);
  EXPECT_TRUE(filter) << filter.error().message;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    Result<UniqueFd> listener = seccomp::LoadSeccomp(*filter);
    if (!listener) ::_exit(200);
    ::_exit(body(listener->Get()));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Nobody serves the listener, so `body` must not make a mediated syscall.
int RunFiltered(const std::function<int()>& body) {
  return RunServed([&body](int) { return body(); });
}

// The errno of a failed call, 0 on success (closing what it returned).
int ErrnoOf(long rc) {
  if (rc >= 0) return 0;
  return errno;
}

int SocketErrno(int family, int type, int protocol) {
  int fd = ::socket(family, type, protocol);
  if (fd >= 0) ::close(fd);
  return fd >= 0 ? 0 : errno;
}

TEST(SentryFilter, LoadsWithAListener) {
  Result<seccomp::CompiledFilter> filter = BuildSentryFilter({});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_TRUE(filter->has_notify);
  EXPECT_EQ(filter->flags, unsigned{SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV});
  EXPECT_LE(filter->program.size(), 4096u);
}

TEST(SentryFilter, FastPathRuns) {
  int status = RunFiltered([] { return ::getppid() > 0 && ::getpid() > 0 ? 0 : 1; });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

struct Expectation {
  const char* what;
  std::function<int()> call;  // returns errno
  int expected;
};

TEST(SentryFilter, DeniedAndGuardedCallsFailWithTheirErrno) {
  const Expectation cases[] = {
      {"unshare", [] { return ErrnoOf(::unshare(CLONE_NEWNS)); }, EPERM},
      {"clone NEWNET",
       [] { return ErrnoOf(::syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0)); }, EPERM},
      {"clone NEWUSER",
       [] { return ErrnoOf(::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)); }, EPERM},
      {"clone3", [] { return ErrnoOf(::syscall(SYS_clone3, nullptr, 0)); }, ENOSYS},
      {"io_uring_setup", [] { return ErrnoOf(::syscall(SYS_io_uring_setup, 1, nullptr)); }, ENOSYS},
      {"ptrace", [] { return ErrnoOf(::syscall(SYS_ptrace, 0, 0, 0, 0)); }, EPERM},
      {"bpf", [] { return ErrnoOf(::syscall(SYS_bpf, 0, nullptr, 0)); }, EPERM},
      {"mount", [] { return ErrnoOf(::syscall(SYS_mount, "none", "/", "tmpfs", 0, nullptr)); },
       EPERM},
      {"number beyond the table", [] { return ErrnoOf(::syscall(999)); }, ENOSYS},
      {"nested listener",
       [] {
         return ErrnoOf(::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                  SECCOMP_FILTER_FLAG_NEW_LISTENER, nullptr));
       },
       EPERM},
      {"packet socket", [] { return SocketErrno(AF_PACKET, SOCK_RAW, 0); }, EAFNOSUPPORT},
      {"raw IP socket", [] { return SocketErrno(AF_INET, SOCK_RAW, 1); }, EPERM},
      {"SCTP-style socket", [] { return SocketErrno(AF_INET6, SOCK_SEQPACKET, 0); },
       ESOCKTNOSUPPORT},
      {"netlink audit", [] { return SocketErrno(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT); },
       EPROTONOSUPPORT},
      {"AF_ALG", [] { return SocketErrno(AF_ALG, SOCK_SEQPACKET, 0); }, EAFNOSUPPORT},
      {"family beyond AF_MAX", [] { return SocketErrno(AF_MAX + 5, SOCK_STREAM, 0); },
       EAFNOSUPPORT},
      {"TCP socket", [] { return SocketErrno(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }, 0},
      {"UDP6 socket", [] { return SocketErrno(AF_INET6, SOCK_DGRAM, 0); }, 0},
      {"unix socket", [] { return SocketErrno(AF_UNIX, SOCK_STREAM, 0); }, 0},
      {"plain fork flags",
       [] {
         long pid = ::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
         if (pid == 0) ::_exit(0);
         if (pid > 0) ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
         return ErrnoOf(pid);
       },
       0},
  };
  for (const Expectation& c : cases) {
    int status = RunFiltered([&] { return c.call() == c.expected ? 0 : 1; });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << c.what << ": status " << status;
  }
}

// socket(AF_NETLINK, *, NETLINK_ROUTE) goes to the sentry; the listener is
// served here by the child's main thread, answering EADDRNOTAVAIL (an errno
// nothing else gives) to the thread that asked.
TEST(SentryFilter, NetlinkRouteSocketsAreMediated) {
  int status = RunServed([](int listener) {
    int seen = -1;
    std::thread asker(
        [&seen] { seen = SocketErrno(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE); });
    seccomp_notif request{};
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return 201;
    if (request.data.nr != SYS_socket || request.data.args[0] != AF_NETLINK ||
        request.data.args[2] != NETLINK_ROUTE) {
      return 202;
    }
    seccomp_notif_resp response{.id = request.id, .val = 0, .error = -EADDRNOTAVAIL, .flags = 0};
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) return 203;
    asker.join();
    return seen == EADDRNOTAVAIL ? 0 : 204;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Under a file policy only the ioctl types of the inode-changing commands
// reach the sentry, whatever the upper half of the command register holds
// (the kernel reads the low 32 bits): FIONREAD and TCGETS run on the fast
// path (nobody would answer them here), FS_IOC_SETFLAGS is the one the
// listener receives.
TEST(SentryFilter, OnlyTheInodeChangingIoctlTypesAreMediatedUnderAFilePolicy) {
  int status = RunServed(
      [](int listener) {
        int seen = -1;
        std::thread asker([&seen] {
          int pipe_fds[2];
          if (::pipe(pipe_fds) != 0) return;
          int pending = -1;
          termios tty{};
          const bool fast =
              ::ioctl(pipe_fds[0], FIONREAD, &pending) == 0 && pending == 0 &&
              ::syscall(SYS_ioctl, pipe_fds[0], 0xffffffff00000000ull | TCGETS, &tty) < 0 &&
              errno == ENOTTY;
          int flags = 0;
          seen = fast ? ErrnoOf(::syscall(SYS_ioctl, pipe_fds[0],
                                          0x1234567800000000ull | FS_IOC_SETFLAGS, &flags))
                      : -2;
        });
        seccomp_notif request{};
        if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return 201;
        if (request.data.nr != SYS_ioctl ||
            static_cast<std::uint32_t>(request.data.args[1]) != FS_IOC_SETFLAGS) {
          return 202;
        }
        seccomp_notif_resp response{
            .id = request.id, .val = 0, .error = -EADDRNOTAVAIL, .flags = 0};
        if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) return 203;
        asker.join();
        return seen == EADDRNOTAVAIL ? 0 : 204;
      },
      {.mediate_files = true});
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Under a network policy, setsockopt reaches the sentry only at the IP and
// IPv6 levels (where the options that route a packet elsewhere are),
// whatever the workload puts above the level's 32 bits; other levels run
// on the fast path.
TEST(SentryFilter, OnlyIpLevelSocketOptionsAreMediatedUnderANetworkPolicy) {
  int status = RunServed(
      [](int listener) {
        int seen = -1;
        std::thread asker([&seen] {
          const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
          const int on = 1;
          const bool fast =
              ::syscall(SYS_setsockopt, fd, 0xffffffff00000000ull | SOL_SOCKET, SO_REUSEADDR, &on,
                        sizeof on) == 0 &&
              ::syscall(SYS_setsockopt, fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0;
          seen = fast ? ErrnoOf(::syscall(SYS_setsockopt, fd, 0x1234567800000000ull | SOL_IPV6,
                                          IPV6_RTHDR, &on, sizeof on))
                      : -2;
          ::close(fd);
        });
        seccomp_notif request{};
        if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return 201;
        if (request.data.nr != SYS_setsockopt ||
            static_cast<std::uint32_t>(request.data.args[1]) != SOL_IPV6) {
          return 202;
        }
        seccomp_notif_resp response{
            .id = request.id, .val = 0, .error = -EADDRNOTAVAIL, .flags = 0};
        if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) return 203;
        asker.join();
        return seen == EADDRNOTAVAIL ? 0 : 204;
      },
      {.mediate_network = true});
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Until `done`, answers every notification on `listener` with
// EADDRNOTAVAIL (an errno no syscall here gives by itself), after `seen`.
void FailEachUntil(int listener, const std::atomic<bool>& done,
                   const std::function<void(const seccomp_notif&)>& seen) {
  while (!done) {
    pollfd ready{.fd = listener, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 100) != 1) continue;
    seccomp_notif request{};
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) continue;
    seen(request);
    seccomp_notif_resp response{.id = request.id, .val = 0, .error = -EADDRNOTAVAIL, .flags = 0};
    ::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
  }
}

// Every one of the 256 command types: exactly 'f', 'v' and 'X' reach the
// listener under a file policy, all others run on the fast path (ENOTTY on
// a pipe), so the complement rules leave no type out and take none twice.
TEST(SentryFilter, EveryOtherIoctlTypeStaysOnTheFastPath) {
  int status = RunServed(
      [](int listener) {
        std::atomic<bool> done{false};
        std::vector<unsigned> mediated;
        int unexpected = 0;
        std::thread asker([&] {
          int pipe_fds[2];
          if (::pipe(pipe_fds) == 0) {
            for (unsigned type = 0; type < 256; ++type) {
              int value = 0;
              const long rc = ::syscall(SYS_ioctl, pipe_fds[0], 0x40040001u | (type << 8), &value);
              if (rc == 0 || (errno != ENOTTY && errno != EADDRNOTAVAIL)) ++unexpected;
            }
          }
          done = true;
        });
        FailEachUntil(listener, done, [&](const seccomp_notif& request) {
          mediated.push_back((static_cast<unsigned>(request.data.args[1]) >> 8) & 0xff);
        });
        asker.join();
        const std::vector<unsigned> expected = {'X', 'f', 'v'};
        return unexpected == 0 && mediated == expected ? 0 : 1;
      },
      {.mediate_files = true});
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Where reads are the kernel's, open and openat reach the listener only
// when their flags write, create or truncate (any bit of kWriteOpenFlags,
// whatever the bits above 32), and the lookups never do.
TEST(SentryFilter, OnlyOpensThatWriteReachTheSentryWhereReadsAreTheKernels) {
  int status = RunServed(
      [](int listener) {
        std::atomic<bool> done{false};
        std::vector<std::uint64_t> mediated;
        int unexpected = 0;
        std::thread asker([&] {
          const std::uint64_t high = std::uint64_t{1} << 40;  // ignored by the kernel
          for (std::uint64_t flags :
               {std::uint64_t{O_RDONLY}, std::uint64_t{O_RDONLY | O_CLOEXEC},
                std::uint64_t{O_RDONLY | O_DIRECTORY}, O_RDONLY | high, std::uint64_t{O_PATH}}) {
            const long fd = ::syscall(SYS_openat, AT_FDCWD, "/", flags);
            if (fd < 0)
              ++unexpected;
            else
              ::close(static_cast<int>(fd));
          }
          for (std::uint64_t flags :
               {std::uint64_t{O_WRONLY}, std::uint64_t{O_RDWR}, std::uint64_t{O_RDONLY | O_CREAT},
                std::uint64_t{O_TRUNC}, std::uint64_t{O_TMPFILE | O_RDWR}, O_WRONLY | high}) {
            if (::syscall(SYS_openat, AT_FDCWD, "/", flags) != -1 || errno != EADDRNOTAVAIL) {
              ++unexpected;
            }
          }
          if (::syscall(SYS_open, "/", O_WRONLY) != -1 || errno != EADDRNOTAVAIL) ++unexpected;
          if (::syscall(SYS_open, "/", O_RDONLY) < 0) ++unexpected;
          struct stat st {};
          if (::stat("/", &st) != 0) ++unexpected;
          done = true;
        });
        FailEachUntil(listener, done, [&](const seccomp_notif& request) {
          mediated.push_back(request.data.nr == SYS_open ? request.data.args[1]
                                                         : request.data.args[2]);
        });
        asker.join();
        return unexpected == 0 && mediated.size() == 7 ? 0 : 1 + unexpected;
      },
      {.mediate_files = true, .mediate_reads = false});
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

int GetpidThroughInt80() {
  long ret = 20;  // getpid on i386
  asm volatile("int $0x80" : "+a"(ret) : : "memory");
  return 0;
}

// How a child that makes the i386 getpid ends without any filter.
int Int80Unfiltered() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(GetpidThroughInt80());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// x32 numbers and the 32-bit int 0x80 entry are other ABIs: the process dies.
// A unix socket's path is a file: under file rules that hide or deny
// something, connects and sends go to the sentry, which asks the rules
// (docs/security.md, "The deputy rule"); rules that only make files
// read-only leave them to the kernel.
TEST(SentryFilter, HiddenFilesMediateConnectsAndSends) {
  config::Policy read_only;
  read_only.files.push_back({.pattern = "/etc/**", .access = config::FileAccess::kRead});
  EXPECT_FALSE(FilterOptionsFor(read_only, Platform::kUnotify).mediate_network);
  config::Policy hiding;
  hiding.files.push_back({.pattern = "/run/docker.sock", .access = config::FileAccess::kHidden});
  EXPECT_TRUE(FilterOptionsFor(hiding, Platform::kUnotify).mediate_network);
}

TEST(SentryFilter, ForeignCallingConventionsKill) {
  int x32 = RunFiltered([] { return static_cast<int>(::syscall(0x40000000 | SYS_getpid)); });
  EXPECT_TRUE(WIFSIGNALED(x32) && WTERMSIG(x32) == SIGSYS) << x32;
  int int80 = RunFiltered(GetpidThroughInt80);
  const int native = Int80Unfiltered();
  if (WIFSIGNALED(native) && WTERMSIG(native) == SIGSEGV) {
    // Some hypervisors' guests (a PVM guest here) have no int 0x80 entry at
    // all: the CPU faults before any filter runs. The call still must not
    // get through.
    EXPECT_TRUE(WIFSIGNALED(int80)) << int80;
    return;
  }
  EXPECT_TRUE(WIFSIGNALED(int80) && WTERMSIG(int80) == SIGSYS) << int80;
}

}  // namespace
}  // namespace vigil::sentry
