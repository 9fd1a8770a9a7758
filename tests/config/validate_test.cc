// Validate: each cross-field rule, shown by the smallest config that breaks it.
#include "config/oci/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/oci/config.h"
#include "config/oci/default_spec.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A valid spec (runc spec's shape) for each test to break in one place.
Spec Base() {
  Spec spec = DefaultSpec();
  spec.hostname.clear();
  return spec;
}

std::string ErrorOf(const Spec& spec) {
  Result<void> r = Validate(spec);
  return r ? "(valid)" : r.error().message;
}

Namespace NewNamespace(NamespaceType type, std::string path = "") {
  return Namespace{.type = type, .path = std::move(path)};
}

TEST(ValidateTest, DefaultSpecsAreValid) {
  EXPECT_EQ(ErrorOf(DefaultSpec()), "(valid)");
  EXPECT_EQ(ErrorOf(RootlessSpec(1000, 1000)), "(valid)");
}

TEST(ValidateTest, OciVersionMustBeOneDotX) {
  Spec spec = Base();
  for (const char* ok : {"1.0.0", "1.0.2-dev", "1.2.0", "1.3.0"}) {
    spec.oci_version = ok;
    EXPECT_EQ(ErrorOf(spec), "(valid)") << ok;
  }
  for (const char* bad : {"2.0.0", "", "1", "x.1", "0.9"}) {
    spec.oci_version = bad;
    EXPECT_THAT(ErrorOf(spec), HasSubstr("ociVersion: unsupported version")) << bad;
  }
}

TEST(ValidateTest, RootIsRequiredOnLinux) {
  Spec spec = Base();
  spec.root.reset();
  EXPECT_EQ(ErrorOf(spec), "root: required property is missing");
  spec.root = Root{};
  EXPECT_EQ(ErrorOf(spec), "root.path: must not be empty");
}

TEST(ValidateTest, ProcessNeedsArgsAbsoluteCwdAndKeyValueEnv) {
  Spec spec = Base();
  spec.process->args.clear();
  EXPECT_EQ(ErrorOf(spec), "process.args: must hold at least one entry");
  spec = Base();
  spec.process->cwd = "tmp";
  EXPECT_EQ(ErrorOf(spec), "process.cwd: must be an absolute path, got \"tmp\"");
  spec = Base();
  spec.process->env.push_back("NOVALUE");
  EXPECT_EQ(ErrorOf(spec), "process.env[2]: expected KEY=VALUE, got \"NOVALUE\"");
}

TEST(ValidateTest, UmaskHoldsOnlyPermissionBits) {
  Spec spec = Base();
  spec.process->user.umask = 0777;
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.process->user.umask = 01000;
  EXPECT_EQ(ErrorOf(spec), "process.user.umask: must be at most 0777 (511)");
}

TEST(ValidateTest, RlimitsAreUniqueWithSoftBelowHard) {
  Spec spec = Base();
  spec.process->rlimits.push_back({.type = "RLIMIT_NOFILE", .hard = 10, .soft = 10});
  EXPECT_EQ(ErrorOf(spec), "process.rlimits[1].type: duplicate rlimit RLIMIT_NOFILE");
  spec = Base();
  spec.process->rlimits[0] = {.type = "RLIMIT_CORE", .hard = 5, .soft = 10};
  EXPECT_EQ(ErrorOf(spec),
            "process.rlimits[0]: rlimit RLIMIT_CORE: soft limit 10 exceeds hard limit 5");
}

TEST(ValidateTest, OomScoreAdjAndIoPriorityRanges) {
  Spec spec = Base();
  spec.process->oom_score_adj = -1000;
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.process->oom_score_adj = 1001;
  EXPECT_EQ(ErrorOf(spec), "process.oomScoreAdj: must be in [-1000, 1000], got 1001");
  spec = Base();
  spec.process->io_priority = IoPriority{.io_class = "IOPRIO_CLASS_BE", .priority = 8};
  EXPECT_EQ(ErrorOf(spec), "process.ioPriority.priority: must be in [0, 7], got 8");
}

TEST(ValidateTest, SchedulerParametersFitThePolicy) {
  Spec spec = Base();
  spec.process->scheduler = Scheduler{.policy = "SCHED_FIFO", .priority = 0};
  EXPECT_EQ(ErrorOf(spec), "process.scheduler.priority: must be in [1, 99] for SCHED_FIFO, got 0");
  spec.process->scheduler = Scheduler{.policy = "SCHED_OTHER", .nice = 20};
  EXPECT_EQ(ErrorOf(spec), "process.scheduler.nice: must be in [-20, 19], got 20");
  spec.process->scheduler = Scheduler{.policy = "SCHED_BATCH", .priority = 3};
  EXPECT_EQ(ErrorOf(spec), "process.scheduler.priority: must be 0 for SCHED_BATCH");
  spec.process->scheduler =
      Scheduler{.policy = "SCHED_DEADLINE", .runtime = 10, .deadline = 5, .period = 20};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("runtime <= deadline <= period"));
  spec.process->scheduler =
      Scheduler{.policy = "SCHED_DEADLINE", .runtime = 5, .deadline = 10, .period = 20};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
}

TEST(ValidateTest, CpuListsAreChecked) {
  Spec spec = Base();
  for (const char* ok : {"", "0", "0-3", "0-3,7", "1,2,3"}) {
    spec.process->exec_cpu_affinity = ExecCpuAffinity{.initial = ok, .final = ok};
    EXPECT_EQ(ErrorOf(spec), "(valid)") << ok;
  }
  for (const char* bad : {"a", "3-1", "0,", ",0", "0-", "1--2", "0 1"}) {
    spec.process->exec_cpu_affinity = ExecCpuAffinity{.initial = bad};
    EXPECT_THAT(ErrorOf(spec), HasSubstr("process.execCPUAffinity.initial: invalid CPU list"))
        << bad;
  }
  spec = Base();
  spec.linux_spec->resources->cpu = Cpu{.cpus = "0-1", .mems = "x"};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.resources.cpu.mems: invalid CPU list \"x\""));
}

TEST(ValidateTest, HostnameNeedsAUtsNamespace) {
  Spec spec = Base();
  spec.hostname = "box";
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  std::erase_if(spec.linux_spec->namespaces,
                [](const Namespace& ns) { return ns.type == NamespaceType::kUts; });
  EXPECT_THAT(ErrorOf(spec), HasSubstr("hostname: setting a hostname needs a UTS namespace"));
  spec.hostname.clear();
  spec.domainname = "example.org";
  EXPECT_THAT(ErrorOf(spec), HasSubstr("domainname: setting a domainname needs a UTS namespace"));
  spec.linux_spec.reset();
  EXPECT_THAT(ErrorOf(spec), HasSubstr("domainname:"));
}

TEST(ValidateTest, NamespacesAreUniqueWithAbsolutePaths) {
  Spec spec = Base();
  spec.linux_spec->namespaces.push_back(NewNamespace(NamespaceType::kPid));
  EXPECT_EQ(ErrorOf(spec), "linux.namespaces[5].type: duplicate namespace type \"pid\"");
  spec = Base();
  spec.linux_spec->namespaces[1].path = "proc/1/ns/net";
  EXPECT_EQ(ErrorOf(spec),
            "linux.namespaces[1].path: must be an absolute path, got \"proc/1/ns/net\"");
  spec.linux_spec->namespaces[1].path = "/proc/1/ns/net";
  EXPECT_EQ(ErrorOf(spec), "(valid)");
}

TEST(ValidateTest, MappingsNeedAUserNamespaceAndViceVersa) {
  Spec spec = Base();
  spec.linux_spec->uid_mappings = {{.container_id = 0, .host_id = 1000, .size = 1}};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.uidMappings: id mappings need a user namespace"));
  spec = Base();
  spec.linux_spec->namespaces.push_back(NewNamespace(NamespaceType::kUser));
  EXPECT_EQ(ErrorOf(spec), "linux.uidMappings: a new user namespace needs uid mappings");
  spec.linux_spec->uid_mappings = {{.container_id = 0, .host_id = 1000, .size = 1}};
  EXPECT_EQ(ErrorOf(spec), "linux.gidMappings: a new user namespace needs gid mappings");
  spec.linux_spec->gid_mappings = {{.container_id = 0, .host_id = 1000, .size = 1}};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  // Joining an existing user namespace brings its mappings along.
  spec.linux_spec->uid_mappings.clear();
  spec.linux_spec->gid_mappings.clear();
  spec.linux_spec->namespaces.back().path = "/proc/42/ns/user";
  EXPECT_EQ(ErrorOf(spec), "(valid)");
}

TEST(ValidateTest, MappingRangesAreNonEmptyInRangeAndDisjoint) {
  Spec spec = RootlessSpec(1000, 1000);
  auto& uid = spec.linux_spec->uid_mappings;
  uid = {{.container_id = 0, .host_id = 1000, .size = 0}};
  EXPECT_EQ(ErrorOf(spec), "linux.uidMappings[0].size: must be positive");
  uid = {{.container_id = 4294967295u, .host_id = 0, .size = 2}};
  EXPECT_EQ(ErrorOf(spec), "linux.uidMappings[0]: range runs past the largest id 4294967295");
  uid = {{.container_id = 0, .host_id = 100000, .size = 65536},
         {.container_id = 65535, .host_id = 1000, .size = 1}};
  EXPECT_EQ(ErrorOf(spec), "linux.uidMappings[1]: range overlaps entry [0]");
  uid = {{.container_id = 0, .host_id = 100000, .size = 10},
         {.container_id = 10, .host_id = 100005, .size = 1}};
  EXPECT_EQ(ErrorOf(spec), "linux.uidMappings[1]: range overlaps entry [0]");
  uid = {{.container_id = 0, .host_id = 100000, .size = 10},
         {.container_id = 10, .host_id = 100010, .size = 1}};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  uid.assign(341, {});
  for (std::uint32_t i = 0; i < uid.size(); ++i)
    uid[i] = {.container_id = i, .host_id = i, .size = 1};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("at most 340 mappings"));
}

TEST(ValidateTest, SysctlsMustBelongToAnOwnedNamespace) {
  Spec spec = Base();
  spec.linux_spec->sysctl = {
      {"net.ipv4.ip_forward", "1"}, {"kernel.shmmax", "1"}, {"fs.mqueue.msg_max", "10"}};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.linux_spec->sysctl = {{"vm.swappiness", "0"}};
  EXPECT_EQ(ErrorOf(spec),
            "linux.sysctl[\"vm.swappiness\"]: not namespaced: setting it would change the host");
  spec.linux_spec->sysctl = {{"kernel.randomize_va_space", "0"}};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("not namespaced"));
  spec.linux_spec->sysctl = {{"net.ipv4.ip_forward", "1"}};
  std::erase_if(spec.linux_spec->namespaces,
                [](const Namespace& ns) { return ns.type == NamespaceType::kNetwork; });
  EXPECT_EQ(ErrorOf(spec),
            "linux.sysctl[\"net.ipv4.ip_forward\"]: needs a \"network\" namespace in "
            "linux.namespaces");
}

TEST(ValidateTest, TimeOffsetsNeedANewTimeNamespace) {
  Spec spec = Base();
  spec.linux_spec->time_offsets = {{"monotonic", {.secs = 100}}};
  EXPECT_THAT(ErrorOf(spec),
              HasSubstr("linux.timeOffsets: time offsets need a new time namespace"));
  spec.linux_spec->namespaces.push_back(NewNamespace(NamespaceType::kTime));
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.linux_spec->time_offsets = {{"realtime", {.secs = 1}}};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.timeOffsets.realtime: unknown clock"));
  spec.linux_spec->time_offsets = {{"boottime", {.secs = 1, .nanosecs = 1'000'000'000}}};
  EXPECT_EQ(ErrorOf(spec), "linux.timeOffsets.boottime.nanosecs: must be below 1000000000");
}

TEST(ValidateTest, DevicesHaveAbsolutePathsAndPermissionModes) {
  Spec spec = Base();
  spec.linux_spec->devices = {
      {.type = "c", .path = "/dev/fuse", .major = 10, .minor = 229, .file_mode = 0666}};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.linux_spec->devices[0].path = "dev/fuse";
  EXPECT_EQ(ErrorOf(spec), "linux.devices[0].path: must be an absolute path, got \"dev/fuse\"");
  spec.linux_spec->devices[0].path = "/dev/fuse";
  spec.linux_spec->devices[0].file_mode = 020666;
  EXPECT_EQ(ErrorOf(spec),
            "linux.devices[0].fileMode: holds bits beyond the permission bits 07777");
}

TEST(ValidateTest, ResourceValuesAreConsistent) {
  Spec spec = Base();
  spec.linux_spec->resources->devices[0].access = "rwa";  // runc ignores the "a"
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec = Base();
  spec.linux_spec->resources->memory = Memory{.limit = 100 << 20, .swap = 50 << 20};
  EXPECT_EQ(ErrorOf(spec),
            "linux.resources.memory.swap: memory+swap limit 52428800 is below "
            "the memory limit 104857600");
  spec.linux_spec->resources->memory = Memory{.limit = 100 << 20, .swap = -1};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.linux_spec->resources->memory = Memory{.swappiness = 101};
  EXPECT_EQ(ErrorOf(spec), "linux.resources.memory.swappiness: must be in [0, 100]");
  spec.linux_spec->resources->memory.reset();
  spec.linux_spec->resources->block_io = BlockIo{.weight = 5};
  EXPECT_EQ(ErrorOf(spec), "linux.resources.blockIO.weight: must be in [10, 1000]");
  // What Docker and old clients send for "not set".
  spec.linux_spec->resources->block_io = BlockIo{.weight = 0};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  spec.linux_spec->resources->memory = Memory{.swappiness = UINT64_MAX};
  EXPECT_EQ(ErrorOf(spec), "(valid)");
}

TEST(ValidateTest, SeccompRulesAreCoherent) {
  Spec spec = Base();
  Seccomp& s = spec.linux_spec->seccomp.emplace();
  s.default_action = SeccompAction::kErrno;
  s.default_errno_ret = 1;
  s.syscalls = {{.names = {"getcwd"}, .action = SeccompAction::kAllow}};
  EXPECT_EQ(ErrorOf(spec), "(valid)");

  s.default_action = SeccompAction::kNotify;
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be"));
  s.default_action = SeccompAction::kKillProcess;
  EXPECT_EQ(ErrorOf(spec),
            "linux.seccomp.defaultErrnoRet: only meaningful with SCMP_ACT_ERRNO "
            "or SCMP_ACT_TRACE");
  s.default_errno_ret.reset();
  s.syscalls[0].errno_ret = 1;
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.seccomp.syscalls[0].errnoRet: only meaningful"));
  s.syscalls[0] = {.names = {}, .action = SeccompAction::kAllow};
  EXPECT_EQ(ErrorOf(spec), "linux.seccomp.syscalls[0].names: must hold at least one name");
  s.syscalls[0] = {.names = {"read", ""}, .action = SeccompAction::kAllow};
  EXPECT_EQ(ErrorOf(spec), "linux.seccomp.syscalls[0].names[1]: must not be empty");
  s.syscalls[0] = {.names = {"ioctl"},
                   .action = SeccompAction::kAllow,
                   .args = {{.index = 6, .value = 1, .op = SeccompOperator::kEqual}}};
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.seccomp.syscalls[0].args[0].index: syscalls take "
                                       "at most 6 arguments"));
  s.syscalls[0] = {.names = {"mkdir"}, .action = SeccompAction::kNotify};
  EXPECT_EQ(ErrorOf(spec),
            "linux.seccomp.syscalls[0].action: SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath");
  s.listener_path = "agent.sock";
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.seccomp.listenerPath: must be an absolute path"));
  s.listener_path = "/run/agent.sock";
  EXPECT_EQ(ErrorOf(spec), "(valid)");
  s.syscalls[0].names = {"mkdir", "write"};
  EXPECT_THAT(ErrorOf(spec), StartsWith("linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY "
                                        "cannot be used for the write syscall"));
  s.syscalls[0].names = {"sendto"};
  EXPECT_THAT(ErrorOf(spec), StartsWith("linux.seccomp.syscalls[0].names[0]: SCMP_ACT_NOTIFY "
                                        "cannot be used for the sendto syscall"));
  s.syscalls[0].action = SeccompAction::kErrno;
  EXPECT_EQ(ErrorOf(spec), "(valid)");
}

TEST(ValidateTest, MountsHooksAndPathListsAreChecked) {
  Spec spec = Base();
  spec.mounts.push_back({.destination = "/data", .type = "bind", .options = {"ro"}});
  EXPECT_EQ(ErrorOf(spec), "mounts[7].source: a bind mount needs a source");
  spec.mounts.back() = {.destination = "/data",
                        .type = "none",
                        .source = "/srv",
                        .options = {"rbind"},
                        .uid_mappings = {{.size = 1}}};
  EXPECT_EQ(ErrorOf(spec), "mounts[7]: an idmapped mount needs both uidMappings and gidMappings");

  spec = Base();
  spec.hooks = Hooks{.poststop = {{.path = "cleanup"}}};
  EXPECT_EQ(ErrorOf(spec), "hooks.poststop[0].path: must be an absolute path, got \"cleanup\"");
  spec.hooks = Hooks{.create_runtime = {{.path = "/bin/hook", .timeout = 0}}};
  EXPECT_EQ(ErrorOf(spec), "hooks.createRuntime[0].timeout: must be positive, got 0");

  spec = Base();
  spec.linux_spec->masked_paths.push_back("proc/kcore");
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.maskedPaths[10]: must be an absolute path"));
  spec = Base();
  spec.linux_spec->readonly_paths.push_back("");
  EXPECT_THAT(ErrorOf(spec), HasSubstr("linux.readonlyPaths[5]: must be an absolute path"));
}

TEST(ValidateProcessTest, AppliesToExecProcessDocuments) {
  Process p = *DefaultSpec().process;
  EXPECT_TRUE(ValidateProcess(p, JsonPath()));
  p.cwd = "";
  EXPECT_EQ(ValidateProcess(p, JsonPath()).error().message,
            "cwd: must be an absolute path, got \"\"");
}

}  // namespace
}  // namespace vigil::config
