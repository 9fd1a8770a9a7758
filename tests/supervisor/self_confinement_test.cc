// The supervisor's allow-list: every name is a syscall libseccomp knows,
// what an escape would need is not on it, and once installed it holds.
#include "supervisor/self_confinement.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "sentry/audit/writer.h"

namespace vigil::supervisor {
namespace {

TEST(SelfConfinementTest, EveryNameIsASyscallAndNoneRepeats) {
  std::set<std::string_view> seen;
  for (std::string_view name : SupervisorSyscalls()) {
    EXPECT_NE(seccomp_syscall_resolve_name(std::string(name).c_str()), __NR_SCMP_ERROR) << name;
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
  }
}

TEST(SelfConfinementTest, WhatAnEscapeNeedsIsLeftOut) {
  auto has = [](std::string_view name) {
    auto list = SupervisorSyscalls();
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  // ptrace is allowed by request only (OnceConfinedPtraceCannotReachMemory).
  for (std::string_view name : {"execve",
                                "execveat",
                                "clone",
                                "clone3",
                                "fork",
                                "vfork",
                                "ptrace",
                                "process_vm_writev",
                                "process_vm_readv",
                                "mount",
                                "umount2",
                                "pivot_root",
                                "chroot",
                                "setns",
                                "unshare",
                                "bpf",
                                "perf_event_open",
                                "init_module",
                                "finit_module",
                                "kexec_load",
                                "reboot",
                                "io_uring_setup",
                                "keyctl",
                                "setuid",
                                "setresuid",
                                "personality",
                                "socket"}) {
    EXPECT_FALSE(has(name)) << name;
  }
}

// In a child: confined, it keeps working, and exec fails with EPERM.
TEST(SelfConfinementTest, OnceConfinedExecIsRefused) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!ConfineSupervisor()) ::_exit(2);
    if (::getpid() <= 0) ::_exit(3);
    ::execl("/bin/true", "true", nullptr);
    ::_exit(errno == EPERM ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// In a child: a thread started before the confinement (the audit writer's)
// is confined with the one that asked (TSYNC).
TEST(SelfConfinementTest, AThreadStartedBeforeIsConfinedToo) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int go[2];
    if (::pipe2(go, O_CLOEXEC) != 0) ::_exit(2);
    int outcome = -1;
    std::atomic<bool> running{false};
    std::thread other([&] {
      running = true;  // past glibc's own setup, which confinement would break
      running.notify_one();
      char c;
      if (::read(go[0], &c, 1) != 1) return;
      outcome = ::socket(AF_INET, SOCK_STREAM, 0) == -1 && errno == EPERM ? 0 : 1;
    });
    running.wait(false);
    const bool confined = static_cast<bool>(ConfineSupervisor());
    if (::write(go[1], "g", 1) != 1) ::_exit(3);
    other.join();
    ::_exit(!confined ? 4 : outcome);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The supervisor confines itself soon after the audit writer starts: the
// writer's thread must be past glibc's own setup by then (its rseq call
// would be refused, and glibc aborts). Tried in many children, since it
// is a race when it fails.
TEST(SelfConfinementTest, ConfinementRightAfterTheAuditWriterStartsLeavesItWorking) {
  char dir_template[] = "/tmp/vigil-confined-writer.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  constexpr int kChildren = 40;
  std::vector<pid_t> children;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Result<sentry::audit::AuditLog> log =
          sentry::audit::AuditLog::Open(dir + "/audit-" + std::to_string(i));
      if (!log) ::_exit(2);
      Result<std::unique_ptr<sentry::audit::AuditWriter>> writer =
          sentry::audit::AuditWriter::Start(std::move(*log), std::chrono::milliseconds(5));
      if (!writer || !ConfineSupervisor()) ::_exit(3);
      sentry::audit::Record* record = (*writer)->Claim();
      if (record == nullptr) ::_exit(4);
      record->syscall = "openat";
      (*writer)->Commit();
      (*writer)->Flush();
      ::_exit(0);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  std::filesystem::remove_all(dir);
  EXPECT_EQ(failed, 0) << "of " << kChildren << " children";
}

// In a child: the ptrace requests exec verification needs reach the kernel
// (ESRCH: the parent is not traced), those that read or write a tracee's
// memory or registers, or attach by force, are refused by the filter (EPERM).
TEST(SelfConfinementTest, OnceConfinedPtraceCannotReachMemory) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const pid_t parent = ::getppid();
    if (!ConfineSupervisor()) ::_exit(2);
    unsigned long message = 0;
    if (::ptrace(PTRACE_GETEVENTMSG, parent, nullptr, &message) != -1 || errno != ESRCH) ::_exit(3);
    if (::ptrace(PTRACE_DETACH, parent, nullptr, nullptr) != -1 || errno != ESRCH) ::_exit(4);
    for (int request : {PTRACE_PEEKDATA, PTRACE_POKEDATA, PTRACE_GETREGS, PTRACE_SETREGS,
                        PTRACE_ATTACH, PTRACE_TRACEME}) {
      errno = 0;
      if (::ptrace(static_cast<__ptrace_request>(request), parent, nullptr, nullptr) != -1 ||
          errno != EPERM) {
        ::_exit(10 + request);
      }
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// In a child: what the sentry's NETLINK_ROUTE sockets and unix peers need
// passes with its arguments only — any other socket, any namespace change
// (the deputy lives in the container's for good) or id change (a saved id
// above all: the way back to root) is EPERM.
TEST(SelfConfinementTest, OnceConfinedOnlyTheNetlinkOpeningsArguments) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    UniqueFd own(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
    if (!own || !ConfineSupervisor()) ::_exit(2);
    const int route = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (route < 0) ::_exit(3);
    if (::socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM) ::_exit(4);
    if (::socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT) != -1 || errno != EPERM) ::_exit(5);
    if (::setns(own.Get(), CLONE_NEWNET) != -1 || errno != EPERM) ::_exit(6);
    if (::setns(own.Get(), CLONE_NEWNS) != -1 || errno != EPERM) ::_exit(7);
    const uid_t euid = ::geteuid();
    const gid_t egid = ::getegid();
    if (::syscall(SYS_setresuid, -1, euid, -1) != 0) ::_exit(8);
    if (::syscall(SYS_setresuid, euid, euid, -1) != 0) ::_exit(9);
    if (::syscall(SYS_setresgid, egid, egid, -1) != 0) ::_exit(10);
    if (::syscall(SYS_setresuid, -1, -1, euid) != -1 || errno != EPERM) ::_exit(11);
    if (::syscall(SYS_setresgid, -1, -1, egid) != -1 || errno != EPERM) ::_exit(12);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The ptrace platform's supervisor also reads and sets registers (ESRCH:
// the parent is not traced); forcing an attach stays refused.
TEST(SelfConfinementTest, ThePtracePlatformMayReadRegistersOnly) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const pid_t parent = ::getppid();
    if (!ConfineSupervisor({.traces_workload = true})) ::_exit(2);
    for (int request : {PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_PEEKUSER}) {
      errno = 0;
      if (::ptrace(static_cast<__ptrace_request>(request), parent, nullptr, nullptr) != -1 ||
          errno != ESRCH) {
        ::_exit(10 + request);
      }
    }
    errno = 0;
    if (::ptrace(PTRACE_POKEDATA, parent, nullptr, nullptr) != -1 || errno != EPERM) ::_exit(3);
    if (::ptrace(PTRACE_ATTACH, parent, nullptr, nullptr) != -1 || errno != EPERM) ::_exit(4);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A supervisor running the sandbox's resolver opens UDP and TCP sockets to
// ask upstream; raw and packet sockets stay refused.
TEST(SelfConfinementTest, TheResolverMayOpenUdpAndTcpSocketsOnly) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!ConfineSupervisor({.resolves_names = true})) ::_exit(2);
    for (int type : {static_cast<int>(SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC),
                     static_cast<int>(SOCK_STREAM)}) {
      const int fd = ::socket(AF_INET6, type, 0);
      if (fd < 0 && errno != EAFNOSUPPORT) ::_exit(3);
      if (fd >= 0) ::close(fd);
    }
    if (::socket(AF_INET, SOCK_RAW, IPPROTO_UDP) != -1 || errno != EPERM) ::_exit(4);
    if (::socket(AF_PACKET, SOCK_DGRAM, 0) != -1 || errno != EPERM) ::_exit(5);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace vigil::supervisor
