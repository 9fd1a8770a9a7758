// The policy compiler: what each layer gets from a policy and a config, the
// host facts it asks for, the compiled result's JSON, and the same result
// for a container recorded before the compiler.
#include "runtime/policy/policy_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "config/oci/default_spec.h"
#include "runtime/container/record.h"

namespace vigil::runtime {
namespace {

using ::testing::Contains;
using ::testing::IsEmpty;

int asked = 0;
int Abi7() {
  ++asked;
  return 7;
}
int NoLandlock() {
  ++asked;
  return 0;
}

config::Spec WorkSpec() {
  config::Spec spec = config::DefaultSpec();
  spec.root->readonly = false;
  spec.process->cwd = "/work";
  return spec;
}

bool HasRule(const config::Policy& policy, const config::FileRule& rule) {
  return std::find(policy.files.begin(), policy.files.end(), rule) != policy.files.end();
}

TEST(PolicyCompilerTest, AgentPutsEachRuleAtItsLayer) {
  config::Spec spec = WorkSpec();
  CompiledPolicy compiled = CompilePolicy(*config::BuiltinPolicy("agent"), spec,
                                          sentry::Platform::kUnotify, {.landlock_abi = Abi7});
  // The config: a read-only root, scratch tmpfs, masks.
  EXPECT_TRUE(spec.root->readonly);
  EXPECT_THAT(spec.linux_spec->masked_paths, Contains("/proc/kmsg"));
  // The rules: the working directory's, implied by the config.
  EXPECT_TRUE(HasRule(compiled.rules, {"/work/**", config::FileAccess::kWrite}));
  EXPECT_EQ(compiled.rules.name, "agent");
  // The filter: files and network mediated, reads the kernel's.
  EXPECT_TRUE(compiled.filter.mediate_files);
  EXPECT_TRUE(compiled.filter.mediate_network);
  EXPECT_FALSE(compiled.filter.mediate_reads);
  EXPECT_FALSE(compiled.filter.traced);
  EXPECT_FALSE(compiled.credentials_fixed);
  // Landlock: the bounds, and the exact layer over the scratch tmpfs.
  EXPECT_EQ(compiled.landlock_abi, 7);
  ASSERT_EQ(compiled.landlock.size(), 2u);
  EXPECT_TRUE(compiled.landlock[1].exact);
  EXPECT_THAT(compiled.kernel_write_trees, Contains("/tmp"));
}

// A host without Landlock gets no layer and no kernel write tree: every
// decided write stays the sentry's to make.
TEST(PolicyCompilerTest, WithoutLandlockTheSentryKeepsEveryWrite) {
  config::Spec spec = WorkSpec();
  CompiledPolicy compiled = CompilePolicy(*config::BuiltinPolicy("agent"), spec,
                                          sentry::Platform::kUnotify, {.landlock_abi = NoLandlock});
  EXPECT_EQ(compiled.landlock_abi, 0);
  EXPECT_THAT(compiled.landlock, IsEmpty());
  EXPECT_THAT(compiled.kernel_write_trees, IsEmpty());
  EXPECT_TRUE(compiled.filter.mediate_files);
}

// The host is asked only when a layer would use Landlock: a policy that
// restricts no file never makes a host without it warn.
TEST(PolicyCompilerTest, TheHostIsAskedOnlyWhenLandlockWouldHelp) {
  asked = 0;
  config::Spec spec = WorkSpec();
  CompiledPolicy compiled = CompilePolicy(*config::BuiltinPolicy("default"), spec,
                                          sentry::Platform::kUnotify, {.landlock_abi = Abi7});
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(compiled.landlock_abi, 0);
  EXPECT_THAT(compiled.landlock, IsEmpty());
}

// Whether the container's pids are its own decides what the sentry leaves
// to the kernel among cross-process reads (Scope::kOutsidePids).
TEST(PolicyCompilerTest, APidNamespaceOfItsOwnIsRecorded) {
  config::Spec spec = WorkSpec();
  ASSERT_NE(spec.linux_spec->FindNamespace(config::NamespaceType::kPid), nullptr);
  EXPECT_TRUE(CompilePolicy(*config::BuiltinPolicy("default"), spec, sentry::Platform::kUnotify,
                            {.landlock_abi = Abi7})
                  .filter.own_pid_namespace);
  std::erase_if(spec.linux_spec->namespaces,
                [](const config::Namespace& ns) { return ns.type == config::NamespaceType::kPid; });
  EXPECT_FALSE(CompilePolicy(*config::BuiltinPolicy("default"), spec, sentry::Platform::kUnotify,
                             {.landlock_abi = Abi7})
                   .filter.own_pid_namespace);
}

// On the ptrace platform a policy restricting files fixes credentials: each
// process launched under it gets no_new_privileges.
TEST(PolicyCompilerTest, PtraceFixesCredentialsAtLaunch) {
  config::Spec spec = WorkSpec();
  CompiledPolicy compiled = CompilePolicy(*config::BuiltinPolicy("agent"), spec,
                                          sentry::Platform::kPtrace, {.landlock_abi = Abi7});
  EXPECT_TRUE(compiled.filter.traced);
  EXPECT_TRUE(compiled.credentials_fixed);
  config::Process process = *spec.process;
  process.no_new_privileges = false;
  LaunchFilterFor(compiled, process);
  EXPECT_TRUE(process.no_new_privileges);
}

// A process that may hold CAP_NET_ADMIN has its network calls mediated
// even where the policy refuses no address.
TEST(PolicyCompilerTest, NetAdminIsMediatedPerProcess) {
  config::Spec spec = WorkSpec();
  CompiledPolicy compiled = CompilePolicy(*config::BuiltinPolicy("default"), spec,
                                          sentry::Platform::kUnotify, {.landlock_abi = Abi7});
  config::Process plain = *spec.process;
  EXPECT_FALSE(LaunchFilterFor(compiled, plain).mediate_network);
  config::Process admin = *spec.process;
  admin.capabilities->bounding.push_back("CAP_NET_ADMIN");
  EXPECT_TRUE(LaunchFilterFor(compiled, admin).mediate_network);
}

bool NotTheHosts(const std::string&) { return false; }
bool TheHosts(const std::string&) { return true; }

// Names answered by the sandbox's resolver: for a policy that allows names
// under a default deny, in a network namespace other than the host's (new,
// or a pod's joined by path); nowhere else.
TEST(PolicyCompilerTest, ASandboxWithItsOwnNetworkGetsAResolverForItsNames) {
  Result<config::Policy> names = config::ParsePolicy(
      R"({"network": {"egress": "deny", "allow": [{"host": "api.example.com", "ports": [443]}]}})");
  ASSERT_TRUE(names) << names.error().message;
  Result<config::Policy> blocks = config::ParsePolicy(
      R"({"network": {"egress": "deny", "allow": [{"cidr": "192.0.2.0/24"}]}})");
  ASSERT_TRUE(blocks) << blocks.error().message;
  const HostFacts host{.landlock_abi = Abi7, .is_hosts_network = NotTheHosts};
  config::Spec spec = WorkSpec();  // a new network namespace
  EXPECT_EQ(CompilePolicy(*names, spec, sentry::Platform::kUnotify, host).name_resolver,
            "127.0.0.53");
  EXPECT_TRUE(ResolverAnswersNames(*names, spec, host));
  EXPECT_FALSE(ResolverAnswersNames(*blocks, spec, host));
  EXPECT_FALSE(ResolverAnswersNames(*config::BuiltinPolicy("default"), spec, host));
  auto& namespaces = spec.linux_spec->namespaces;
  for (config::Namespace& ns : namespaces) {
    if (ns.type == config::NamespaceType::kNetwork) ns.path = "/run/netns/pod";
  }
  EXPECT_TRUE(ResolverAnswersNames(*names, spec, host));
  EXPECT_FALSE(
      ResolverAnswersNames(*names, spec, {.landlock_abi = Abi7, .is_hosts_network = TheHosts}));
  std::erase_if(namespaces, [](const config::Namespace& ns) {
    return ns.type == config::NamespaceType::kNetwork;
  });
  EXPECT_FALSE(ResolverAnswersNames(*names, spec, host));
  EXPECT_THAT(CompilePolicy(*names, spec, sentry::Platform::kUnotify, host).name_resolver,
              IsEmpty());
}

// A container recorded before the compiler: its chosen policy and saved
// config compile to what create would have recorded.
TEST(PolicyCompilerTest, ARecordedPolicyCompilesToTheSame) {
  config::Spec spec = WorkSpec();
  const config::Policy chosen = *config::BuiltinPolicy("agent");
  const CompiledPolicy at_create =
      CompilePolicy(chosen, spec, sentry::Platform::kUnotify, {.landlock_abi = Abi7});
  EXPECT_EQ(CompileRecorded(chosen, spec, sentry::Platform::kUnotify, {.landlock_abi = Abi7}),
            at_create);
}

// Recorded in state.json and read back whole, the profile's name on rules
// it does not hold alone included.
TEST(PolicyCompilerTest, TheRecordReadsBackTheCompiledPolicy) {
  config::Spec spec = WorkSpec();
  ContainerRecord record{.id = "box", .bundle = "/b"};
  record.compiled = CompilePolicy(*config::BuiltinPolicy("agent"), spec, sentry::Platform::kPtrace,
                                  {.landlock_abi = Abi7});
  Result<ContainerRecord> back = ParseRecord(DumpRecord(record));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->compiled, record.compiled);
  // One written before the compiler has none.
  Result<ContainerRecord> old =
      ParseRecord(R"({"id": "box", "bundle": "/b", "status": "stopped"})");
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_FALSE(old->compiled);
}

}  // namespace
}  // namespace vigil::runtime
