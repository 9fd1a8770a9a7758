#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/seccomp.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>

#include "seccomp/profile.h"
#include "tests/seccomp/under_filter.h"

namespace vigil::runtime {
namespace {

using config::Seccomp;
using config::SeccompAction;
using config::SeccompOperator;
using testing::Arg;
using ::testing::ElementsAre;
using testing::ErrnoOf;
using testing::Exited;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::KilledBy;
using testing::Rule;
using testing::RunUnderFilter;
using ::testing::StartsWith;

seccomp::CompiledFilter MustCompile(const Seccomp& profile) {
  Result<seccomp::CompiledFilter> compiled = seccomp::CompileSeccomp(profile);
  EXPECT_TRUE(compiled) << compiled.error().message;
  return compiled ? std::move(*compiled) : seccomp::CompiledFilter{};
}

std::string CompileError(const Seccomp& profile) {
  Result<seccomp::CompiledFilter> compiled = seccomp::CompileSeccomp(profile);
  EXPECT_FALSE(compiled);
  return compiled ? "" : compiled.error().message;
}

// An allow-list profile: everything else fails with `default_errno`.
Seccomp AllowOnly(std::vector<std::string> names, std::optional<std::uint32_t> default_errno) {
  names.push_back("exit_group");
  names.push_back("exit");
  return Seccomp{.default_action = SeccompAction::kErrno,
                 .default_errno_ret = default_errno,
                 .syscalls = {Rule(std::move(names), SeccompAction::kAllow)}};
}

// ---- Compiling ----

TEST(CompileSeccompTest, AllowAllCompilesToAProgramWithoutFlags) {
  seccomp::CompiledFilter filter = MustCompile(Seccomp{.default_action = SeccompAction::kAllow});
  EXPECT_FALSE(filter.program.empty());
  EXPECT_EQ(filter.flags, 0u);
  EXPECT_FALSE(filter.has_notify);
  EXPECT_THAT(filter.skipped_names, IsEmpty());
}

TEST(CompileSeccompTest, AcceptsTheNativeArchitectureAndItsCompanions) {
  MustCompile(Seccomp{
      .default_action = SeccompAction::kAllow,
      .architectures = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_X86"}});
}

TEST(CompileSeccompTest, UnknownArchitectureNamesItsIndex) {
  EXPECT_THAT(CompileError(Seccomp{.architectures = {"SCMP_ARCH_X86", "SCMP_ARCH_VAX"}}),
              StartsWith("linux.seccomp.architectures[1]: unknown value \"SCMP_ARCH_VAX\""));
}

TEST(CompileSeccompTest, ArchitectureThatCannotShareTheFilterNamesItsIndex) {
  // s390x is big-endian: one BPF program cannot serve it and x86_64.
  EXPECT_THAT(CompileError(Seccomp{.architectures = {"SCMP_ARCH_S390X"}}),
              StartsWith("linux.seccomp.architectures[0]: SCMP_ARCH_S390X cannot share a filter"));
}

TEST(CompileSeccompTest, UnknownFlagNamesItsIndex) {
  EXPECT_THAT(
      CompileError(Seccomp{.flags = {"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_BOGUS"}}),
      StartsWith("linux.seccomp.flags[1]: unknown value \"SECCOMP_FILTER_FLAG_BOGUS\""));
}

TEST(CompileSeccompTest, FlagsGoToSeccompAsTheyAre) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                    "SECCOMP_FILTER_FLAG_SPEC_ALLOW"}});
  EXPECT_EQ(filter.flags,
            SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW);
}

TEST(CompileSeccompTest, WaitKillableRecvIsDroppedWithoutANotifyRule) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.flags = {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"}});
  EXPECT_EQ(filter.flags, 0u);
}

TEST(CompileSeccompTest, WaitKillableRecvIsKeptWithANotifyRule) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.flags = {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"},
                          .listener_path = "/run/agent.sock",
                          .syscalls = {Rule({"getppid"}, SeccompAction::kNotify)}});
  EXPECT_TRUE(filter.has_notify);
  EXPECT_EQ(filter.flags, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
}

TEST(CompileSeccompTest, TsyncWithANotifyRuleAddsTsyncEsrch) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.flags = {"SECCOMP_FILTER_FLAG_TSYNC"},
                          .listener_path = "/run/agent.sock",
                          .syscalls = {Rule({"getppid"}, SeccompAction::kNotify)}});
  EXPECT_EQ(filter.flags, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH);
}

TEST(CompileSeccompTest, NotifyCannotBeTheDefaultAction) {
  EXPECT_THAT(CompileError(Seccomp{.default_action = SeccompAction::kNotify}),
              StartsWith("linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be"));
}

TEST(CompileSeccompTest, ArgumentIndexAboveFiveNamesItsPath) {
  Seccomp profile{
      .syscalls = {Rule({"getppid"}, SeccompAction::kErrno),
                   Rule({"personality"}, SeccompAction::kErrno, std::nullopt,
                        {Arg(0, SeccompOperator::kEqual, 0), Arg(6, SeccompOperator::kEqual, 0)})}};
  EXPECT_THAT(CompileError(profile),
              StartsWith("linux.seccomp.syscalls[1].args[1].index: syscalls take at most 6 "
                         "arguments (index 0-5), got 6"));
}

TEST(CompileSeccompTest, ErrnoRetMustBeAnErrno) {
  EXPECT_THAT(CompileError(Seccomp{.syscalls = {Rule({"getppid"}, SeccompAction::kErrno, 65537)}}),
              StartsWith("linux.seccomp.syscalls[0].errnoRet: must be an errno below 4095, "
                         "got 65537"));
  EXPECT_THAT(
      CompileError(Seccomp{.default_action = SeccompAction::kErrno, .default_errno_ret = 4095}),
      StartsWith("linux.seccomp.defaultErrnoRet: must be an errno below 4095"));
}

TEST(CompileSeccompTest, ErrnoRetNeedsAnActionThatTakesIt) {
  EXPECT_THAT(CompileError(Seccomp{.syscalls = {Rule({"getppid"}, SeccompAction::kAllow, 1)}}),
              StartsWith("linux.seccomp.syscalls[0].errnoRet: only meaningful with"));
}

TEST(CompileSeccompTest, UnknownSyscallNamesAreSkippedAndReported) {
  Seccomp profile{
      .syscalls = {Rule({"getppid", "no_such_syscall", "no_such_syscall"}, SeccompAction::kErrno),
                   Rule({"also_not_a_syscall", "no_such_syscall"}, SeccompAction::kKillProcess)}};
  seccomp::CompiledFilter filter = MustCompile(profile);
  EXPECT_THAT(filter.skipped_names, ElementsAre("no_such_syscall", "also_not_a_syscall"));
  // The known name of the same rule still applies.
  EXPECT_THAT(RunUnderFilter(filter, [] { return ErrnoOf(::syscall(SYS_getppid)); }),
              Exited(EPERM));
}

TEST(CompileSeccompTest, SyscallsOfAnotherArchitectureOnlyAreNotSkipped) {
  // socketcall exists on x86, not on x86_64: libseccomp knows the name.
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kErrno,
                          .architectures = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86"},
                          .syscalls = {Rule({"socketcall", "exit_group"}, SeccompAction::kAllow)}});
  EXPECT_THAT(filter.skipped_names, IsEmpty());
}

TEST(CompileSeccompTest, RuleWithTheDefaultActionIsSkipped) {
  // ERRNO without errnoRet is ERRNO(EPERM), the same as the default here.
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kErrno,
                          .syscalls = {Rule({"exit_group"}, SeccompAction::kAllow),
                                       Rule({"getppid"}, SeccompAction::kErrno, EPERM),
                                       Rule({"getcwd"}, SeccompAction::kErrno)}});
  char buf[256];
  EXPECT_THAT(
      RunUnderFilter(filter, [&] { return ErrnoOf(::syscall(SYS_getcwd, buf, sizeof buf)); }),
      Exited(EPERM));
}

// ---- Loading: what the workload sees ----

TEST(LoadSeccompTest, ErrnoDefaultDeniesWhatTheAllowListLeavesOut) {
  seccomp::CompiledFilter filter = MustCompile(AllowOnly({"getppid"}, std::nullopt));
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               if (::syscall(SYS_getppid) < 0) return 100;
                               char buf[256];
                               return ErrnoOf(::syscall(SYS_getcwd, buf, sizeof buf));
                             }),
              Exited(EPERM));
}

TEST(LoadSeccompTest, DefaultErrnoRetIsTheErrno) {
  seccomp::CompiledFilter filter = MustCompile(AllowOnly({"getppid"}, EACCES));
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               utsname u;
                               return ErrnoOf(::syscall(SYS_uname, &u));
                             }),
              Exited(EACCES));
}

TEST(LoadSeccompTest, RuleErrnoRetIsTheErrno) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getcwd"}, SeccompAction::kErrno, ENOSYS)}});
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               utsname u;
                               if (::syscall(SYS_uname, &u) != 0) return 100;
                               char buf[256];
                               return ErrnoOf(::syscall(SYS_getcwd, buf, sizeof buf));
                             }),
              Exited(ENOSYS));
}

TEST(LoadSeccompTest, ArgumentEqualAllowsOnlyThatValue) {
  // Docker's personality rule: the query 0xffffffff, nothing that changes it.
  Seccomp profile = AllowOnly({}, std::nullopt);
  profile.syscalls.push_back(Rule({"personality"}, SeccompAction::kAllow, std::nullopt,
                                  {Arg(0, SeccompOperator::kEqual, 0xffffffff)}));
  seccomp::CompiledFilter filter = MustCompile(profile);
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               if (::syscall(SYS_personality, 0xffffffffUL) < 0) return 100;
                               return ErrnoOf(::syscall(SYS_personality, PER_LINUX));
                             }),
              Exited(EPERM));
}

// Each operator against getpriority(which, 0) for which = PRIO_PROCESS (0),
// PRIO_PGRP (1), PRIO_USER (2): bit `which` of the result is set when the
// filter denied that call.
struct OperatorCase {
  const char* name;
  config::SeccompArg arg;
  int denied_mask;
};

class OperatorTest : public ::testing::TestWithParam<OperatorCase> {};

TEST_P(OperatorTest, DeniesExactlyTheMatchingValues) {
  const OperatorCase& c = GetParam();
  seccomp::CompiledFilter filter = MustCompile(
      Seccomp{.default_action = SeccompAction::kAllow,
              .syscalls = {Rule({"getpriority"}, SeccompAction::kErrno, EACCES, {c.arg})}});
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               int denied = 0;
                               for (int which = 0; which < 3; ++which) {
                                 int err = ErrnoOf(::syscall(SYS_getpriority, which, 0));
                                 if (err == EACCES) denied |= 1 << which;
                                 if (err != 0 && err != EACCES) return 100 + err;
                               }
                               return denied;
                             }),
              Exited(c.denied_mask))
      << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Operators, OperatorTest,
    ::testing::Values(
        OperatorCase{"EQ 1", Arg(0, SeccompOperator::kEqual, 1), 0b010},
        OperatorCase{"NE 1", Arg(0, SeccompOperator::kNotEqual, 1), 0b101},
        OperatorCase{"LT 1", Arg(0, SeccompOperator::kLessThan, 1), 0b001},
        OperatorCase{"LE 1", Arg(0, SeccompOperator::kLessEqual, 1), 0b011},
        OperatorCase{"GT 1", Arg(0, SeccompOperator::kGreaterThan, 1), 0b100},
        OperatorCase{"GE 1", Arg(0, SeccompOperator::kGreaterEqual, 1), 0b110},
        // value is the mask, valueTwo the datum.
        OperatorCase{"MASKED_EQ 2 2", Arg(0, SeccompOperator::kMaskedEqual, 2, 2), 0b100},
        OperatorCase{"MASKED_EQ 1 0", Arg(0, SeccompOperator::kMaskedEqual, 1, 0), 0b101}),
    [](const ::testing::TestParamInfo<OperatorCase>& info) {
      std::string name;
      for (const char* p = info.param.name; *p != '\0'; ++p) {
        if (std::isalnum(static_cast<unsigned char>(*p))) name += *p;
      }
      return name;
    });

TEST(LoadSeccompTest, ConditionsOnDifferentArgumentsAreAnded) {
  // Denied only for getpriority(PRIO_PROCESS, 0).
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getpriority"}, SeccompAction::kErrno, EACCES,
                                            {Arg(0, SeccompOperator::kEqual, PRIO_PROCESS),
                                             Arg(1, SeccompOperator::kEqual, 0)})}});
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               if (::syscall(SYS_getpriority, PRIO_USER, 0) < 0) return 100;
                               if (::syscall(SYS_getpriority, PRIO_PROCESS, ::getpid()) < 0) {
                                 return 101;
                               }
                               return ErrnoOf(::syscall(SYS_getpriority, PRIO_PROCESS, 0));
                             }),
              Exited(EACCES));
}

TEST(LoadSeccompTest, ConditionsOnTheSameArgumentAreOredLikeRunc) {
  // "which >= 5" and "which <= 0" can never both hold; runc (and vigil) turn
  // them into two rules, so either one denies.
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getpriority"}, SeccompAction::kErrno, EACCES,
                                            {Arg(0, SeccompOperator::kGreaterEqual, 5),
                                             Arg(0, SeccompOperator::kLessEqual, 0)})}});
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               if (::syscall(SYS_getpriority, PRIO_USER, 0) < 0) return 100;
                               // Without the filter: EINVAL.
                               if (ErrnoOf(::syscall(SYS_getpriority, 7, 0)) != EACCES) return 101;
                               return ErrnoOf(::syscall(SYS_getpriority, PRIO_PROCESS, 0));
                             }),
              Exited(EACCES));
}

TEST(LoadSeccompTest, KillProcessKillsWithSigsys) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getppid"}, SeccompAction::kKillProcess)}});
  EXPECT_THAT(RunUnderFilter(filter, [] { return ErrnoOf(::syscall(SYS_getppid)) + 1; }),
              KilledBy(SIGSYS));
}

TEST(LoadSeccompTest, KillAndKillThreadKillTheOnlyThreadWithSigsys) {
  for (SeccompAction action : {SeccompAction::kKill, SeccompAction::kKillThread}) {
    seccomp::CompiledFilter filter = MustCompile(
        Seccomp{.default_action = SeccompAction::kAllow, .syscalls = {Rule({"getppid"}, action)}});
    EXPECT_THAT(RunUnderFilter(filter, [] { return ErrnoOf(::syscall(SYS_getppid)) + 1; }),
                KilledBy(SIGSYS));
  }
}

// si_code of a seccomp SIGSYS (SYS_SECCOMP in asm-generic/siginfo.h, which
// clashes with glibc's <signal.h>).
constexpr int kSysSeccomp = 1;

void OnSigsys(int, siginfo_t* info, void*) {
  ::_exit(info->si_code == kSysSeccomp && info->si_syscall == SYS_getppid ? 42 : 43);
}

TEST(LoadSeccompTest, TrapDeliversSigsysNamingTheSyscall) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getppid"}, SeccompAction::kTrap)}});
  EXPECT_THAT(RunUnderFilter(filter,
                             [] {
                               struct sigaction sa {};
                               sa.sa_sigaction = OnSigsys;
                               sa.sa_flags = SA_SIGINFO;
                               ::sigaction(SIGSYS, &sa, nullptr);
                               ::syscall(SYS_getppid);
                               return 1;
                             }),
              Exited(42));
}

TEST(LoadSeccompTest, LogAllows) {
  Seccomp profile = AllowOnly({}, std::nullopt);
  profile.syscalls.push_back(Rule({"getppid"}, SeccompAction::kLog));
  seccomp::CompiledFilter filter = MustCompile(profile);
  const pid_t parent = ::getpid();
  EXPECT_THAT(RunUnderFilter(filter, [&] { return ::syscall(SYS_getppid) == parent ? 0 : 1; }),
              Exited(0));
}

TEST(LoadSeccompTest, TraceWithoutATracerFailsWithEnosys) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kAllow,
                          .syscalls = {Rule({"getppid"}, SeccompAction::kTrace, 5)}});
  EXPECT_THAT(RunUnderFilter(filter, [] { return ErrnoOf(::syscall(SYS_getppid)); }),
              Exited(ENOSYS));
}

TEST(LoadSeccompTest, ListedFlagsAreAcceptedByTheKernel) {
  seccomp::CompiledFilter filter = MustCompile(
      Seccomp{.default_action = SeccompAction::kAllow,
              .flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                        "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"},
              .syscalls = {Rule({"getcwd"}, SeccompAction::kErrno)}});
  char buf[256];
  EXPECT_THAT(
      RunUnderFilter(filter, [&] { return ErrnoOf(::syscall(SYS_getcwd, buf, sizeof buf)); }),
      Exited(EPERM));
}

TEST(LoadSeccompTest, WithoutNotifyThereIsNoListener) {
  seccomp::CompiledFilter filter = MustCompile(Seccomp{.default_action = SeccompAction::kAllow});
  EXPECT_THAT(testing::WaitStatus(testing::SpawnUnderFilter(
                  filter, [](int listener) { return listener == -1 ? 0 : 1; })),
              Exited(0));
}

TEST(LoadSeccompTest, NotifyReturnsACloseOnExecListener) {
  seccomp::CompiledFilter filter = MustCompile(
      Seccomp{.default_action = SeccompAction::kAllow,
              .flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"},
              .listener_path = "/run/agent.sock",
              .syscalls = {Rule({"getppid"}, SeccompAction::kNotify)}});
  EXPECT_THAT(testing::WaitStatus(testing::SpawnUnderFilter(filter,
                                                            [](int listener) {
                                                              if (listener < 0) return 1;
                                                              int flags =
                                                                  ::fcntl(listener, F_GETFD);
                                                              return flags & FD_CLOEXEC ? 0 : 2;
                                                            })),
              Exited(0));
}

// runc's -ENOSYS stub: a syscall numbered above every one the profile
// names is newer than the profile, and gets ENOSYS so that callers fall
// back; one below keeps the default errno.
TEST(LoadSeccompTest, SyscallsNewerThanTheProfileGetEnosys) {
  seccomp::CompiledFilter filter =
      MustCompile(Seccomp{.default_action = SeccompAction::kErrno,
                          .syscalls = {Rule({"exit_group", "exit"}, SeccompAction::kAllow)}});
  auto errno_of = [](long nr) { return ::syscall(nr, 0, 0, 0) < 0 ? errno : 0; };
  EXPECT_THAT(RunUnderFilter(filter,
                             [&] {
                               if (errno_of(1000) != ENOSYS) return 1;
                               if (errno_of(SYS_getrandom) != ENOSYS) return 2;  // 318 > 231
                               if (errno_of(SYS_getpid) != EPERM) return 3;      // 39 < 231
                               return 0;
                             }),
              Exited(0));
}

TEST(LoadSeccompTest, OnlyARefusingDefaultGetsTheEnosysStub) {
  auto returns_enosys = [](const seccomp::CompiledFilter& filter) {
    return std::any_of(filter.program.begin(), filter.program.end(), [](const sock_filter& i) {
      return i.code == (BPF_RET | BPF_K) && i.k == (SECCOMP_RET_ERRNO | ENOSYS);
    });
  };
  EXPECT_TRUE(
      returns_enosys(MustCompile(Seccomp{.default_action = SeccompAction::kErrno,
                                         .syscalls = {Rule({"getppid"}, SeccompAction::kAllow)}})));
  for (SeccompAction lets_through :
       {SeccompAction::kAllow, SeccompAction::kLog, SeccompAction::kTrace}) {
    EXPECT_FALSE(returns_enosys(MustCompile(Seccomp{
        .default_action = lets_through, .syscalls = {Rule({"getppid"}, SeccompAction::kErrno)}})));
  }
}

TEST(LoadSeccompTest, RejectsAnEmptyProgram) {
  Result<UniqueFd> loaded = seccomp::LoadSeccomp(seccomp::CompiledFilter{});
  ASSERT_FALSE(loaded);
  EXPECT_THAT(loaded.error().message, HasSubstr("a program of 0 instructions"));
}

// ---- What a profile lets through whatever the arguments ----

TEST(AllowsUnconditionallyTest, AnAllowingDefaultLetsThroughWhatNoRuleNames) {
  EXPECT_TRUE(
      seccomp::AllowsUnconditionally(Seccomp{.default_action = SeccompAction::kAllow}, "recvmsg"));
  EXPECT_TRUE(
      seccomp::AllowsUnconditionally(Seccomp{.default_action = SeccompAction::kLog}, "recvmsg"));
  EXPECT_FALSE(seccomp::AllowsUnconditionally(AllowOnly({"read"}, EPERM), "recvmsg"));
}

TEST(AllowsUnconditionallyTest, ARuleThatAllowsWithoutConditionsLetsItThrough) {
  EXPECT_TRUE(seccomp::AllowsUnconditionally(AllowOnly({"read", "recvmsg"}, EPERM), "recvmsg"));
}

TEST(AllowsUnconditionallyTest, ARuleWithConditionsOrAnotherActionDoesNot) {
  Seccomp conditional = AllowOnly({"read"}, EPERM);
  conditional.syscalls.push_back(
      Rule({"recvmsg"}, SeccompAction::kAllow, std::nullopt, {Arg(0, SeccompOperator::kEqual, 3)}));
  EXPECT_FALSE(seccomp::AllowsUnconditionally(conditional, "recvmsg"));

  Seccomp refused{.default_action = SeccompAction::kAllow,
                  .syscalls = {Rule({"recvmsg"}, SeccompAction::kErrno)}};
  EXPECT_FALSE(seccomp::AllowsUnconditionally(refused, "recvmsg"));

  // Allowed without conditions by one rule, refused for some arguments by
  // another: not whatever the arguments.
  Seccomp both = AllowOnly({"recvmsg"}, EPERM);
  both.syscalls.push_back(Rule({"recvmsg"}, SeccompAction::kKillThread, std::nullopt,
                               {Arg(2, SeccompOperator::kEqual, 0)}));
  EXPECT_FALSE(seccomp::AllowsUnconditionally(both, "recvmsg"));
}

TEST(AllowsUnconditionallyTest, ARuleWithTheDefaultActionChangesNothing) {
  Seccomp profile{.default_action = SeccompAction::kAllow,
                  .syscalls = {Rule({"recvmsg"}, SeccompAction::kAllow, std::nullopt,
                                    {Arg(0, SeccompOperator::kEqual, 3)})}};
  EXPECT_TRUE(seccomp::AllowsUnconditionally(profile, "recvmsg"));
}

}  // namespace
}  // namespace vigil::runtime
