// The corpus: config.json documents shaped like what real clients hand a
// runtime (runc spec, dockerd, podman, containerd's CRI plugin) plus one that
// sets every property vigil knows. Each must parse, validate and round-trip;
// spot checks prove the parse reached deep into each document.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "config/oci/config.h"
#include "config/oci/validate.h"

namespace vigil::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr std::string_view kCorpus[] = {
    "runc_spec.json",   "runc_spec_rootless.json", "docker_run.json", "podman_run.json",
    "cri_sandbox.json", "cri_container.json",      "full_1_2.json",
};

std::string CorpusPath(std::string_view name) {
  return std::string(VIGIL_TEST_DATA) + "/corpus/" + std::string(name);
}

std::string ReadCorpus(std::string_view name) {
  Result<std::string> text = ReadFile(CorpusPath(name), 4u << 20);
  EXPECT_TRUE(text.has_value()) << name << ": " << text.error().message;
  return text.value_or("");
}

// The parsed document; a parse error fails the calling test.
Spec ParseCorpus(std::string_view name) {
  Result<Spec> spec = ParseSpec(ReadCorpus(name));
  EXPECT_TRUE(spec.has_value()) << name << ": " << spec.error().message;
  return spec.value_or(Spec{});
}

// "docker_run.json" -> "docker_run": test names allow only [A-Za-z0-9_].
std::string TestName(const ::testing::TestParamInfo<std::string_view>& info) {
  std::string name(info.param.substr(0, info.param.find('.')));
  std::replace_if(
      name.begin(), name.end(), [](unsigned char c) { return !std::isalnum(c); }, '_');
  return name;
}

std::size_t TotalSyscallNames(const Seccomp& seccomp) {
  std::size_t total = 0;
  for (const SeccompSyscall& rule : seccomp.syscalls) total += rule.names.size();
  return total;
}

// The rules that name `syscall`, in document order.
std::vector<const SeccompSyscall*> RulesFor(const Seccomp& seccomp, std::string_view syscall) {
  std::vector<const SeccompSyscall*> rules;
  for (const SeccompSyscall& rule : seccomp.syscalls) {
    if (std::find(rule.names.begin(), rule.names.end(), syscall) != rule.names.end()) {
      rules.push_back(&rule);
    }
  }
  return rules;
}

// ---- Every file: parse, validate, round trip --------------------------------

class CorpusTest : public ::testing::TestWithParam<std::string_view> {};

TEST_P(CorpusTest, ParsesAndValidates) {
  Result<Spec> spec = ParseSpec(ReadCorpus(GetParam()));
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  Result<void> valid = Validate(*spec);
  EXPECT_TRUE(valid.has_value()) << valid.error().message;
  // Every client sets at least these; an empty Spec would be a vacuous pass.
  EXPECT_THAT(spec->oci_version, StartsWith("1."));
  ASSERT_TRUE(spec->process.has_value());
  EXPECT_FALSE(spec->process->args.empty());
  ASSERT_TRUE(spec->linux_spec.has_value());
  EXPECT_FALSE(spec->linux_spec->namespaces.empty());
  EXPECT_FALSE(spec->mounts.empty());
}

TEST_P(CorpusTest, RoundTripsCompact) {
  Spec spec = ParseCorpus(GetParam());
  std::string dumped = DumpSpec(spec, json::Writer::Style::kCompact);
  EXPECT_EQ(dumped.find('\n'), std::string::npos);
  Result<Spec> again = ParseSpec(dumped);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_TRUE(*again == spec) << dumped;
  EXPECT_EQ(DumpSpec(*again, json::Writer::Style::kCompact), dumped);
}

TEST_P(CorpusTest, RoundTripsPretty) {
  Spec spec = ParseCorpus(GetParam());
  std::string dumped = DumpSpec(spec, json::Writer::Style::kPretty);
  Result<Spec> again = ParseSpec(dumped);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_TRUE(*again == spec) << dumped;
  EXPECT_EQ(DumpSpec(*again, json::Writer::Style::kPretty), dumped);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(kCorpus), TestName);

// A file dropped into corpus/ without being listed above would never run.
TEST(CorpusListTest, ListsEveryFileInTheDirectory) {
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusPath(""))) {
    on_disk.insert(entry.path().filename().string());
  }
  std::set<std::string> listed(std::begin(kCorpus), std::end(kCorpus));
  EXPECT_EQ(on_disk, listed);
}

// ---- Spot checks: values from deep inside each document ---------------------

TEST(CorpusSpotTest, RuncSpec) {
  Spec spec = ParseCorpus("runc_spec.json");
  EXPECT_EQ(spec.oci_version, "1.0.2-dev");
  ASSERT_TRUE(spec.root.has_value());
  EXPECT_EQ(spec.root->path, "rootfs");
  EXPECT_TRUE(spec.root->readonly);
  ASSERT_TRUE(spec.process.has_value());
  EXPECT_TRUE(spec.process->terminal);
  EXPECT_THAT(spec.process->args, ElementsAre("sh"));
  EXPECT_TRUE(spec.process->no_new_privileges);
  EXPECT_THAT(spec.process->capabilities->ambient,
              ElementsAre("CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"));
  EXPECT_EQ(spec.process->rlimits,
            std::vector<Rlimit>({{.type = "RLIMIT_NOFILE", .hard = 1024, .soft = 1024}}));
  EXPECT_EQ(spec.hostname, "runc");
  EXPECT_THAT(spec.mounts, SizeIs(7));
  EXPECT_EQ(spec.mounts[5].destination, "/sys");
  EXPECT_EQ(spec.mounts[5].type, "sysfs");
  EXPECT_THAT(spec.mounts[5].options, ElementsAre("nosuid", "noexec", "nodev", "ro"));
  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  EXPECT_NE(linux_spec.FindNamespace(NamespaceType::kNetwork), nullptr);
  EXPECT_EQ(linux_spec.FindNamespace(NamespaceType::kUser), nullptr);
  ASSERT_TRUE(linux_spec.resources.has_value());
  ASSERT_THAT(linux_spec.resources->devices, SizeIs(1));
  EXPECT_FALSE(linux_spec.resources->devices[0].allow);
  EXPECT_EQ(linux_spec.resources->devices[0].access, "rwm");
  EXPECT_THAT(linux_spec.masked_paths, SizeIs(10));
  EXPECT_THAT(linux_spec.readonly_paths, SizeIs(5));
}

TEST(CorpusSpotTest, RuncSpecRootless) {
  Spec spec = ParseCorpus("runc_spec_rootless.json");
  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  const Namespace* user = linux_spec.FindNamespace(NamespaceType::kUser);
  ASSERT_NE(user, nullptr);
  EXPECT_TRUE(user->path.empty());
  // Rootless: no network namespace of its own and no cgroup limits.
  EXPECT_EQ(linux_spec.FindNamespace(NamespaceType::kNetwork), nullptr);
  EXPECT_FALSE(linux_spec.resources.has_value());
  ASSERT_THAT(linux_spec.uid_mappings, SizeIs(1));
  EXPECT_EQ(linux_spec.uid_mappings[0].container_id, 0u);
  EXPECT_EQ(linux_spec.uid_mappings[0].size, 1u);
  ASSERT_THAT(linux_spec.gid_mappings, SizeIs(1));
  EXPECT_EQ(linux_spec.gid_mappings[0].host_id, linux_spec.uid_mappings[0].host_id);
  // The host's /sys cannot be mounted afresh without a network namespace.
  auto sys = std::find_if(spec.mounts.begin(), spec.mounts.end(),
                          [](const Mount& m) { return m.destination == "/sys"; });
  ASSERT_NE(sys, spec.mounts.end());
  EXPECT_EQ(sys->source, "/sys");
  EXPECT_THAT(sys->options, ::testing::Contains("rbind"));
}

TEST(CorpusSpotTest, DockerRun) {
  Spec spec = ParseCorpus("docker_run.json");
  ASSERT_TRUE(spec.process.has_value());
  const Process& process = *spec.process;
  EXPECT_THAT(process.args, ElementsAre("echo", "hi"));
  EXPECT_EQ(process.apparmor_profile, "docker-default");
  EXPECT_EQ(process.oom_score_adj, 0);
  ASSERT_TRUE(process.capabilities.has_value());
  EXPECT_THAT(process.capabilities->bounding, SizeIs(14));
  EXPECT_EQ(process.capabilities->effective, process.capabilities->bounding);
  EXPECT_EQ(process.capabilities->permitted, process.capabilities->bounding);
  EXPECT_TRUE(process.capabilities->inheritable.empty());

  ASSERT_TRUE(spec.hooks.has_value());
  ASSERT_THAT(spec.hooks->prestart, SizeIs(1));
  EXPECT_THAT(spec.hooks->prestart[0].path, StartsWith("/proc/"));
  EXPECT_THAT(spec.hooks->prestart[0].args, SizeIs(4));
  EXPECT_EQ(spec.hooks->prestart[0].args[0], "libnetwork-setkey");

  ASSERT_THAT(spec.mounts, SizeIs(10));
  EXPECT_EQ(spec.mounts[7].destination, "/etc/resolv.conf");
  EXPECT_THAT(spec.mounts[7].source, StartsWith("/var/lib/docker/containers/"));

  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  EXPECT_THAT(linux_spec.cgroups_path, StartsWith("/docker/"));
  EXPECT_THAT(linux_spec.cgroups_path, SizeIs(8 + 64));
  EXPECT_EQ(linux_spec.sysctl.at("net.ipv4.ping_group_range"), "0 2147483647");

  ASSERT_TRUE(linux_spec.resources.has_value());
  const Resources& resources = *linux_spec.resources;
  ASSERT_THAT(resources.devices, SizeIs(13));
  EXPECT_EQ(resources.devices[0], (DeviceRule{.allow = false, .access = "rwm"}));
  EXPECT_EQ(resources.devices[1], (DeviceRule{.allow = true, .type = "c", .access = "m"}));
  // 136:* is written with no minor at all.
  EXPECT_EQ(resources.devices[9],
            (DeviceRule{.allow = true, .type = "c", .major = 136, .access = "rwm"}));
  EXPECT_EQ(resources.devices[12],
            (DeviceRule{.allow = false, .type = "c", .major = 10, .minor = 229, .access = "rwm"}));
  ASSERT_TRUE(resources.memory.has_value());
  EXPECT_EQ(resources.memory->disable_oom_killer, false);
  EXPECT_FALSE(resources.memory->limit.has_value());
  ASSERT_TRUE(resources.cpu.has_value());
  EXPECT_EQ(resources.cpu->shares, 0u);
  ASSERT_TRUE(resources.block_io.has_value());
  // Docker always sends a blkio weight; 0 stands for "not set".
  EXPECT_EQ(*resources.block_io, BlockIo{.weight = 0});

  ASSERT_TRUE(linux_spec.seccomp.has_value());
  const Seccomp& seccomp = *linux_spec.seccomp;
  EXPECT_EQ(seccomp.default_action, SeccompAction::kErrno);
  EXPECT_EQ(seccomp.default_errno_ret, 1u);
  EXPECT_THAT(seccomp.architectures,
              ElementsAre("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"));
  EXPECT_GE(TotalSyscallNames(seccomp), 300u);
  EXPECT_GE(seccomp.syscalls[0].names.size(), 300u);
  EXPECT_EQ(seccomp.syscalls[0].action, SeccompAction::kAllow);
  EXPECT_EQ(seccomp.syscalls[0].names.front(), "accept");
  EXPECT_EQ(seccomp.syscalls[0].names.back(), "writev");

  std::vector<const SeccompSyscall*> clone = RulesFor(seccomp, "clone");
  ASSERT_THAT(clone, SizeIs(1));
  EXPECT_EQ(clone[0]->action, SeccompAction::kAllow);
  EXPECT_THAT(
      clone[0]->args,
      ElementsAre(SeccompArg{
          .index = 0, .value = 2114060288, .value_two = 0, .op = SeccompOperator::kMaskedEqual}));

  std::vector<const SeccompSyscall*> clone3 = RulesFor(seccomp, "clone3");
  ASSERT_THAT(clone3, SizeIs(1));
  EXPECT_EQ(clone3[0]->action, SeccompAction::kErrno);
  EXPECT_EQ(clone3[0]->errno_ret, 38u);  // ENOSYS: glibc falls back to clone

  std::vector<std::uint64_t> personalities;
  for (const SeccompSyscall* rule : RulesFor(seccomp, "personality")) {
    ASSERT_THAT(rule->args, SizeIs(1));
    EXPECT_EQ(rule->args[0].op, SeccompOperator::kEqual);
    personalities.push_back(rule->args[0].value);
  }
  EXPECT_THAT(personalities, ElementsAre(0u, 8u, 131072u, 131080u, 4294967295u));

  std::vector<const SeccompSyscall*> socket = RulesFor(seccomp, "socket");
  ASSERT_THAT(socket, SizeIs(1));
  EXPECT_THAT(socket[0]->args,
              ElementsAre(SeccompArg{.index = 0, .value = 40, .op = SeccompOperator::kNotEqual}));
}

TEST(CorpusSpotTest, PodmanRun) {
  Spec spec = ParseCorpus("podman_run.json");
  EXPECT_EQ(spec.annotations.at("io.container.manager"), "libpod");
  EXPECT_EQ(spec.annotations.at("io.podman.annotations.autoremove"), "TRUE");
  EXPECT_EQ(spec.annotations.at("org.opencontainers.image.stopSignal"), "15");
  ASSERT_TRUE(spec.process.has_value());
  const Process& process = *spec.process;
  EXPECT_EQ(process.user.umask, 0022u);
  EXPECT_EQ(process.rlimits, std::vector<Rlimit>({
                                 {.type = "RLIMIT_NOFILE", .hard = 1048576, .soft = 1048576},
                                 {.type = "RLIMIT_NPROC", .hard = 4194304, .soft = 4194304},
                             }));
  EXPECT_TRUE(process.selinux_label.empty());
  EXPECT_THAT(process.capabilities->bounding, SizeIs(11));

  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  EXPECT_THAT(linux_spec.cgroups_path, StartsWith("machine.slice:libpod:"));
  EXPECT_TRUE(linux_spec.mount_label.empty());
  const Namespace* net = linux_spec.FindNamespace(NamespaceType::kNetwork);
  ASSERT_NE(net, nullptr);
  EXPECT_THAT(net->path, StartsWith("/run/netns/netns-"));
  EXPECT_NE(linux_spec.FindNamespace(NamespaceType::kCgroup), nullptr);
  ASSERT_TRUE(linux_spec.resources.has_value());
  ASSERT_TRUE(linux_spec.resources->pids.has_value());
  EXPECT_EQ(linux_spec.resources->pids->limit, 2048);

  ASSERT_TRUE(linux_spec.seccomp.has_value());
  const Seccomp& seccomp = *linux_spec.seccomp;
  EXPECT_EQ(seccomp.default_errno_ret, 38u);
  EXPECT_EQ(seccomp.syscalls[0].action, SeccompAction::kErrno);
  EXPECT_EQ(seccomp.syscalls[0].errno_ret, 1u);
  // NETLINK_AUDIT sockets are refused with EINVAL: a two-argument rule.
  std::vector<const SeccompSyscall*> socket = RulesFor(seccomp, "socket");
  ASSERT_THAT(socket, SizeIs(3));
  EXPECT_EQ(socket[0]->errno_ret, 22u);
  EXPECT_THAT(socket[0]->args,
              ElementsAre(SeccompArg{.index = 0, .value = 16, .op = SeccompOperator::kEqual},
                          SeccompArg{.index = 2, .value = 9, .op = SeccompOperator::kEqual}));
}

TEST(CorpusSpotTest, CriSandbox) {
  Spec spec = ParseCorpus("cri_sandbox.json");
  EXPECT_EQ(spec.annotations.at("io.kubernetes.cri.container-type"), "sandbox");
  EXPECT_EQ(spec.annotations.at("io.kubernetes.cri.sandbox-namespace"), "default");
  ASSERT_TRUE(spec.root.has_value());
  EXPECT_TRUE(spec.root->readonly);
  ASSERT_TRUE(spec.process.has_value());
  EXPECT_THAT(spec.process->args, ElementsAre("/pause"));
  EXPECT_EQ(spec.process->oom_score_adj, -998);
  EXPECT_EQ(spec.process->user.uid, 65535u);
  ASSERT_TRUE(spec.linux_spec.has_value());
  const Namespace* net = spec.linux_spec->FindNamespace(NamespaceType::kNetwork);
  ASSERT_NE(net, nullptr);
  EXPECT_THAT(net->path, StartsWith("/var/run/netns/cni-"));
  for (NamespaceType type :
       {NamespaceType::kPid, NamespaceType::kIpc, NamespaceType::kUts, NamespaceType::kMount}) {
    const Namespace* ns = spec.linux_spec->FindNamespace(type);
    ASSERT_NE(ns, nullptr) << NameOf(type);
    EXPECT_TRUE(ns->path.empty()) << NameOf(type);
  }
  EXPECT_THAT(spec.linux_spec->cgroups_path, HasSubstr(":cri-containerd:"));
  EXPECT_EQ(spec.linux_spec->resources->cpu->shares, 2u);
}

TEST(CorpusSpotTest, CriContainerJoinsItsSandbox) {
  Spec sandbox = ParseCorpus("cri_sandbox.json");
  Spec spec = ParseCorpus("cri_container.json");
  EXPECT_EQ(spec.annotations.at("io.kubernetes.cri.container-type"), "container");
  EXPECT_EQ(spec.annotations.at("io.kubernetes.cri.sandbox-id"),
            sandbox.annotations.at("io.kubernetes.cri.sandbox-id"));
  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  // Same pod slice, different scope.
  std::string_view pod_slice = sandbox.linux_spec->cgroups_path;
  pod_slice = pod_slice.substr(0, pod_slice.find(':'));
  EXPECT_THAT(linux_spec.cgroups_path, StartsWith(std::string(pod_slice) + ":cri-containerd:"));
  EXPECT_NE(linux_spec.cgroups_path, sandbox.linux_spec->cgroups_path);

  const Namespace* net = linux_spec.FindNamespace(NamespaceType::kNetwork);
  ASSERT_NE(net, nullptr);
  EXPECT_EQ(net->path, "/proc/4187/ns/net");
  EXPECT_EQ(linux_spec.FindNamespace(NamespaceType::kIpc)->path, "/proc/4187/ns/ipc");
  EXPECT_EQ(linux_spec.FindNamespace(NamespaceType::kUts)->path, "/proc/4187/ns/uts");
  EXPECT_TRUE(linux_spec.FindNamespace(NamespaceType::kPid)->path.empty());
  EXPECT_TRUE(linux_spec.FindNamespace(NamespaceType::kMount)->path.empty());

  ASSERT_TRUE(linux_spec.resources.has_value());
  const Resources& resources = *linux_spec.resources;
  ASSERT_TRUE(resources.memory.has_value());
  EXPECT_EQ(resources.memory->limit, 268435456);
  EXPECT_EQ(resources.memory->swap, resources.memory->limit);
  ASSERT_TRUE(resources.cpu.has_value());
  EXPECT_EQ(resources.cpu->shares, 256u);
  EXPECT_EQ(resources.cpu->quota, 50000);
  EXPECT_EQ(resources.cpu->period, 100000u);
  EXPECT_EQ(resources.hugepage_limits,
            std::vector<HugepageLimit>(
                {{.page_size = "2MB", .limit = 0}, {.page_size = "1GB", .limit = 0}}));
  EXPECT_TRUE(resources.unified.empty());

  ASSERT_TRUE(linux_spec.seccomp.has_value());
  EXPECT_EQ(linux_spec.seccomp->default_action, SeccompAction::kErrno);
  EXPECT_FALSE(linux_spec.seccomp->default_errno_ret.has_value());
  EXPECT_GE(TotalSyscallNames(*linux_spec.seccomp), 300u);
  EXPECT_THAT(RulesFor(*linux_spec.seccomp, "socket"), SizeIs(1));
}

TEST(CorpusSpotTest, FullSetsDeepValues) {
  Spec spec = ParseCorpus("full_1_2.json");
  ASSERT_TRUE(spec.process.has_value());
  const Process& process = *spec.process;
  EXPECT_EQ(process.console_size, (ConsoleSize{.height = 50, .width = 160}));
  EXPECT_EQ(process.user.umask, 027u);
  EXPECT_THAT(process.user.additional_gids, ElementsAre(5u, 100u, 2000u));
  EXPECT_EQ(process.user.username, "app");
  EXPECT_THAT(process.capabilities->ambient, ElementsAre("CAP_NET_BIND_SERVICE"));
  EXPECT_THAT(process.capabilities->inheritable, ElementsAre("CAP_NET_BIND_SERVICE"));
  EXPECT_EQ(process.rlimits[1].hard, UINT64_MAX);  // RLIM_INFINITY
  EXPECT_EQ(process.scheduler,
            (Scheduler{.policy = "SCHED_DEADLINE",
                       .nice = -5,
                       .priority = 0,
                       .flags = {"SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM"},
                       .runtime = 10000000,
                       .deadline = 30000000,
                       .period = 100000000}));
  EXPECT_EQ(process.io_priority, (IoPriority{.io_class = "IOPRIO_CLASS_BE", .priority = 4}));
  EXPECT_EQ(process.exec_cpu_affinity, (ExecCpuAffinity{.initial = "0", .final = "2-3,6"}));

  ASSERT_TRUE(spec.hooks.has_value());
  const Hooks& hooks = *spec.hooks;
  EXPECT_EQ(hooks.prestart[0].timeout, 5);
  EXPECT_EQ(hooks.create_runtime[0].timeout, 10);
  EXPECT_EQ(hooks.create_container[0].timeout, 15);
  EXPECT_EQ(hooks.start_container[0].timeout, 3);
  EXPECT_EQ(hooks.poststart[0].timeout, 2);
  ASSERT_THAT(hooks.poststop, SizeIs(2));
  EXPECT_EQ(hooks.poststop[0].timeout, 30);
  EXPECT_FALSE(hooks.poststop[1].timeout.has_value());

  const Mount& idmapped = spec.mounts.back();
  EXPECT_EQ(idmapped.destination, "/srv/data");
  EXPECT_EQ(idmapped.uid_mappings,
            std::vector<IdMapping>({{.container_id = 0, .host_id = 200000, .size = 65536}}));
  EXPECT_EQ(idmapped.gid_mappings, idmapped.uid_mappings);

  ASSERT_TRUE(spec.linux_spec.has_value());
  const Linux& linux_spec = *spec.linux_spec;
  EXPECT_THAT(linux_spec.uid_mappings, SizeIs(3));
  EXPECT_THAT(linux_spec.namespaces, SizeIs(8));
  EXPECT_EQ(linux_spec.time_offsets.at("monotonic"), (TimeOffset{.secs = 86400, .nanosecs = 500}));
  EXPECT_EQ(linux_spec.time_offsets.at("boottime"), (TimeOffset{.secs = -3600, .nanosecs = 0}));
  EXPECT_EQ(linux_spec.intel_rdt->mem_bw_schema, "MB:0=20;1=70");
  EXPECT_TRUE(linux_spec.intel_rdt->enable_mbm);
  EXPECT_EQ(linux_spec.personality->domain, "LINUX32");
  EXPECT_EQ(linux_spec.rootfs_propagation, "rslave");
  ASSERT_THAT(linux_spec.devices, SizeIs(4));
  EXPECT_EQ(
      linux_spec.devices[3],
      (Device{
          .type = "p", .path = "/dev/app-events", .file_mode = 0600, .uid = 1000, .gid = 1000}));

  ASSERT_TRUE(linux_spec.resources.has_value());
  const Resources& resources = *linux_spec.resources;
  ASSERT_THAT(resources.rdma, SizeIs(2));
  EXPECT_EQ(resources.rdma.at("mlx5_0"), (Rdma{.hca_handles = 3, .hca_objects = 10000}));
  EXPECT_EQ(resources.rdma.at("mlx5_1"), (Rdma{.hca_handles = 1}));
  EXPECT_EQ(resources.memory->check_before_update, true);
  EXPECT_EQ(resources.memory->kernel_tcp, 16777216);
  EXPECT_EQ(resources.cpu->burst, 50000u);
  EXPECT_EQ(resources.cpu->idle, 0);
  EXPECT_EQ(resources.block_io->weight_device[0],
            (WeightDevice{.major = 8, .minor = 0, .weight = 700, .leaf_weight = 200}));
  EXPECT_EQ(resources.block_io->throttle_write_iops_device[1],
            (ThrottleDevice{.major = 8, .minor = 16, .rate = 500}));
  EXPECT_EQ(resources.network->class_id, 1048577u);
  EXPECT_EQ(resources.network->priorities[1], (InterfacePriority{.name = "lo", .priority = 1000}));
  EXPECT_EQ(resources.unified.at("memory.oom.group"), "1");

  ASSERT_TRUE(linux_spec.seccomp.has_value());
  const Seccomp& seccomp = *linux_spec.seccomp;
  EXPECT_THAT(seccomp.flags,
              ElementsAre("SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"));
  EXPECT_EQ(seccomp.listener_path, "/run/vigil/seccomp-agent.sock");
  EXPECT_EQ(seccomp.listener_metadata, "container=full-app;policy=strict");
  std::vector<const SeccompSyscall*> mount = RulesFor(seccomp, "mount");
  ASSERT_THAT(mount, SizeIs(1));
  EXPECT_EQ(mount[0]->action, SeccompAction::kNotify);
  // Every action appears at least once.
  std::set<SeccompAction> actions;
  for (const SeccompSyscall& rule : seccomp.syscalls) actions.insert(rule.action);
  EXPECT_THAT(actions, SizeIs(std::size(NameTable<SeccompAction>::kEntries)));
  std::set<SeccompOperator> ops;
  for (const SeccompSyscall& rule : seccomp.syscalls) {
    for (const SeccompArg& arg : rule.args) ops.insert(arg.op);
  }
  EXPECT_THAT(ops, SizeIs(std::size(NameTable<SeccompOperator>::kEntries)));
}

// Every property name the field tables (config/oci/parse_*.cc) know. The dump
// writes a property only when it holds something, so each name showing up in
// the dump means full_1_2.json really sets it. Space-separated, by section.
constexpr std::string_view kEveryProperty[] = {
    // spec, root, mounts, hooks
    "ociVersion root path readonly mounts destination type source options uidMappings "
    "gidMappings process hostname domainname hooks args env timeout prestart createRuntime "
    "createContainer startContainer poststart poststop annotations linux",
    // process
    "terminal consoleSize height width user uid gid umask additionalGids username commandLine "
    "cwd capabilities bounding effective inheritable permitted ambient rlimits hard soft "
    "noNewPrivileges apparmorProfile selinuxLabel oomScoreAdj scheduler policy nice priority "
    "flags runtime deadline period ioPriority class execCPUAffinity initial final",
    // linux
    "containerID hostID size sysctl resources cgroupsPath namespaces devices major minor "
    "fileMode seccomp rootfsPropagation maskedPaths readonlyPaths mountLabel intelRdt closID "
    "l3CacheSchema memBwSchema enableCMT enableMBM personality domain timeOffsets secs nanosecs",
    // linux.resources
    "allow access memory limit reservation swap kernel kernelTCP swappiness disableOOMKiller "
    "useHierarchy checkBeforeUpdate cpu shares quota burst realtimeRuntime realtimePeriod cpus "
    "mems idle pids blockIO weight leafWeight weightDevice rate throttleReadBpsDevice "
    "throttleWriteBpsDevice throttleReadIOPSDevice throttleWriteIOPSDevice hugepageLimits "
    "pageSize network classID priorities name rdma hcaHandles hcaObjects unified",
    // linux.seccomp
    "defaultAction defaultErrnoRet architectures listenerPath listenerMetadata syscalls names "
    "action errnoRet index value valueTwo op",
};

TEST(CorpusSpotTest, FullSetsEveryProperty) {
  std::string dumped = DumpSpec(ParseCorpus("full_1_2.json"), json::Writer::Style::kCompact);
  std::size_t checked = 0;
  for (std::string_view section : kEveryProperty) {
    std::istringstream keys{std::string(section)};
    for (std::string key; keys >> key; ++checked) {
      EXPECT_THAT(dumped, HasSubstr("\"" + key + "\":")) << key;
    }
  }
  EXPECT_EQ(checked, 145u);  // the distinct keys of all field tables today
}

// ---- Unknown properties are ignored, at any depth ---------------------------

// `text` with `addition` inserted right after the only occurrence of `anchor`.
std::string InsertAfter(std::string text, std::string_view anchor, std::string_view addition) {
  std::size_t at = text.find(anchor);
  EXPECT_NE(at, std::string::npos) << anchor;
  EXPECT_EQ(text.find(anchor, at + 1), std::string::npos) << anchor << " is not unique";
  if (at == std::string::npos) return text;
  text.insert(at + anchor.size(), addition);
  return text;
}

TEST(CorpusUnknownPropertyTest, IgnoredEverywhere) {
  const std::string runc = ReadCorpus("runc_spec.json");
  // The same knobs twice: once plain, once wrapped in properties no version
  // of the spec defines (of every JSON kind, some spelled like known keys of
  // other sections).
  std::string known = runc;
  known = InsertAfter(known, "\"resources\": {", R"("memory": {"limit": 1048576},)");
  known = InsertAfter(known, "\"linux\": {", R"(
      "seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
                  "syscalls": [{"names": ["ptrace"], "action": "SCMP_ACT_ERRNO",
                                "errnoRet": 1}]},)");

  std::string unknown = runc;
  unknown.insert(unknown.find('{') + 1, R"(
    "vigilFutureTopLevel": {"nested": [1, 2.5, {"deep": null}], "flag": true},
    "args": "not the process args",
    "windows": {"layerFolders": ["C:\\layers\\1"]},)");
  unknown = InsertAfter(unknown, "\"process\": {", R"(
    "vigilFutureProcessKey": [true, false, null, "x", -7, 1e3],
    "limit": {"cpu": "unparsed"},)");
  unknown = InsertAfter(unknown, "\"resources\": {", R"("memory": {
      "vigilFutureMemoryKnob": {"highWatermark": "80%"},
      "limit": 1048576,
      "oomGroup": true},)");
  unknown = InsertAfter(unknown, "\"linux\": {", R"(
      "vigilFutureLinuxKey": 18446744073709551616,
      "seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
                  "syscalls": [{"names": ["ptrace"], "action": "SCMP_ACT_ERRNO",
                                "errnoRet": 1,
                                "comment": "as in Docker's unconverted profile",
                                "includes": {"caps": ["CAP_SYS_PTRACE"], "minKernel": "4.8"},
                                "excludes": {"arches": ["s390x"]}}]},)");

  Result<Spec> want = ParseSpec(known);
  ASSERT_TRUE(want.has_value()) << want.error().message;
  Result<Spec> got = ParseSpec(unknown);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_TRUE(*got == *want) << DumpSpec(*got) << "\nwant:\n" << DumpSpec(*want);

  // Not vacuous: the insertions landed and changed the Spec.
  EXPECT_FALSE(*want == ParseCorpus("runc_spec.json"));
  EXPECT_EQ(got->linux_spec->resources->memory->limit, 1048576);
  ASSERT_THAT(got->linux_spec->seccomp->syscalls, SizeIs(1));
  EXPECT_EQ(got->linux_spec->seccomp->syscalls[0].errno_ret, 1u);
  EXPECT_THAT(got->process->args, ElementsAre("sh"));
  EXPECT_TRUE(Validate(*got).has_value());
}

}  // namespace
}  // namespace vigil::config
