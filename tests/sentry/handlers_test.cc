// Handler decisions against a fake tracee: the answer written, EFAULT for a
// bad pointer, nothing done once the notification is stale.
#include <gtest/gtest.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>

#include <cstring>

#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {
namespace {

Sandbox TestSandbox() {
  Sandbox sandbox;
  sandbox.container_id = "c1";
  sandbox.uts_names = [] {
    utsname names{};
    std::strcpy(names.sysname, "Linux");
    std::strcpy(names.machine, "x86_64");
    std::strcpy(names.nodename, "box");
    std::strcpy(names.release, "6.18.44-host");
    std::strcpy(names.domainname, "example");
    return Result<utsname>(names);
  };
  sandbox.memory = [] {
    return Result<ContainerMemory>(ContainerMemory{.limit = 64 << 20, .usage = 16 << 20});
  };
  sandbox.process_count = [] { return Result<std::uint32_t>(3); };
  return sandbox;
}

Verdict HandleCall(int number, std::uint64_t arg0, FakeTracee& tracee, const Sandbox& sandbox) {
  SyscallEvent event{.tid = 42, .number = number, .args = {arg0}};
  HandlerContext context{.event = event, .tracee = tracee, .sandbox = sandbox};
  return HandleAsLoop(FindSyscall(number)->handler, context);
}

TEST(Uname, AnswersTheSandboxNamesAndRelease) {
  Sandbox sandbox = TestSandbox();
  sandbox.kernel_release = "5.15.0-vigil";
  FakeTracee tracee;
  Verdict verdict = HandleCall(SYS_uname, FakeTracee::kBase, tracee, sandbox);
  EXPECT_EQ(verdict.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.decision, Decision::kEmulate);
  auto names = tracee.ObjectAt<utsname>(FakeTracee::kBase);
  EXPECT_STREQ(names.nodename, "box");
  EXPECT_STREQ(names.domainname, "example");
  EXPECT_STREQ(names.release, "5.15.0-vigil");
}

TEST(Uname, KeepsTheHostReleaseUnlessConfigured) {
  FakeTracee tracee;
  HandleCall(SYS_uname, FakeTracee::kBase, tracee, TestSandbox());
  EXPECT_STREQ(tracee.ObjectAt<utsname>(FakeTracee::kBase).release, "6.18.44-host");
}

TEST(Uname, Linux32PersonalitySeesA32BitMachine) {
  FakeTracee tracee;
  tracee.persona = PER_LINUX32;
  HandleCall(SYS_uname, FakeTracee::kBase, tracee, TestSandbox());
  EXPECT_STREQ(tracee.ObjectAt<utsname>(FakeTracee::kBase).machine, "i686");
}

TEST(Uname, ALongReleaseIsTruncatedAndTerminated) {
  Sandbox sandbox = TestSandbox();
  sandbox.kernel_release = std::string(200, 'r');
  FakeTracee tracee;
  HandleCall(SYS_uname, FakeTracee::kBase, tracee, sandbox);
  auto names = tracee.ObjectAt<utsname>(FakeTracee::kBase);
  EXPECT_EQ(std::strlen(names.release), sizeof names.release - 1);
}

TEST(Uname, BadPointerIsEfault) {
  FakeTracee tracee;
  Verdict verdict = HandleCall(SYS_uname, 0x1, tracee, TestSandbox());
  EXPECT_EQ(verdict.error, EFAULT);
  // The buffer straddles the end of the mapping.
  verdict = HandleCall(SYS_uname, FakeTracee::kBase + 4096 - 100, tracee, TestSandbox());
  EXPECT_EQ(verdict.error, EFAULT);
  EXPECT_EQ(tracee.writes, 0);
}

TEST(Uname, StaleNotificationWritesNothing) {
  FakeTracee tracee;
  tracee.valid = false;
  Verdict verdict = HandleCall(SYS_uname, FakeTracee::kBase, tracee, TestSandbox());
  EXPECT_EQ(verdict.kind, Verdict::Kind::kStale);
  EXPECT_EQ(tracee.writes, 0);
}

TEST(Sysinfo, MemoryComesFromTheCgroupLimit) {
  FakeTracee tracee;
  Sandbox sandbox = TestSandbox();
  Verdict verdict = HandleCall(SYS_sysinfo, FakeTracee::kBase, tracee, sandbox);
  EXPECT_EQ(verdict.error, 0);
  auto info = tracee.ObjectAt<struct sysinfo>(FakeTracee::kBase);
  EXPECT_EQ(info.totalram * info.mem_unit, 64u << 20);
  EXPECT_EQ(info.freeram * info.mem_unit, 48u << 20);
  EXPECT_EQ(info.totalswap, 0u);
  EXPECT_EQ(info.procs, 3);
}

TEST(Sysinfo, UnlimitedContainerSeesTheHostMemory) {
  FakeTracee tracee;
  Sandbox sandbox = TestSandbox();
  sandbox.memory = [] { return Result<ContainerMemory>(ContainerMemory{.usage = 1}); };
  HandleCall(SYS_sysinfo, FakeTracee::kBase, tracee, sandbox);
  struct sysinfo host {};
  ASSERT_EQ(::sysinfo(&host), 0);
  EXPECT_EQ(tracee.ObjectAt<struct sysinfo>(FakeTracee::kBase).totalram, host.totalram);
}

TEST(Sysinfo, UptimeCountsFromTheContainerStart) {
  struct sysinfo host {};
  ASSERT_EQ(::sysinfo(&host), 0);
  Sandbox sandbox = TestSandbox();
  sandbox.started_after_boot = static_cast<std::uint64_t>(host.uptime) - 5;
  FakeTracee tracee;
  HandleCall(SYS_sysinfo, FakeTracee::kBase, tracee, sandbox);
  long uptime = tracee.ObjectAt<struct sysinfo>(FakeTracee::kBase).uptime;
  EXPECT_GE(uptime, 5);
  EXPECT_LE(uptime, 7);
}

TEST(Sysinfo, BadPointerIsEfault) {
  FakeTracee tracee;
  EXPECT_EQ(HandleCall(SYS_sysinfo, 0, tracee, TestSandbox()).error, EFAULT);
}

}  // namespace
}  // namespace vigil::sentry
