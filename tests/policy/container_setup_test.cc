#include "config/policy/container_setup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace vigil::config {
namespace {

const Mount* MountAt(const Spec& spec, const std::string& destination) {
  auto it = std::find_if(spec.mounts.begin(), spec.mounts.end(),
                         [&](const Mount& m) { return m.destination == destination; });
  return it == spec.mounts.end() ? nullptr : &*it;
}

bool Has(const Mount* mount, const std::string& option) {
  return mount != nullptr &&
         std::find(mount->options.begin(), mount->options.end(), option) != mount->options.end();
}

Spec BaseSpec(const std::string& rootfs, const std::string& cwd) {
  Spec spec;
  spec.root = Root{.path = rootfs, .readonly = false};
  spec.process = Process{};
  spec.process->cwd = cwd;
  spec.mounts = {
      Mount{.destination = "/dev", .type = "tmpfs", .source = "tmpfs", .options = {"nosuid"}},
      Mount{.destination = "/proc", .type = "proc", .source = "proc"}};
  return spec;
}

TEST(ContainerSetup, AgentGetsAReadOnlyRootWithNoexecScratchSpace) {
  std::filesystem::path rootfs = std::filesystem::temp_directory_path() / "vigil-setup-rootfs";
  std::filesystem::create_directories(rootfs / "work");
  Spec spec = BaseSpec(rootfs.string(), "/work");
  Result<Policy> agent = BuiltinPolicy("agent");
  ASSERT_TRUE(agent);
  ApplyPolicyToSpec(*agent, spec);
  // The file policy agrees: the working directory is writable, masked
  // paths stay masked, by mounts the runtime makes as for maskedPaths.
  EXPECT_EQ(FileAccessFor(*agent, "/work/out.txt"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(*agent, "/etc/passwd"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(*agent, "/proc/kcore"), FileAccess::kMasked);
  ASSERT_TRUE(spec.linux_spec);
  const std::vector<std::string>& masked = spec.linux_spec->masked_paths;
  for (const char* path : {"/proc/kcore", "/proc/kmsg", "/proc/acpi", "/sys/kernel/debug"}) {
    EXPECT_EQ(std::count(masked.begin(), masked.end(), path), 1) << path;
  }

  EXPECT_TRUE(spec.root->readonly);
  EXPECT_TRUE(spec.process->no_new_privileges);
  const Mount* tmp = MountAt(spec, "/tmp");
  ASSERT_NE(tmp, nullptr);
  EXPECT_EQ(tmp->type, "tmpfs");
  EXPECT_TRUE(Has(tmp, "noexec"));
  EXPECT_NE(MountAt(spec, "/var/tmp"), nullptr);
  // The cwd exists in the image: bound onto itself, writable, noexec.
  const Mount* work = MountAt(spec, "/work");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->type, "bind");
  EXPECT_EQ(work->source, (rootfs / "work").string());
  EXPECT_TRUE(Has(work, "rw"));
  EXPECT_TRUE(Has(work, "noexec"));
  // The runtime's own /dev is writable too: noexec; /proc is left alone.
  EXPECT_TRUE(Has(MountAt(spec, "/dev"), "noexec"));
  EXPECT_FALSE(Has(MountAt(spec, "/proc"), "noexec"));
  // Rules under /dev are the sentry's, not new mounts.
  EXPECT_EQ(MountAt(spec, "/dev/shm"), nullptr);
  std::filesystem::remove_all(rootfs);
}

// exec.fromWritable: false alone (no noexecWritable): a loader the
// workload carries could map a file it wrote executable, which only a
// noexec mount refuses, so every writable mount gets noexec.
TEST(ContainerSetup, NothingWrittenRunsMeansNoexecWritableMounts) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/");
  spec.mounts.push_back(
      Mount{.destination = "/data", .type = "bind", .source = "/srv", .options = {"rbind", "rw"}});
  spec.mounts.push_back(
      Mount{.destination = "/ro", .type = "bind", .source = "/srv", .options = {"rbind", "ro"}});
  Policy policy;
  policy.exec_from_writable = false;
  ASSERT_FALSE(policy.noexec_writable);
  ApplyPolicyToSpec(policy, spec);
  EXPECT_TRUE(Has(MountAt(spec, "/data"), "noexec"));
  EXPECT_TRUE(Has(MountAt(spec, "/dev"), "noexec"));
  EXPECT_FALSE(Has(MountAt(spec, "/ro"), "noexec"));
  Spec open_spec = BaseSpec("/nonexistent-rootfs", "/");
  Policy open_policy = *BuiltinPolicy("default");
  ApplyPolicyToSpec(open_policy, open_spec);
  EXPECT_FALSE(Has(MountAt(open_spec, "/dev"), "noexec"));
}

TEST(ContainerSetup, MissingCwdGetsAScratchTmpfs) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/app");
  Policy agent = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(agent, spec);
  const Mount* app = MountAt(spec, "/app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->type, "tmpfs");
}

// The image's working directory is a link to a directory only the host has:
// resolved inside the image it does not exist, so it gets a scratch tmpfs
// rather than a bind of the host's directory.
TEST(ContainerSetup, CwdLinkOutOfTheImageIsNotFollowedToTheHost) {
  const std::filesystem::path base =
      std::filesystem::temp_directory_path() / "vigil-setup-cwd-link";
  std::filesystem::create_directories(base / "rootfs");
  std::filesystem::create_directories(base / "host-only");
  std::filesystem::create_symlink(base / "host-only", base / "rootfs" / "work");
  Spec spec = BaseSpec((base / "rootfs").string(), "/work");
  Policy agent = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(agent, spec);
  const Mount* work = MountAt(spec, "/work");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->type, "tmpfs");
  std::filesystem::remove_all(base);
}

// A config mount beneath a scratch directory stays visible: the scratch
// tmpfs is mounted before it, not over it.
TEST(ContainerSetup, ScratchGoesBeforeTheConfigsMountsBeneathIt) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/");
  spec.mounts.push_back(Mount{.destination = "/tmp/data",
                              .type = "bind",
                              .source = "/host/data",
                              .options = {"rbind", "ro"}});
  Policy agent = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(agent, spec);
  auto at = [&](const std::string& destination) {
    return std::find_if(spec.mounts.begin(), spec.mounts.end(),
                        [&](const Mount& m) { return m.destination == destination; }) -
           spec.mounts.begin();
  };
  EXPECT_LT(at("/tmp"), at("/tmp/data"));
  EXPECT_EQ(MountAt(spec, "/tmp")->source, kScratchSource);
}

TEST(ContainerSetup, ExistingMountsAreKept) {
  Spec spec = BaseSpec("/r", "/");
  spec.mounts.push_back(Mount{
      .destination = "/tmp", .type = "bind", .source = "/host/tmp", .options = {"rbind", "ro"}});
  Policy agent = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(agent, spec);
  EXPECT_EQ(std::count_if(spec.mounts.begin(), spec.mounts.end(),
                          [](const Mount& m) { return m.destination == "/tmp"; }),
            1);
  EXPECT_FALSE(Has(MountAt(spec, "/tmp"), "noexec"));  // read-only: nothing to write and run
}

// A bind mount the config makes writable stays writable under agent (its
// write rule implied, masks still first); a read-only one stays read-only;
// exec rebuilds the same policy from the shaped config.
TEST(ContainerSetup, ConfiguredWritableBindMountsKeepTheirMode) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/");
  spec.mounts.push_back(Mount{
      .destination = "/data", .type = "bind", .source = "/host/data", .options = {"rbind", "rw"}});
  spec.mounts.push_back(Mount{
      .destination = "/ref", .type = "bind", .source = "/host/ref", .options = {"rbind", "ro"}});
  const Policy recorded = *BuiltinPolicy("agent");
  Policy agent = recorded;
  ApplyPolicyToSpec(agent, spec);
  EXPECT_EQ(FileAccessFor(agent, "/data/out.csv"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(agent, "/data"), FileAccess::kWrite);
  EXPECT_EQ(FileAccessFor(agent, "/ref/in.csv"), FileAccess::kRead);
  EXPECT_EQ(FileAccessFor(agent, "/proc/kcore"), FileAccess::kMasked);
  EXPECT_TRUE(Has(MountAt(spec, "/data"), "noexec"));
  Policy rebuilt = recorded;
  AddImpliedRules(rebuilt, spec);
  EXPECT_EQ(rebuilt, agent);
  // A policy that lets it be written already gains nothing.
  Policy plain = *BuiltinPolicy("default");
  AddImpliedRules(plain, spec);
  EXPECT_EQ(plain, *BuiltinPolicy("default"));
}

// agent's default limits fill in what the config leaves unset, and only that.
TEST(ContainerSetup, AgentsDefaultLimitsFillWhatTheConfigLeavesUnset) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/");
  Policy agent = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(agent, spec);
  ASSERT_TRUE(spec.linux_spec && spec.linux_spec->resources);
  const Resources& set = *spec.linux_spec->resources;
  EXPECT_EQ(set.memory->limit, std::int64_t{2} << 30);
  EXPECT_EQ(set.pids->limit, 1024);
  EXPECT_EQ(set.cpu->quota, 200'000);
  EXPECT_EQ(set.cpu->period, 100'000u);
  EXPECT_EQ(spec.process->rlimits, (std::vector<Rlimit>{{"RLIMIT_NOFILE", 4096, 4096}}));
  EXPECT_TRUE(Has(MountAt(spec, "/tmp"), "size=536870912"));

  Spec configured = BaseSpec("/nonexistent-rootfs", "/");
  configured.linux_spec.emplace();
  configured.linux_spec->resources.emplace();
  configured.linux_spec->resources->memory = Memory{.limit = 64 << 20};
  configured.linux_spec->resources->cpu = Cpu{.quota = 50'000, .period = 200'000};
  configured.process->rlimits = {{"RLIMIT_NOFILE", 1024, 1024}};
  Policy again = *BuiltinPolicy("agent");
  ApplyPolicyToSpec(again, configured);
  const Resources& kept = *configured.linux_spec->resources;
  EXPECT_EQ(kept.memory->limit, 64 << 20);
  EXPECT_EQ(kept.cpu->quota, 50'000);
  EXPECT_EQ(kept.pids->limit, 1024) << "unset in the config: the default";
  EXPECT_EQ(configured.process->rlimits, (std::vector<Rlimit>{{"RLIMIT_NOFILE", 1024, 1024}}));
}

TEST(ContainerSetup, DefaultPolicyChangesNothing) {
  Spec spec = BaseSpec("/r", "/work");
  const Spec before = spec;
  Policy policy = *BuiltinPolicy("default");
  const Policy unchanged = policy;
  ApplyPolicyToSpec(policy, spec);
  EXPECT_EQ(spec, before);
  EXPECT_EQ(policy, unchanged);
}

// `exec` rebuilds, from the recorded policy and the saved (shaped) config,
// the policy the sentry enforces, and derives its Landlock rules from it.
TEST(ContainerSetup, ImpliedRulesRebuildTheSentrysPolicy) {
  Spec spec = BaseSpec("/nonexistent-rootfs", "/app");
  const Policy recorded = *BuiltinPolicy("agent");
  Policy enforced = recorded;
  ApplyPolicyToSpec(enforced, spec);
  Policy rebuilt = recorded;
  AddImpliedRules(rebuilt, spec);
  EXPECT_EQ(rebuilt, enforced);
  EXPECT_NE(rebuilt, recorded);
  Policy plain = *BuiltinPolicy("default");
  AddImpliedRules(plain, spec);
  EXPECT_EQ(plain, *BuiltinPolicy("default"));
}

}  // namespace
}  // namespace vigil::config
