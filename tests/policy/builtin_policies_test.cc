#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <string>

#include "config/policy/policy.h"

namespace vigil::config {
namespace {

using ::testing::ElementsAre;

Policy Builtin(std::string_view name) {
  Result<Policy> p = BuiltinPolicy(name);
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : Policy{};
}

bool ConnectAllowed(const Policy& p, const char* ip, std::uint16_t port) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(port);
  EXPECT_EQ(::inet_pton(AF_INET, ip, &in.sin_addr), 1);
  return EgressAllowed(p, reinterpret_cast<const sockaddr*>(&in), sizeof in);
}

bool UnixAllowed(const Policy& p) {
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  return EgressAllowed(p, reinterpret_cast<const sockaddr*>(&un), sizeof un);
}

// Whether an O_PATH open can be left to the kernel (open.cc KernelMayOpen):
// only where no file is hidden or denied.
// agent masks instead of hiding: no read needs the sentry's decision.
TEST(BuiltinPoliciesTest, NoBuiltinHidesOrDeniesFiles) {
  EXPECT_FALSE(HidesOrDeniesFiles(Builtin("default")));
  EXPECT_FALSE(HidesOrDeniesFiles(Builtin("audit-only")));
  EXPECT_FALSE(HidesOrDeniesFiles(Builtin("agent")));
  EXPECT_TRUE(RestrictsFiles(Builtin("agent")));
  Policy read_only;
  read_only.file_default = FileAccess::kRead;
  EXPECT_FALSE(HidesOrDeniesFiles(read_only));
  read_only.files.push_back({"/secret", FileAccess::kDenied});
  EXPECT_TRUE(HidesOrDeniesFiles(read_only));
  Policy hidden_default;
  hidden_default.file_default = FileAccess::kHidden;
  EXPECT_TRUE(HidesOrDeniesFiles(hidden_default));
}

TEST(BuiltinPoliciesTest, OnlyAgentRefusesSomeAddress) {
  EXPECT_TRUE(RefusesNoAddress(Builtin("default")));
  EXPECT_TRUE(RefusesNoAddress(Builtin("audit-only")));
  EXPECT_FALSE(RefusesNoAddress(Builtin("agent")));
  Policy no_unix;
  no_unix.unix_sockets = false;
  EXPECT_FALSE(RefusesNoAddress(no_unix));
  Policy deny;
  deny.egress_default_deny = true;
  deny.egress.push_back({});
  EXPECT_FALSE(RefusesNoAddress(deny));
  // A unix socket's path is a file: one the rules hide is refused.
  Policy hiding;
  hiding.files.push_back({.pattern = "/run/docker.sock", .access = FileAccess::kHidden});
  EXPECT_FALSE(RefusesNoAddress(hiding));
}

TEST(BuiltinPoliciesTest, Names) {
  EXPECT_THAT(BuiltinPolicyNames(), ElementsAre("default", "agent", "audit-only"));
  for (std::string_view name : BuiltinPolicyNames()) EXPECT_EQ(Builtin(name).name, name);
}

TEST(BuiltinPoliciesTest, UnknownNameListsTheKnownOnes) {
  Result<Policy> p = BuiltinPolicy("agnet");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            "unknown policy profile \"agnet\"; known profiles: default, agent, audit-only");
  EXPECT_FALSE(BuiltinPolicy(""));
  EXPECT_FALSE(BuiltinPolicy("Agent"));
}

TEST(BuiltinPoliciesTest, DefaultDeniesNothing) {
  Policy p = Builtin("default");
  EXPECT_EQ(FileAccessFor(p, "/etc/shadow"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/usr/bin/python3"), FileAccess::kWrite);
  EXPECT_TRUE(ConnectAllowed(p, "203.0.113.9", 443));
  EXPECT_TRUE(UnixAllowed(p));
  EXPECT_TRUE(ExecAllowed(p, "/tmp/a.out"));
  EXPECT_TRUE(p.exec_from_writable);
  EXPECT_FALSE(p.read_only_root);
  EXPECT_FALSE(p.no_setuid);
  EXPECT_FALSE(p.noexec_writable);
  EXPECT_EQ(p.audit, AuditLevel::kAll);
}

TEST(BuiltinPoliciesTest, AuditOnlyDeniesNothingAndAuditsAll) {
  Policy p = Builtin("audit-only");
  Policy expected = Builtin("default");
  expected.name = "audit-only";
  expected.observe = true;  // every file and network call is mediated, to be logged
  EXPECT_EQ(p, expected);
  EXPECT_EQ(p.audit, AuditLevel::kAll);
}

TEST(BuiltinPoliciesTest, AgentFiles) {
  Policy p = Builtin("agent");
  EXPECT_EQ(p.file_default, FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/usr/bin/python3"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/etc/passwd"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/tmp"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/tmp/build/out.o"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/tmpfile"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/dev/shm/sem.x"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/dev/null"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/dev/pts/0"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(p, "/dev/sda"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/proc/self/status"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/proc/sys/kernel/core_pattern"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/sys/fs/cgroup/memory.max"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(p, "/proc/kcore"), FileAccess::kMasked);
  EXPECT_EQ(FileAccessFor(p, "/proc/sysrq-trigger"), FileAccess::kMasked);
  EXPECT_EQ(FileAccessFor(p, "/proc/keys"), FileAccess::kMasked);
  EXPECT_EQ(FileAccessFor(p, "/proc/acpi"), FileAccess::kMasked);
  EXPECT_EQ(FileAccessFor(p, "/sys/firmware/efi/efivars"), FileAccess::kMasked);
  EXPECT_EQ(FileAccessFor(p, "/sys/kernel/debug"), FileAccess::kMasked);
}

TEST(BuiltinPoliciesTest, AgentNetworkExecAndHardening) {
  Policy p = Builtin("agent");
  EXPECT_TRUE(p.egress_default_deny);
  EXPECT_TRUE(p.egress.empty());
  EXPECT_FALSE(ConnectAllowed(p, "203.0.113.9", 443));
  EXPECT_FALSE(ConnectAllowed(p, "127.0.0.1", 8080));
  EXPECT_TRUE(UnixAllowed(p));
  EXPECT_TRUE(ExecAllowed(p, "/usr/bin/python3"));
  EXPECT_FALSE(p.exec_from_writable);
  EXPECT_TRUE(p.read_only_root);
  EXPECT_TRUE(p.no_setuid);
  EXPECT_TRUE(p.noexec_writable);
  // Reads neither decided nor audited: the kernel's.
  EXPECT_EQ(p.audit, AuditLevel::kActions);
  EXPECT_FALSE(MediatesReads(p));
  EXPECT_TRUE(MediatesReads(Builtin("audit-only")));
}

TEST(BuiltinPoliciesTest, EveryBuiltinPassesTheParsersChecks) {
  for (std::string_view name : BuiltinPolicyNames()) {
    Result<Policy> parsed = ParsePolicy(DumpPolicy(Builtin(name)));
    EXPECT_TRUE(parsed) << name << ": " << parsed.error().message;
  }
}

}  // namespace
}  // namespace vigil::config
