// ParseSpec and DumpSpec, one config.json section at a time: every member
// lands where it belongs, errors name the JSON path, unknown properties are
// ignored, and ParseSpec(DumpSpec(s)) == s in both output styles. The
// sections under linux are in spec_linux_test.cc, spec_resources_test.cc
// and spec_seccomp_test.cc.
#include "tests/config/spec_sections.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace vigil::config {
namespace {

// ---- Top level --------------------------------------------------------------

TEST(TopLevelTest, MinimalDocumentHoldsOnlyTheVersion) {
  auto spec = ParseSpec(R"({"ociVersion": "1.2.0"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(*spec, Spec{.oci_version = "1.2.0"});
}

TEST(TopLevelTest, DumpWritesTheMinimalDocumentCompactly) {
  EXPECT_EQ(DumpSpec(Spec{.oci_version = "1.2.0"}, json::Writer::Style::kCompact),
            R"({"ociVersion":"1.2.0"})");
}

TEST(TopLevelTest, DumpIsPrettyByDefault) {
  std::string text = DumpSpec(Spec{.oci_version = "1.2.0", .hostname = "h"});
  EXPECT_THAT(text, HasSubstr("\n"));
  EXPECT_TRUE(text.ends_with("\n")) << text;
  EXPECT_EQ(ParseSpec(text)->hostname, "h");
}

TEST(TopLevelTest, DumpWritesKeysInTheSpecOrder) {
  Spec spec{.oci_version = "1.2.0",
            .root = Root{.path = "rootfs"},
            .process = Process{.cwd = "/"},
            .hostname = "h",
            .domainname = "d",
            .hooks = Hooks{},
            .annotations = {{"a", "b"}},
            .linux_spec = Linux{}};
  EXPECT_EQ(DumpSpec(spec, json::Writer::Style::kCompact),
            R"({"ociVersion":"1.2.0","root":{"path":"rootfs"},)"
            R"("process":{"user":{"uid":0,"gid":0},"cwd":"/"},"hostname":"h","domainname":"d",)"
            R"("hooks":{},"annotations":{"a":"b"},"linux":{}})");
}

TEST(TopLevelTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("x-vendor": {"a": [1, {"b": null}]}, "windows": {"layerFolders": []},
                           "solaris": 3, "vm": "yes")");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(*spec, Spec{.oci_version = "1.2.0"});
}

TEST(TopLevelTest, VersionIsNotCheckedWhileParsing) {
  // Which versions vigil reads is Validate's decision, not the parser's.
  auto spec = ParseSpec(R"({"ociVersion": "0.5"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->oci_version, "0.5");
}

TEST(TopLevelTest, ErrorsNameTheTopLevelKey) {
  EXPECT_EQ(ErrorWith(R"("root": "rootfs")"), R"(root: expected object, got string "rootfs")");
  EXPECT_EQ(ErrorWith(R"("linux": [])"), "linux: expected object, got array");
  EXPECT_EQ(ParseSpec(R"({"ociVersion": 1.2})").error().message,
            "ociVersion: expected string, got number 1.2");
}

// ---- hostname, domainname ---------------------------------------------------

TEST(HostnameTest, ParsesHostnameAndDomainname) {
  auto spec = ParseWith(R"("hostname": "web-1", "domainname": "example.org")");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->hostname, "web-1");
  EXPECT_EQ(spec->domainname, "example.org");
}

TEST(HostnameTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("hostname": ["a"])"), "hostname: expected string, got array");
  EXPECT_EQ(ErrorWith(R"("domainname": true)"), "domainname: expected string, got boolean true");
}

TEST(HostnameTest, RoundTrips) {
  ExpectParsesAndRoundTrips(R"("hostname": "web-1", "domainname": "example.org")");
}

// ---- root -------------------------------------------------------------------

TEST(RootTest, ParsesPathAndReadonly) {
  auto spec = ParseWith(R"("root": {"path": "rootfs", "readonly": true})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->root, (Root{.path = "rootfs", .readonly = true}));
}

TEST(RootTest, ReadonlyDefaultsToFalse) {
  auto spec = ParseWith(R"("root": {"path": "/srv/c1/rootfs"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->root, (Root{.path = "/srv/c1/rootfs", .readonly = false}));
}

TEST(RootTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("root": {"path": "rootfs", "readonly": "yes"})"),
            R"(root.readonly: expected boolean, got string "yes")");
  EXPECT_EQ(ErrorWith(R"("root": {"readonly": true})"), "root.path: required property is missing");
}

TEST(RootTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("root": {"path": "r", "x-vendor": {"a": 1}, "x-ro": "yes"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->root, Root{.path = "r"});
}

TEST(RootTest, RoundTrips) {
  ExpectParsesAndRoundTrips(R"("root": {"path": "rootfs", "readonly": true, "x-vendor": 1})");
  ExpectParsesAndRoundTrips(R"("root": {"path": ""})");
}

// ---- mounts -----------------------------------------------------------------

TEST(MountsTest, ParsesEveryMember) {
  auto spec = ParseWith(kMounts);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->mounts.size(), 2u);
  EXPECT_EQ(spec->mounts[0], (Mount{.destination = "/proc", .type = "proc", .source = "proc"}));
  const Mount& m = spec->mounts[1];
  EXPECT_EQ(m.destination, "/data");
  EXPECT_EQ(m.type, "bind");
  EXPECT_EQ(m.source, "/srv/data");
  EXPECT_EQ(m.options, (Strings{"rbind", "ro"}));
  EXPECT_EQ(m.uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 100000, .size = 65536}}));
  EXPECT_EQ(m.gid_mappings,
            (std::vector<IdMapping>{{.container_id = 1, .host_id = 200000, .size = 1000}}));
}

TEST(MountsTest, KeepsTheDocumentOrder) {
  auto spec = ParseWith(
      R"("mounts": [{"destination": "/b"}, {"destination": "/a"}, {"destination": "/b/c"}])");
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->mounts.size(), 3u);
  EXPECT_EQ(spec->mounts[0].destination, "/b");
  EXPECT_EQ(spec->mounts[1].destination, "/a");
  EXPECT_EQ(spec->mounts[2].destination, "/b/c");
}

TEST(MountsTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("mounts": [{"destination": "/a"}, {"type": "tmpfs"}])"),
            "mounts[1].destination: required property is missing");
  EXPECT_EQ(ErrorWith(R"("mounts": [{"destination": "/a", "options": ["ro", 1]}])"),
            "mounts[0].options[1]: expected string, got number 1");
  EXPECT_EQ(ErrorWith(R"("mounts": [{"destination": "/a", "uidMappings": [
                           {"containerID": 0, "hostID": -5, "size": 1}]}])"),
            "mounts[0].uidMappings[0].hostID: expected unsigned 32-bit integer, got number -5");
}

TEST(MountsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("mounts": [{"destination": "/a", "x-vendor": [], "x-opts": "ro"}])");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->mounts, (std::vector<Mount>{{.destination = "/a"}}));
}

TEST(MountsTest, RoundTrips) { ExpectParsesAndRoundTrips(kMounts); }

// ---- process ----------------------------------------------------------------

TEST(ProcessTest, ParsesEveryMember) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->process);
  const Process& p = *spec->process;
  EXPECT_TRUE(p.terminal);
  EXPECT_EQ(p.console_size, (ConsoleSize{.height = 24, .width = 80}));
  EXPECT_EQ(p.args, (Strings{"sh", "-c", "echo hi"}));
  EXPECT_EQ(p.command_line, "cmd.exe /c echo");
  EXPECT_EQ(p.env, (Strings{"PATH=/bin", "TERM=xterm"}));
  EXPECT_EQ(p.cwd, "/home/alice");
  EXPECT_TRUE(p.no_new_privileges);
  EXPECT_EQ(p.apparmor_profile, "docker-default");
  EXPECT_EQ(p.selinux_label, "system_u:system_r:container_t:s0");
  EXPECT_EQ(p.oom_score_adj, -500);
}

TEST(ProcessTest, ParsesUser) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  const User& u = spec->process->user;
  EXPECT_EQ(u.uid, 1000u);
  EXPECT_EQ(u.gid, 1001u);
  EXPECT_EQ(u.umask, 18u);
  EXPECT_EQ(u.additional_gids, (std::vector<std::uint32_t>{5, 10}));
  EXPECT_EQ(u.username, "alice");
}

TEST(ProcessTest, ParsesCapabilitySets) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->process->capabilities);
  const Capabilities& c = *spec->process->capabilities;
  EXPECT_EQ(c.bounding, (Strings{"CAP_KILL", "CAP_CHOWN"}));
  EXPECT_EQ(c.effective, (Strings{"CAP_KILL"}));
  EXPECT_EQ(c.inheritable, (Strings{"CAP_NET_RAW"}));
  EXPECT_EQ(c.permitted, (Strings{"CAP_KILL", "CAP_AUDIT_WRITE"}));
  EXPECT_EQ(c.ambient, (Strings{"CAP_CHECKPOINT_RESTORE"}));
}

TEST(ProcessTest, ParsesRlimits) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process->rlimits,
            (std::vector<Rlimit>{
                {.type = "RLIMIT_NOFILE", .hard = 4096, .soft = 1024},
                {.type = "RLIMIT_CORE", .hard = std::numeric_limits<std::uint64_t>::max()},
            }));
}

TEST(ProcessTest, ParsesScheduler) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process->scheduler,
            (Scheduler{.policy = "SCHED_DEADLINE",
                       .nice = -5,
                       .priority = 0,
                       .flags = {"SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM"},
                       .runtime = 10000,
                       .deadline = 20000,
                       .period = 30000}));
}

TEST(ProcessTest, ParsesIoPriorityAndExecCpuAffinity) {
  auto spec = ParseWith(kProcess);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process->io_priority, (IoPriority{.io_class = "IOPRIO_CLASS_BE", .priority = 4}));
  EXPECT_EQ(spec->process->exec_cpu_affinity, (ExecCpuAffinity{.initial = "0-3", .final = "7"}));
}

TEST(ProcessTest, AbsentMembersKeepTheirDefaults) {
  auto spec = ParseWith(R"("process": {"cwd": "/"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process, Process{.cwd = "/"});
  EXPECT_FALSE(spec->process->capabilities);  // inherited, not emptied
  EXPECT_FALSE(spec->process->user.umask);
  EXPECT_FALSE(spec->process->oom_score_adj);
}

TEST(ProcessTest, EmptyCapabilitiesObjectDiffersFromAbsent) {
  auto spec = ParseWith(R"("process": {"cwd": "/", "capabilities": {}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process->capabilities, Capabilities{});
  ExpectRoundTrip(*spec);
}

TEST(ProcessTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"args": ["sh"]})"),
            "process.cwd: required property is missing");
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "terminal": 1})"),
            "process.terminal: expected boolean, got number 1");
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "args": "sh"})"),
            R"(process.args: expected array, got string "sh")");
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "env": [{}]})"),
            "process.env[0]: expected string, got object");
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "oomScoreAdj": "-500"})"),
            R"(process.oomScoreAdj: expected 32-bit integer, got string "-500")");
}

TEST(ProcessTest, ConsoleSizeErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "consoleSize": {"height": 24}})"),
            "process.consoleSize.width: required property is missing");
}

TEST(ProcessTest, UserErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "user": {"additionalGids": [5, -1]}})"),
            "process.user.additionalGids[1]: expected unsigned 32-bit integer, got number -1");
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "user": {"umask": "0022"}})"),
            R"(process.user.umask: expected unsigned 32-bit integer, got string "0022")");
}

TEST(ProcessTest, RlimitErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "rlimits": [{"type": "RLIMIT_AS", "hard": 1}]})"),
            "process.rlimits[0].soft: required property is missing");
}

TEST(ProcessTest, SchedulerErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "scheduler": {"nice": 1}})"),
            "process.scheduler.policy: required property is missing");
  EXPECT_EQ(
      ErrorWith(R"("process": {"cwd": "/", "scheduler": {"policy": "SCHED_OTHER", "nice": "-5"}})"),
      R"(process.scheduler.nice: expected 32-bit integer, got string "-5")");
}

TEST(ProcessTest, IoPriorityErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "ioPriority": {"priority": 4}})"),
            "process.ioPriority.class: required property is missing");
  EXPECT_EQ(ErrorWith(
                R"("process": {"cwd": "/",
                         "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 4.5}})"),
            "process.ioPriority.priority: expected 32-bit integer, got number 4.5");
}

TEST(ProcessTest, ExecCpuAffinityErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("process": {"cwd": "/", "execCPUAffinity": {"final": 7}})"),
            "process.execCPUAffinity.final: expected string, got number 7");
}

TEST(ProcessTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(
      R"("process": {"cwd": "/", "x-vendor": 1, "user": {"x-vendor": 1},
                     "consoleSize": {"height": 1, "width": 2, "x-depth": 3}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->process,
            (Process{.console_size = ConsoleSize{.height = 1, .width = 2}, .cwd = "/"}));
}

TEST(ProcessTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kProcess);
  ExpectParsesAndRoundTrips(R"("process": {"cwd": ""})");
  ExpectParsesAndRoundTrips(R"("process": {"cwd": "/", "oomScoreAdj": 0, "user": {"umask": 0}})");
}

// ---- hooks ------------------------------------------------------------------

TEST(HooksTest, ParsesAllSixKinds) {
  auto spec = ParseWith(kHooks);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->hooks);
  const Hooks& h = *spec->hooks;
  EXPECT_EQ(h.prestart,
            (std::vector<Hook>{
                {.path = "/bin/pre", .args = {"pre", "-v"}, .env = {"A=1"}, .timeout = 5},
            }));
  EXPECT_EQ(h.create_runtime, (std::vector<Hook>{{.path = "/bin/cr1"}, {.path = "/bin/cr2"}}));
  EXPECT_EQ(h.create_container, (std::vector<Hook>{{.path = "/bin/cc"}}));
  EXPECT_EQ(h.start_container, (std::vector<Hook>{{.path = "/bin/sc"}}));
  EXPECT_EQ(h.poststart, (std::vector<Hook>{{.path = "/bin/ps"}}));
  EXPECT_EQ(h.poststop, (std::vector<Hook>{{.path = "/bin/pst", .timeout = 1}}));
}

TEST(HooksTest, TimeoutIsAbsentUnlessGiven) {
  auto spec = ParseWith(R"("hooks": {"poststop": [{"path": "/p"}, {"path": "/p", "timeout": 0}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_FALSE(spec->hooks->poststop[0].timeout);
  EXPECT_EQ(spec->hooks->poststop[1].timeout, 0);  // kept for Validate to refuse
}

TEST(HooksTest, ErrorNamesTheKindAndIndex) {
  for (std::string_view kind : {"prestart", "createRuntime", "createContainer", "startContainer",
                                "poststart", "poststop"}) {
    EXPECT_EQ(ErrorWith(StrCat(R"("hooks": {")", kind, R"(": [{"path": "/a"}, {"args": []}]})")),
              StrCat("hooks.", kind, "[1].path: required property is missing"));
  }
  EXPECT_EQ(ErrorWith(R"("hooks": {"poststop": [{"path": "/a", "timeout": 1.5}]})"),
            "hooks.poststop[0].timeout: expected 32-bit integer, got number 1.5");
  EXPECT_EQ(ErrorWith(R"("hooks": {"prestart": {"path": "/a"}})"),
            "hooks.prestart: expected array, got object");
}

TEST(HooksTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("hooks": {"x-vendor": [], "poststart": [{"path": "/a", "x-v": 1}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->hooks, (Hooks{.poststart = {{.path = "/a"}}}));
}

TEST(HooksTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kHooks);
  ExpectParsesAndRoundTrips(R"("hooks": {})");
}

// ---- annotations ------------------------------------------------------------

TEST(AnnotationsTest, ParsesEveryEntry) {
  auto spec = ParseWith(kAnnotations);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->annotations, (std::map<std::string, std::string>{
                                   {"io.kubernetes.cri.container-type", "sandbox"},
                                   {"org.opencontainers.image.ref.name", "alpine:3"},
                                   {"plain", ""},
                                   {"caf\xc3\xa9", "na\xc3\xafve"},
                               }));
}

TEST(AnnotationsTest, ErrorQuotesTheKey) {
  EXPECT_EQ(ErrorWith(R"("annotations": {"io.k8s.x": 1})"),
            R"(annotations["io.k8s.x"]: expected string, got number 1)");
  EXPECT_EQ(ErrorWith(R"("annotations": ["a=b"])"), "annotations: expected object, got array");
}

TEST(AnnotationsTest, EveryKeyIsData) {
  // Inside annotations no key is "unknown": an x- key is kept like any other.
  auto spec = ParseWith(R"("annotations": {"x-vendor": "1"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->annotations.at("x-vendor"), "1");
}

TEST(AnnotationsTest, RoundTrips) { ExpectParsesAndRoundTrips(kAnnotations); }

// ---- Whole documents --------------------------------------------------------

TEST(WholeSpecTest, EverySectionTogetherRoundTrips) {
  // The sections' "linux" objects are separate documents above; merge them.
  std::string linux_members;
  for (std::string_view section : {kNamespaces, kMappings, kDevices, kSysctl, kResources, kSeccomp,
                                   kLinuxPaths, kIntelRdt, kPersonality, kTimeOffsets}) {
    std::string_view body = section.substr(section.find('{') + 1);
    body.remove_suffix(1);  // the closing brace of "linux"
    if (!linux_members.empty()) linux_members += ", ";
    linux_members += body;
  }
  auto spec =
      ParseWith(StrCat(R"("root": {"path": "rootfs"}, "hostname": "h", )", kMounts, ", ", kProcess,
                       ", ", kHooks, ", ", kAnnotations, R"(, "linux": {)", linux_members, "}"));
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->namespaces.size(), 8u);
  EXPECT_TRUE(spec->linux_spec->seccomp);
  EXPECT_TRUE(spec->linux_spec->resources->block_io);
  EXPECT_EQ(spec->linux_spec->time_offsets.size(), 2u);
  ExpectRoundTrip(*spec);
}

TEST(WholeSpecTest, ExtremeValuesRoundTrip) {
  constexpr auto kI64Min = std::numeric_limits<std::int64_t>::min();
  constexpr auto kI64Max = std::numeric_limits<std::int64_t>::max();
  constexpr auto kU64Max = std::numeric_limits<std::uint64_t>::max();
  constexpr auto kU32Max = std::numeric_limits<std::uint32_t>::max();
  constexpr auto kI32Min = std::numeric_limits<std::int32_t>::min();
  Spec spec{.oci_version = "1.2.0"};
  spec.process = Process{
      .user = {.uid = kU32Max, .gid = kU32Max, .umask = 0},
      .args = {"", "a\"b\\c\n\t\x01", "\xe2\x9c\x93"},
      .cwd = "/",
      .rlimits = {{.type = "RLIMIT_AS", .hard = kU64Max, .soft = kU64Max}},
      .oom_score_adj = kI32Min,
      .scheduler = Scheduler{
          .policy = "SCHED_OTHER", .runtime = kU64Max, .deadline = kU64Max, .period = kU64Max}};
  Linux& l = spec.linux_spec.emplace();
  l.devices = {{.type = "c", .path = "/dev/x", .major = kI64Min, .minor = kI64Max}};
  l.time_offsets = {{"monotonic", {.secs = kI64Min, .nanosecs = kU32Max}}};
  l.resources = Resources{
      .devices = {{.allow = false}},
      .memory = Memory{.limit = kI64Max,
                       .swap = kI64Min,
                       .swappiness = kU64Max,
                       .disable_oom_killer = false,
                       .use_hierarchy = false,
                       .check_before_update = false},
      .cpu = Cpu{.shares = kU64Max, .quota = kI64Min, .idle = 0},
      .pids = Pids{.limit = -1},
      .block_io = BlockIo{.weight = 65535, .leaf_weight = 0},
      .hugepage_limits = {{.page_size = "", .limit = kU64Max}},
      .network = Network{.class_id = 0},
      .rdma = {{"", {}}},
  };
  ExpectRoundTrip(spec);
}

TEST(WholeSpecTest, FalseAndZeroThatWereGivenSurviveTheRoundTrip) {
  // Optional members that were set to false or 0 are written, not dropped.
  auto spec = ParseWith(R"("linux": {"resources": {
      "memory": {"disableOOMKiller": false, "limit": 0},
      "devices": [{"allow": false}]}})");
  ASSERT_TRUE(spec) << spec.error().message;
  std::string text = DumpSpec(*spec, json::Writer::Style::kCompact);
  EXPECT_THAT(text, HasSubstr(R"("disableOOMKiller":false)"));
  EXPECT_THAT(text, HasSubstr(R"("limit":0)"));
  EXPECT_THAT(text, HasSubstr(R"("allow":false)"));
  ExpectRoundTrip(*spec);
}

}  // namespace
}  // namespace vigil::config
