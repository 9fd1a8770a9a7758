// ParseSpec and DumpSpec, one config.json section at a time: every member
// lands where it belongs, errors name the JSON path, unknown properties are
// ignored, and ParseSpec(DumpSpec(s)) == s in both output styles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "config/oci/config.h"
#include "config/oci/spec.h"

namespace vigil::config {

// Failures print a Spec as its JSON, not as bytes. (Found by ADL, so it lives
// in the Spec's own namespace.)
void PrintTo(const Spec& spec, std::ostream* os) {
  *os << DumpSpec(spec, json::Writer::Style::kCompact);
}

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Strings = std::vector<std::string>;

// config.json holding ociVersion plus `members` (a comma-separated list).
std::string DocWith(std::string_view members) {
  return StrCat(R"({"ociVersion": "1.2.0", )", members, "}");
}

Result<Spec> ParseWith(std::string_view members) { return ParseSpec(DocWith(members)); }

// The error ParseSpec reports for the document, or "" if it parsed.
std::string ErrorWith(std::string_view members) {
  Result<Spec> spec = ParseWith(members);
  return spec ? "" : spec.error().message;
}

// ParseSpec(DumpSpec(spec)) == spec, compact and pretty, and dumping the
// result again gives the same text.
void ExpectRoundTrip(const Spec& spec) {
  for (json::Writer::Style style : {json::Writer::Style::kCompact, json::Writer::Style::kPretty}) {
    std::string text = DumpSpec(spec, style);
    Result<Spec> again = ParseSpec(text);
    ASSERT_TRUE(again) << again.error().message << "\n" << text;
    EXPECT_EQ(*again, spec) << text;
    EXPECT_EQ(DumpSpec(*again, style), text);
  }
}

// Parses `members`, checks that it round-trips, and that no property whose
// name starts with "x-" (the unknown ones in these documents) is written back.
void ExpectParsesAndRoundTrips(std::string_view members) {
  Result<Spec> spec = ParseWith(members);
  ASSERT_TRUE(spec) << spec.error().message;
  ExpectRoundTrip(*spec);
  EXPECT_THAT(DumpSpec(*spec), Not(HasSubstr("\"x-")));
}

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

constexpr std::string_view kMounts = R"("mounts": [
  {"destination": "/proc", "type": "proc", "source": "proc"},
  {"destination": "/data", "type": "bind", "source": "/srv/data", "options": ["rbind", "ro"],
   "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536, "x-vendor": 0}],
   "gidMappings": [{"containerID": 1, "hostID": 200000, "size": 1000}],
   "x-vendor": {"note": "ignored"}}
])";

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

constexpr std::string_view kProcess = R"("process": {
  "terminal": true,
  "consoleSize": {"height": 24, "width": 80, "x-vendor": 1},
  "user": {"uid": 1000, "gid": 1001, "umask": 18, "additionalGids": [5, 10],
           "username": "alice", "x-vendor": 1},
  "args": ["sh", "-c", "echo hi"],
  "commandLine": "cmd.exe /c echo",
  "env": ["PATH=/bin", "TERM=xterm"],
  "cwd": "/home/alice",
  "capabilities": {
    "bounding": ["CAP_KILL", "CAP_CHOWN"],
    "effective": ["CAP_KILL"],
    "inheritable": ["CAP_NET_RAW"],
    "permitted": ["CAP_KILL", "CAP_AUDIT_WRITE"],
    "ambient": ["CAP_CHECKPOINT_RESTORE"],
    "x-vendor": ["CAP_NOT_CHECKED"]
  },
  "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 1024, "x-vendor": 1},
              {"type": "RLIMIT_CORE", "hard": 18446744073709551615, "soft": 0}],
  "noNewPrivileges": true,
  "apparmorProfile": "docker-default",
  "selinuxLabel": "system_u:system_r:container_t:s0",
  "oomScoreAdj": -500,
  "scheduler": {"policy": "SCHED_DEADLINE", "nice": -5, "priority": 0,
                "flags": ["SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM"],
                "runtime": 10000, "deadline": 20000, "period": 30000, "x-vendor": 1},
  "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 4, "x-vendor": 1},
  "execCPUAffinity": {"initial": "0-3", "final": "7", "x-vendor": 1},
  "x-vendor": {"a": 1}
})";

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

constexpr std::string_view kHooks = R"("hooks": {
  "prestart": [{"path": "/bin/pre", "args": ["pre", "-v"], "env": ["A=1"], "timeout": 5,
                "x-vendor": 1}],
  "createRuntime": [{"path": "/bin/cr1"}, {"path": "/bin/cr2"}],
  "createContainer": [{"path": "/bin/cc"}],
  "startContainer": [{"path": "/bin/sc"}],
  "poststart": [{"path": "/bin/ps"}],
  "poststop": [{"path": "/bin/pst", "timeout": 1}],
  "x-vendor": [{"path": "/bin/ignored"}]
})";

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

constexpr std::string_view kAnnotations = R"("annotations": {
  "io.kubernetes.cri.container-type": "sandbox",
  "org.opencontainers.image.ref.name": "alpine:3",
  "plain": "",
  "caf\u00e9": "na\u00efve"
})";

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

// ---- linux.namespaces, uidMappings, gidMappings -----------------------------

constexpr std::string_view kNamespaces = R"("linux": {"namespaces": [
  {"type": "pid"}, {"type": "network", "path": "/proc/1/ns/net"}, {"type": "mount"},
  {"type": "ipc"}, {"type": "uts"}, {"type": "user"}, {"type": "cgroup"},
  {"type": "time", "x-vendor": 1}
]})";

TEST(NamespacesTest, ParsesTypesAndPaths) {
  auto spec = ParseWith(kNamespaces);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->namespaces,
            (std::vector<Namespace>{
                {.type = NamespaceType::kPid},
                {.type = NamespaceType::kNetwork, .path = "/proc/1/ns/net"},
                {.type = NamespaceType::kMount},
                {.type = NamespaceType::kIpc},
                {.type = NamespaceType::kUts},
                {.type = NamespaceType::kUser},
                {.type = NamespaceType::kCgroup},
                {.type = NamespaceType::kTime},
            }));
  ASSERT_NE(spec->linux_spec->FindNamespace(NamespaceType::kNetwork), nullptr);
  EXPECT_EQ(spec->linux_spec->FindNamespace(NamespaceType::kNetwork)->path, "/proc/1/ns/net");
}

TEST(NamespacesTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"namespaces": [{"type": "pid"}, {"path": "/x"}]})"),
            "linux.namespaces[1].type: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"namespaces": [{"type": "pid", "path": 1}]})"),
            "linux.namespaces[0].path: expected string, got number 1");
}

TEST(NamespacesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"namespaces": [{"type": "uts", "x-vendor": "host"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->namespaces, (std::vector<Namespace>{{.type = NamespaceType::kUts}}));
}

TEST(NamespacesTest, RoundTrips) { ExpectParsesAndRoundTrips(kNamespaces); }

constexpr std::string_view kMappings = R"("linux": {
  "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1},
                  {"containerID": 1, "hostID": 100000, "size": 65536, "x-vendor": 1}],
  "gidMappings": [{"containerID": 0, "hostID": 4294967295, "size": 4294967295}]
})";

TEST(IdMappingsTest, ParsesUidAndGidMappings) {
  auto spec = ParseWith(kMappings);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1000, .size = 1},
                                    {.container_id = 1, .host_id = 100000, .size = 65536}}));
  EXPECT_EQ(
      spec->linux_spec->gid_mappings,
      (std::vector<IdMapping>{{.container_id = 0, .host_id = 4294967295u, .size = 4294967295u}}));
}

TEST(IdMappingsTest, ErrorNamesThePath) {
  EXPECT_EQ(
      ErrorWith(
          R"("linux": {"gidMappings": [{"containerID": 4294967296, "hostID": 0, "size": 1}]})"),
      "linux.gidMappings[0].containerID: expected unsigned 32-bit integer in [0, 4294967295], "
      "got number 4294967296");
  EXPECT_EQ(ErrorWith(R"("linux": {"uidMappings": [{"containerID": 0, "size": 1}]})"),
            "linux.uidMappings[0].hostID: required property is missing");
}

TEST(IdMappingsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(
      R"("linux": {"uidMappings": [{"containerID": 0, "hostID": 1, "size": 2, "x-v": "a"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->uid_mappings,
            (std::vector<IdMapping>{{.container_id = 0, .host_id = 1, .size = 2}}));
}

TEST(IdMappingsTest, RoundTrips) { ExpectParsesAndRoundTrips(kMappings); }

// ---- linux.devices ----------------------------------------------------------

constexpr std::string_view kDevices = R"("linux": {"devices": [
  {"type": "c", "path": "/dev/fuse", "major": 10, "minor": 229, "fileMode": 438, "uid": 0,
   "gid": 5, "x-vendor": 1},
  {"type": "b", "path": "/dev/sda", "major": 8, "minor": 0},
  {"type": "u", "path": "/dev/unbuffered", "major": 1, "minor": 9},
  {"type": "p", "path": "/dev/fifo"}
]})";

TEST(DevicesTest, ParsesEveryMember) {
  auto spec = ParseWith(kDevices);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->devices,
            (std::vector<Device>{
                {.type = "c",
                 .path = "/dev/fuse",
                 .major = 10,
                 .minor = 229,
                 .file_mode = 0666,
                 .uid = 0,
                 .gid = 5},
                {.type = "b", .path = "/dev/sda", .major = 8, .minor = 0},
                {.type = "u", .path = "/dev/unbuffered", .major = 1, .minor = 9},
                {.type = "p", .path = "/dev/fifo"},
            }));
}

TEST(DevicesTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"devices": [{"type": "c", "major": 1}]})"),
            "linux.devices[0].path: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"devices": [{"path": "/dev/null"}]})"),
            "linux.devices[0].type: required property is missing");
  EXPECT_EQ(
      ErrorWith(R"("linux": {"devices": [{"type": "c", "path": "/dev/x", "fileMode": "0666"}]})"),
      R"(linux.devices[0].fileMode: expected unsigned 32-bit integer, got string "0666")");
}

TEST(DevicesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"devices": [{"type": "p", "path": "/f", "x-mode": "rw"}]})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->devices, (std::vector<Device>{{.type = "p", .path = "/f"}}));
}

TEST(DevicesTest, RoundTrips) { ExpectParsesAndRoundTrips(kDevices); }

// ---- linux.sysctl -----------------------------------------------------------

constexpr std::string_view kSysctl =
    R"("linux": {"sysctl": {"net.ipv4.ip_forward": "1", "kernel.shmmax": "4294967296"}})";

TEST(SysctlTest, ParsesEveryEntry) {
  auto spec = ParseWith(kSysctl);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->sysctl,
            (std::map<std::string, std::string>{{"net.ipv4.ip_forward", "1"},
                                                {"kernel.shmmax", "4294967296"}}));
}

TEST(SysctlTest, ErrorQuotesTheKey) {
  EXPECT_EQ(ErrorWith(R"("linux": {"sysctl": {"net.ipv4.ip_forward": 1}})"),
            R"(linux.sysctl["net.ipv4.ip_forward"]: expected string, got number 1)");
}

TEST(SysctlTest, RoundTrips) { ExpectParsesAndRoundTrips(kSysctl); }

// ---- linux.resources --------------------------------------------------------

constexpr std::string_view kResources = R"("linux": {"resources": {
  "devices": [{"allow": false, "access": "rwm"},
              {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw", "x-v": 1},
              {"allow": true, "type": "b", "major": -1, "minor": -1, "access": "m"}],
  "memory": {"limit": 536870912, "reservation": 268435456, "swap": -1, "kernel": 0,
             "kernelTCP": 1024, "swappiness": 60, "disableOOMKiller": false,
             "useHierarchy": true, "checkBeforeUpdate": true, "x-vendor": 1},
  "cpu": {"shares": 1024, "quota": 100000, "burst": 5000, "period": 100000,
          "realtimeRuntime": 950000, "realtimePeriod": 1000000, "cpus": "0-3", "mems": "0",
          "idle": 1, "x-vendor": 1},
  "pids": {"limit": 32, "x-vendor": 1},
  "blockIO": {"weight": 500, "leafWeight": 300,
              "weightDevice": [{"major": 8, "minor": 0, "weight": 600, "leafWeight": 200},
                               {"major": 8, "minor": 16}],
              "throttleReadBpsDevice": [{"major": 8, "minor": 0, "rate": 1048576}],
              "throttleWriteBpsDevice": [{"major": 8, "minor": 0, "rate": 2097152}],
              "throttleReadIOPSDevice": [{"major": 8, "minor": 0, "rate": 100}],
              "throttleWriteIOPSDevice": [{"major": 8, "minor": 16, "rate": 200, "x-v": 1}],
              "x-vendor": 1},
  "hugepageLimits": [{"pageSize": "2MB", "limit": 209715200}, {"pageSize": "1GB", "limit": 0}],
  "network": {"classID": 1048577,
              "priorities": [{"name": "eth0", "priority": 500}, {"name": "lo", "priority": 0}],
              "x-vendor": 1},
  "rdma": {"mlx5_1": {"hcaHandles": 3, "hcaObjects": 10000, "x-vendor": 1},
           "mlx4-0": {"hcaHandles": 1}},
  "unified": {"memory.high": "1073741824", "io.weight": "default 100"},
  "x-vendor": {"blkio": 1}
}})";

TEST(ResourcesTest, ParsesDeviceRules) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->devices,
            (std::vector<DeviceRule>{
                {.allow = false, .access = "rwm"},
                {.allow = true, .type = "c", .major = 1, .minor = 3, .access = "rw"},
                {.allow = true, .type = "b", .major = -1, .minor = -1, .access = "m"},
            }));
}

TEST(ResourcesTest, ParsesMemory) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->memory, (Memory{.limit = 536870912,
                                                         .reservation = 268435456,
                                                         .swap = -1,
                                                         .kernel = 0,
                                                         .kernel_tcp = 1024,
                                                         .swappiness = 60,
                                                         .disable_oom_killer = false,
                                                         .use_hierarchy = true,
                                                         .check_before_update = true}));
}

TEST(ResourcesTest, ParsesCpu) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->cpu, (Cpu{.shares = 1024,
                                                   .quota = 100000,
                                                   .burst = 5000,
                                                   .period = 100000,
                                                   .realtime_runtime = 950000,
                                                   .realtime_period = 1000000,
                                                   .cpus = "0-3",
                                                   .mems = "0",
                                                   .idle = 1}));
}

TEST(ResourcesTest, ParsesPids) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->pids, Pids{.limit = 32});
}

TEST(ResourcesTest, ParsesBlockIo) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_TRUE(spec->linux_spec->resources->block_io);
  const BlockIo& b = *spec->linux_spec->resources->block_io;
  EXPECT_EQ(b.weight, 500);
  EXPECT_EQ(b.leaf_weight, 300);
  EXPECT_EQ(b.weight_device,
            (std::vector<WeightDevice>{{.major = 8, .minor = 0, .weight = 600, .leaf_weight = 200},
                                       {.major = 8, .minor = 16}}));
  EXPECT_EQ(b.throttle_read_bps_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 1048576}}));
  EXPECT_EQ(b.throttle_write_bps_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 2097152}}));
  EXPECT_EQ(b.throttle_read_iops_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 0, .rate = 100}}));
  EXPECT_EQ(b.throttle_write_iops_device,
            (std::vector<ThrottleDevice>{{.major = 8, .minor = 16, .rate = 200}}));
}

TEST(ResourcesTest, ParsesHugepageLimits) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->hugepage_limits,
            (std::vector<HugepageLimit>{{.page_size = "2MB", .limit = 209715200},
                                        {.page_size = "1GB", .limit = 0}}));
}

TEST(ResourcesTest, ParsesNetwork) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->network,
            (Network{.class_id = 1048577,
                     .priorities = {{.name = "eth0", .priority = 500}, {.name = "lo"}}}));
}

TEST(ResourcesTest, ParsesRdma) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->rdma,
            (std::map<std::string, Rdma>{{"mlx5_1", {.hca_handles = 3, .hca_objects = 10000}},
                                         {"mlx4-0", {.hca_handles = 1}}}));
}

TEST(ResourcesTest, ParsesUnified) {
  auto spec = ParseWith(kResources);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources->unified,
            (std::map<std::string, std::string>{{"memory.high", "1073741824"},
                                                {"io.weight", "default 100"}}));
}

TEST(ResourcesTest, AbsentControllersStayUnset) {
  auto spec = ParseWith(R"("linux": {"resources": {"memory": {}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  const Resources& r = *spec->linux_spec->resources;
  EXPECT_EQ(r.memory, Memory{});
  EXPECT_FALSE(r.memory->limit);
  EXPECT_FALSE(r.memory->disable_oom_killer);
  EXPECT_FALSE(r.cpu);
  EXPECT_FALSE(r.pids);
  EXPECT_FALSE(r.block_io);
  EXPECT_FALSE(r.network);
  EXPECT_TRUE(r.devices.empty());
}

TEST(ResourcesTest, DeviceRuleErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"devices": [{"access": "rwm"}]}})"),
            "linux.resources.devices[0].allow: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"devices": [{"allow": true, "major": "8"}]}})"),
            R"(linux.resources.devices[0].major: expected integer, got string "8")");
}

TEST(ResourcesTest, MemoryErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"limit": "1g"}}})"),
            R"(linux.resources.memory.limit: expected integer, got string "1g")");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"swappiness": -1}}})"),
            "linux.resources.memory.swappiness: expected unsigned integer, got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"memory": {"disableOOMKiller": 1}}})"),
            "linux.resources.memory.disableOOMKiller: expected boolean, got number 1");
}

TEST(ResourcesTest, CpuErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"cpu": {"shares": -1024}}})"),
            "linux.resources.cpu.shares: expected unsigned integer, got number -1024");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"cpu": {"cpus": 3}}})"),
            "linux.resources.cpu.cpus: expected string, got number 3");
}

TEST(ResourcesTest, PidsErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"pids": {}}})"),
            "linux.resources.pids.limit: required property is missing");
}

TEST(ResourcesTest, BlockIoErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"weightDevice": [
                           {"major": 8, "minor": 0, "weight": 65536}]}}})"),
            "linux.resources.blockIO.weightDevice[0].weight: expected unsigned 16-bit integer "
            "in [0, 65535], got number 65536");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"throttleWriteIOPSDevice": [
                           {"major": 8, "minor": 0}]}}})"),
            "linux.resources.blockIO.throttleWriteIOPSDevice[0].rate: required property is "
            "missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"blockIO": {"weightDevice": [{"minor": 0}]}}})"),
            "linux.resources.blockIO.weightDevice[0].major: required property is missing");
}

TEST(ResourcesTest, HugepageLimitErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"hugepageLimits": [{"limit": 1}]}})"),
            "linux.resources.hugepageLimits[0].pageSize: required property is missing");
}

TEST(ResourcesTest, NetworkErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"network": {"priorities": [
                           {"name": "eth0", "priority": -1}]}}})"),
            "linux.resources.network.priorities[0].priority: expected unsigned 32-bit integer, "
            "got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"network": {"classID": "0x100001"}}})"),
            R"(linux.resources.network.classID: expected unsigned 32-bit integer, )"
            R"(got string "0x100001")");
}

TEST(ResourcesTest, RdmaErrorNamesTheDevice) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"rdma": {"mlx5_1": {"hcaHandles": "3"}}}})"),
            R"(linux.resources.rdma.mlx5_1.hcaHandles: expected unsigned 32-bit integer, )"
            R"(got string "3")");
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"rdma": {"mlx4-0": []}}})"),
            R"(linux.resources.rdma["mlx4-0"]: expected object, got array)");
}

TEST(ResourcesTest, UnifiedErrorQuotesTheFile) {
  EXPECT_EQ(ErrorWith(R"("linux": {"resources": {"unified": {"memory.high": 1073741824}}})"),
            R"(linux.resources.unified["memory.high"]: expected string, got number 1073741824)");
}

TEST(ResourcesTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(
      R"("linux": {"resources": {"x-vendor": 1, "pids": {"limit": 5, "x-max": "max"},
                                 "memory": {"x-limit": "1g"}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->resources, (Resources{.memory = Memory{}, .pids = Pids{.limit = 5}}));
}

TEST(ResourcesTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kResources);
  ExpectParsesAndRoundTrips(
      R"("linux": {"resources": {"memory": {}, "cpu": {}, "blockIO": {}, "network": {}}})");
}

// ---- linux.seccomp ----------------------------------------------------------

constexpr std::string_view kSeccomp = R"("linux": {"seccomp": {
  "defaultAction": "SCMP_ACT_ERRNO",
  "defaultErrnoRet": 1,
  "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
  "flags": ["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"],
  "listenerPath": "/run/seccomp-agent.sock",
  "listenerMetadata": "pod=a",
  "syscalls": [
    {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW", "x-comment": "io"},
    {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
     "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ", "x-v": 1},
              {"index": 1, "value": 255, "valueTwo": 8, "op": "SCMP_CMP_MASKED_EQ"}]},
    {"names": ["mount"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    {"names": ["ioctl"], "action": "SCMP_ACT_NOTIFY"}
  ],
  "x-vendor": {"comment": "ignored"}
}})";

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

// ---- linux: rootfsPropagation, maskedPaths, readonlyPaths, mountLabel, cgroupsPath

constexpr std::string_view kLinuxPaths = R"("linux": {
  "rootfsPropagation": "rslave",
  "maskedPaths": ["/proc/kcore", "/sys/firmware"],
  "readonlyPaths": ["/proc/sys", "/proc/sysrq-trigger"],
  "mountLabel": "system_u:object_r:container_file_t:s0:c1,c2",
  "cgroupsPath": "/vigil/c1",
  "x-vendor": {"masked": ["/"]}
})";

TEST(LinuxPathsTest, ParsesEveryMember) {
  auto spec = ParseWith(kLinuxPaths);
  ASSERT_TRUE(spec) << spec.error().message;
  const Linux& l = *spec->linux_spec;
  EXPECT_EQ(l.rootfs_propagation, "rslave");
  EXPECT_EQ(l.masked_paths, (Strings{"/proc/kcore", "/sys/firmware"}));
  EXPECT_EQ(l.readonly_paths, (Strings{"/proc/sys", "/proc/sysrq-trigger"}));
  EXPECT_EQ(l.mount_label, "system_u:object_r:container_file_t:s0:c1,c2");
  EXPECT_EQ(l.cgroups_path, "/vigil/c1");
}

TEST(LinuxPathsTest, AcceptsEveryPropagation) {
  for (std::string_view p : {"shared", "rshared", "slave", "rslave", "private", "rprivate",
                             "unbindable", "runbindable"}) {
    auto spec = ParseWith(StrCat(R"("linux": {"rootfsPropagation": ")", p, R"("})"));
    ASSERT_TRUE(spec) << spec.error().message;
    EXPECT_EQ(spec->linux_spec->rootfs_propagation, p);
  }
}

TEST(LinuxPathsTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"maskedPaths": ["/proc/kcore", null]})"),
            "linux.maskedPaths[1]: expected string, got null");
  EXPECT_EQ(ErrorWith(R"("linux": {"readonlyPaths": "/proc/sys"})"),
            R"(linux.readonlyPaths: expected array, got string "/proc/sys")");
  EXPECT_EQ(ErrorWith(R"("linux": {"mountLabel": []})"),
            "linux.mountLabel: expected string, got array");
  EXPECT_EQ(ErrorWith(R"("linux": {"rootfsPropagation": 1})"),
            "linux.rootfsPropagation: expected string, got number 1");
}

TEST(LinuxPathsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"x-vendor": 1, "mountLabel": "l"})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec, Linux{.mount_label = "l"});
}

TEST(LinuxPathsTest, RoundTrips) { ExpectParsesAndRoundTrips(kLinuxPaths); }

// ---- linux.intelRdt ---------------------------------------------------------

constexpr std::string_view kIntelRdt = R"("linux": {"intelRdt": {
  "closID": "guaranteed", "l3CacheSchema": "L3:0=7f0;1=1f", "memBwSchema": "MB:0=20;1=70",
  "enableCMT": true, "enableMBM": true, "x-vendor": 1
}})";

TEST(IntelRdtTest, ParsesEveryMember) {
  auto spec = ParseWith(kIntelRdt);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->intel_rdt, (IntelRdt{.clos_id = "guaranteed",
                                                   .l3_cache_schema = "L3:0=7f0;1=1f",
                                                   .mem_bw_schema = "MB:0=20;1=70",
                                                   .enable_cmt = true,
                                                   .enable_mbm = true}));
}

TEST(IntelRdtTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"intelRdt": {"enableCMT": "true"}})"),
            R"(linux.intelRdt.enableCMT: expected boolean, got string "true")");
}

TEST(IntelRdtTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"intelRdt": {"closID": "c", "x-schema": 1}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->intel_rdt, IntelRdt{.clos_id = "c"});
}

TEST(IntelRdtTest, RoundTrips) {
  ExpectParsesAndRoundTrips(kIntelRdt);
  ExpectParsesAndRoundTrips(R"("linux": {"intelRdt": {}})");
}

// ---- linux.personality ------------------------------------------------------

constexpr std::string_view kPersonality =
    R"("linux": {"personality": {"domain": "LINUX32", "flags": ["ADDR_NO_RANDOMIZE"], "x-v": 1}})";

TEST(PersonalityTest, ParsesDomainAndFlags) {
  auto spec = ParseWith(kPersonality);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->personality,
            (Personality{.domain = "LINUX32", .flags = {"ADDR_NO_RANDOMIZE"}}));
}

TEST(PersonalityTest, ErrorNamesThePath) {
  EXPECT_EQ(ErrorWith(R"("linux": {"personality": {"flags": []}})"),
            "linux.personality.domain: required property is missing");
  EXPECT_EQ(ErrorWith(R"("linux": {"personality": {"domain": "LINUX", "flags": "x"}})"),
            R"(linux.personality.flags: expected array, got string "x")");
}

TEST(PersonalityTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"personality": {"domain": "LINUX", "x-flags": 3}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->personality, Personality{.domain = "LINUX"});
}

TEST(PersonalityTest, RoundTrips) { ExpectParsesAndRoundTrips(kPersonality); }

// ---- linux.timeOffsets ------------------------------------------------------

constexpr std::string_view kTimeOffsets = R"("linux": {"timeOffsets": {
  "monotonic": {"secs": -3600, "nanosecs": 0, "x-vendor": 1},
  "boottime": {"secs": 86400, "nanosecs": 999999999}
}})";

TEST(TimeOffsetsTest, ParsesEachClock) {
  auto spec = ParseWith(kTimeOffsets);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->time_offsets,
            (std::map<std::string, TimeOffset>{
                {"monotonic", {.secs = -3600, .nanosecs = 0}},
                {"boottime", {.secs = 86400, .nanosecs = 999999999}},
            }));
}

TEST(TimeOffsetsTest, ErrorNamesTheClock) {
  EXPECT_EQ(
      ErrorWith(R"("linux": {"timeOffsets": {"monotonic": {"nanosecs": -1}}})"),
      "linux.timeOffsets.monotonic.nanosecs: expected unsigned 32-bit integer, got number -1");
  EXPECT_EQ(ErrorWith(R"("linux": {"timeOffsets": {"boottime": {"secs": "1"}}})"),
            R"(linux.timeOffsets.boottime.secs: expected integer, got string "1")");
}

TEST(TimeOffsetsTest, IgnoresUnknownKeys) {
  auto spec = ParseWith(R"("linux": {"timeOffsets": {"boottime": {"secs": 1, "x-v": "a"}}})");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->linux_spec->time_offsets.at("boottime"), TimeOffset{.secs = 1});
}

TEST(TimeOffsetsTest, RoundTrips) { ExpectParsesAndRoundTrips(kTimeOffsets); }

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
