// ParseSpec and DumpSpec for linux.seccomp, as spec_sections_test.cc tests
// the other sections.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tests/config/spec_sections.h"

namespace vigil::config {
namespace {

// ---- linux.seccomp ----------------------------------------------------------

TEST(SeccompTest, ParsesTheFilterHeader) {
  auto spec = ParseWith(kSeccomp);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->linux_spec->seccomp);
  const Seccomp& s = *spec->linux_spec->seccomp;
  EXPECT_EQ(s.default_action, SeccompAction::kErrno);
  EXPECT_EQ(s.default_errno_ret, 1u);
  EXPECT_EQ(s.architectures, (Strings{"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"}));
  EXPECT_EQ(s.flags, (Strings{"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"}));
  EXPECT_EQ(s.listener_path, "/run/seccomp-agent.sock");
  EXPECT_EQ(s.listener_metadata, "pod=a");
}

TEST(SeccompTest, ParsesSyscallsArgsAndErrnoRet) {
  auto spec = ParseWith(kSeccomp);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(
      spec->linux_spec->seccomp->syscalls,
      (std::vector<SeccompSyscall>{
          {.names = {"read", "write"}, .action = SeccompAction::kAllow},
          {.names = {"personality"},
           .action = SeccompAction::kAllow,
           .args =
               {{.index = 0, .value = 8, .op = SeccompOperator::kEqual},
                {.index = 1, .value = 255, .value_two = 8, .op = SeccompOperator::kMaskedEqual}}},
          {.names = {"mount"}, .action = SeccompAction::kErrno, .errno_ret = 38},
          {.names = {"ioctl"}, .action = SeccompAction::kNotify},
      }));
}

TEST(SeccompTest, ErrnoRetIsAbsentUnlessGiven) {
  auto spec = ParseWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ERRNO"}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_FALSE(spec->linux_spec->seccomp->default_errno_ret);
}

TEST(SeccompTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"syscalls": []}})"),
            "linux.seccomp.defaultAction: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
                                               "defaultErrnoRet": -1}})"),
            "linux.seccomp.defaultErrnoRet: expected unsigned 32-bit integer, got number -1");
}

TEST(SeccompTest, SyscallErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"], "action": "SCMP_ACT_LOG"},
                           {"action": "SCMP_ACT_LOG"}]}})"),
            "linux.seccomp.syscalls[1].names: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"]}]}})"),
            "linux.seccomp.syscalls[0].action: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"], "action": "SCMP_ACT_ERRNO",
                            "errnoRet": "EPERM"}]}})"),
            R"(linux.seccomp.syscalls[0].errnoRet: expected unsigned 32-bit integer, )"
            R"(got string "EPERM")");
}

TEST(SeccompTest, ArgErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"], "action": "SCMP_ACT_LOG",
                            "args": [{"index": 0, "value": 1, "op": "EQ"}]}]}})"),
            R"(linux.seccomp.syscalls[0].args[0].op: unknown value "EQ"; expected one of )"
            "SCMP_CMP_NE, SCMP_CMP_LT, SCMP_CMP_LE, SCMP_CMP_EQ, SCMP_CMP_GE, SCMP_CMP_GT, "
            "SCMP_CMP_MASKED_EQ");
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"], "action": "SCMP_ACT_LOG",
                            "args": [{"value": 1, "op": "SCMP_CMP_EQ"}]}]}})"),
            "linux.seccomp.syscalls[0].args[0].index: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
                           {"names": ["read"], "action": "SCMP_ACT_LOG",
                            "args": [{"index": 0, "value": -1, "op": "SCMP_CMP_EQ"}]}]}})"),
            "linux.seccomp.syscalls[0].args[0].value: expected unsigned integer, got number -1");
}

TEST(SeccompTest, ArgValuesUseAllSixtyFourBits) {
  auto spec = ParseWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
      {"names": ["x"], "action": "SCMP_ACT_LOG", "args": [
        {"index": 5, "value": 18446744073709551615, "valueTwo": 9223372036854775808,
         "op": "SCMP_CMP_MASKED_EQ"}]}]}})");
  ASSERT_TRUE(spec) << spec.error().message;
  const SeccompArg& arg = spec->linux_spec->seccomp->syscalls.at(0).args.at(0);
  EXPECT_EQ(arg.value, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(arg.value_two, std::uint64_t{1} << 63);
  ExpectRoundTrip(*spec);
}

TEST(SeccompTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_LOG",
                                                 "x-vendor": "notify", "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_LOG", "x-comment": 1, "args": [
        {"index": 0, "value": 0, "op": "SCMP_CMP_EQ", "x-name": "fd"}]}]}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->seccomp,
            (Seccomp{.default_action = SeccompAction::kLog,
                     .syscalls = {{.names = {"read"},
                                   .action = SeccompAction::kLog,
                                   .args = {{.index = 0, .op = SeccompOperator::kEqual}}}}}));
}

TEST(SeccompTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kSeccomp);
  // A rule with an empty names list keeps its (required) property.
  ExpectParsesAndRoundTrips(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_KILL",
      "syscalls": [{"names": [], "action": "SCMP_ACT_ALLOW"}]}})");
}

}  // namespace
}  // namespace vigil::config
