// The sentry in real containers (vigil only: runc has no sentry): mediated
// syscalls answered from the sandbox, denied ones refused, exec'd processes
// served too, and nothing left running when the supervisor dies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "base/unique_fd.h"

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// A listener on the host's 127.0.0.1 that counts the connections it gets.
class HostListener {
 public:
  HostListener() {
    fd_.Reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_in in{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    ::bind(fd_.Get(), reinterpret_cast<sockaddr*>(&in), sizeof in);
    ::listen(fd_.Get(), 8);
    socklen_t size = sizeof in;
    ::getsockname(fd_.Get(), reinterpret_cast<sockaddr*>(&in), &size);
    port_ = ntohs(in.sin_port);
  }
  std::uint16_t port() const { return port_; }
  int Accepted() {
    while (int conn = ::accept4(fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC)) {
      if (conn < 0) break;
      ::close(conn);
      ++accepted_;
    }
    return accepted_;
  }

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
  int accepted_ = 0;
};

class SentryTest : public RuntimeTest {
 protected:
  void ExpectHostLoopbackRefused(const std::string& policy_annotation);

  // Gives the container's process `capability` (bounding, effective and
  // permitted).
  static void Grant(BundleConfig& config, const std::string& capability) {
    for (auto* set : {&config.capabilities->bounding, &config.capabilities->effective,
                      &config.capabilities->permitted}) {
      set->push_back(capability);
    }
  }

  bool OnPtrace() const {
    const auto& flags = GetParam().flags;
    return std::find(flags.begin(), flags.end(), "--platform=ptrace") != flags.end();
  }

  // `run` of `config` with the audit log in the scratch directory: the
  // outcome, and the log's records.
  std::pair<Outcome, std::string> RunAudited(const BundleConfig& config) {
    WriteConfig(config);
    const std::string audit = scratch_ + "/audit.jsonl";
    Outcome run = Runtime({"--audit", audit, "run", "--bundle", bundle_, NewId()});
    return {run, ReadWholeFile(audit)};
  }
};

TEST_P(SentryTest, UnameReportsTheSandboxNamesAndTheConfiguredRelease) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.kernel-release": "5.15.0-sandbox"})";
  Outcome run = RunScript(config, "uname -r; uname -n");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "5.15.0-sandbox\nit-host\n");
}

// The names are read live from the container's UTS namespace.
TEST_P(SentryTest, UnameFollowsTheContainersOwnSethostname) {
  BundleConfig config;
  config.capabilities->bounding.push_back("CAP_SYS_ADMIN");
  config.capabilities->effective.push_back("CAP_SYS_ADMIN");
  config.capabilities->permitted.push_back("CAP_SYS_ADMIN");
  Outcome run = RunScript(config, "hostname renamed && uname -n");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "renamed\n");
}

TEST_P(SentryTest, SysinfoReportsTheMemoryLimit) {
  BundleConfig config;
  config.resources_json = R"({"memory": {"limit": 100663296}})";
  // busybox free takes the total from sysinfo(2). (Its "used" column
  // subtracts the page cache from /proc/meminfo: the host's unless files
  // are mediated, see below.)
  Outcome run = RunScript(config, "free -b");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, ContainsRegex("Mem: +100663296"));
}

// With files mediated, /proc/meminfo, cpuinfo and stat show the container's
// memory and CPUs rather than the host's.
TEST_P(SentryTest, ProcShowsTheContainersMemoryAndCpus) {
  BundleConfig config;
  config.resources_json =
      R"({"memory": {"limit": 100663296}, "cpu": {"quota": 100000, "period": 100000}})";
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\"}}"})";
  Outcome run = RunScript(config,
                          "grep MemTotal /proc/meminfo; grep -c ^processor /proc/cpuinfo; "
                          "grep -c ^cpu /proc/stat");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, ContainsRegex("MemTotal: +98304 kB\n1\n2\n"));
}

TEST_P(SentryTest, DeniedSyscallsFailInsteadOfReachingTheKernel) {
  BundleConfig config;
  // Even with the capability, unshare is the sentry's to refuse.
  config.capabilities->bounding.push_back("CAP_SYS_ADMIN");
  config.capabilities->effective.push_back("CAP_SYS_ADMIN");
  config.capabilities->permitted.push_back("CAP_SYS_ADMIN");
  Outcome run = RunScript(config, "unshare -m true; echo status=$?");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("Operation not permitted"));
}

TEST_P(SentryTest, ExecdProcessesAreServedToo) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  config.annotations_json = R"({"dev.vigil.kernel-release": "4.4.0-exec"})";
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  Outcome exec = Runtime({"exec", id, "uname", "-r"});
  EXPECT_TRUE(exec.ok()) << exec;
  EXPECT_EQ(exec.out, "4.4.0-exec\n");
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

// Fail closed: when the supervisor is killed, the workload goes with it and
// the container reads as stopped; delete cleans up everything.
TEST_P(SentryTest, KillingTheSupervisorKillsTheWorkload) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  const pid_t supervisor = PidFromFile(id);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  EXPECT_TRUE(WaitForStatus(id, "stopped"));
  EXPECT_TRUE(Eventually([&] { return Leftovers().empty(); })) << "a workload process survived";
  Outcome deleted = Runtime({"delete", "--force", id});
  EXPECT_TRUE(deleted.ok()) << deleted;
  ExpectNothingLeftOf(id);
}

// Each mediated syscall leaves one record, which `vigil audit` prints.
// Once the container runs, the supervisor serves under its own seccomp
// filter (shim/self_confinement.h), and still serves: exec works.
TEST_P(SentryTest, TheRunningSupervisorIsConfined) {
  BundleConfig config;
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  const pid_t supervisor = PidFromFile(id);
  ASSERT_GT(supervisor, 0);
  const std::string status = ReadWholeFile(StrCat("/proc/", supervisor, "/status"));
  EXPECT_THAT(status, HasSubstr("Seccomp:\t2\n"));
  EXPECT_THAT(status, HasSubstr("Seccomp_filters:\t1\n"));
  Outcome exec = Runtime({"exec", id, "uname", "-n"});
  EXPECT_TRUE(exec.ok()) << exec;
  Outcome deleted = Runtime({"delete", "--force", id});
  EXPECT_TRUE(deleted.ok()) << deleted;
  ExpectNothingLeftOf(id);
}

// audit-only denies nothing and records every file and network call.
TEST_P(SentryTest, AuditOnlyRecordsFilesAndConnectionsAndDeniesNothing) {
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  BundleConfig config;
  config.readonly_root = false;
  config.annotations_json = R"({"dev.vigil.policy": "audit-only"})";
  config.args = {"sh", "-c",
                 "cat /etc/motd; mkdir /made && rmdir /made && echo made; "
                 "nc -w 1 127.0.0.1 9 </dev/null 2>/dev/null; echo done"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\nmade\ndone\n");
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/etc/motd"},"decision":"allow")"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"mkdir")"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"connect")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("decision":"deny")")));
}

TEST_P(SentryTest, AuditLogRecordsEachMediatedDecision) {
  BundleConfig config;
  config.args = {"sh", "-c", "uname -r >/dev/null; uname -n >/dev/null; sleep 1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  // Two from the script's unames (busybox's sleep may add its own).
  Outcome json;
  EXPECT_TRUE(Eventually([&] {
    json = Runtime({"audit", "--format", "json", id});
    return json.ok() && std::count(json.out.begin(), json.out.end(), '\n') >= 2;
  })) << json;
  EXPECT_THAT(json.out, HasSubstr(R"("syscall":"uname")"));
  EXPECT_THAT(json.out, HasSubstr(R"("decision":"emulate")"));
  EXPECT_THAT(json.out, HasSubstr(StrCat(R"("id":")", id, R"(")")));
  EXPECT_THAT(json.out, HasSubstr(R"("exe":"/bin/busybox")"));
  Outcome summary = Runtime({"audit", "--summary", id});
  ASSERT_TRUE(summary.ok()) << summary;
  EXPECT_THAT(summary.out, ContainsRegex("[0-9]+ +uname +emulate"));
  Outcome denied = Runtime({"audit", "--denied", id});
  ASSERT_TRUE(denied.ok()) << denied;
  EXPECT_EQ(denied.out, "");
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

TEST_P(SentryTest, PolicyCanTurnAuditingOff) {
  BundleConfig config;
  config.args = {"sh", "-c", "uname -r"};
  config.annotations_json = R"({"dev.vigil.policy": "{\"audit\": \"off\"}"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  ASSERT_TRUE(created.ok()) << created;
  ASSERT_TRUE(Runtime({"start", id}).ok());
  EXPECT_TRUE(WaitForStatus(id, "stopped"));
  Outcome audit = Runtime({"audit", id});
  ASSERT_TRUE(audit.ok()) << audit;
  EXPECT_EQ(audit.out, "");
  EXPECT_TRUE(Runtime({"delete", id}).ok());
}

TEST_P(SentryTest, BadPolicyAnnotationIsRefusedLeavingNothing) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"maybe\"}}"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  EXPECT_FALSE(created.ok());
  EXPECT_THAT(created.err, HasSubstr("dev.vigil.policy"));
  EXPECT_THAT(created.err, HasSubstr("policy.files.default"));
  ExpectFailedCreateLeftNothing(id);
}

// The annotation comes with the container: it cannot point the runtime at
// an arbitrary host file.
TEST_P(SentryTest, AuditAnnotationCannotNameAnyHostFile) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.audit": "/etc/cron.d/audit"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created = Create(id);
  EXPECT_FALSE(created.ok());
  EXPECT_THAT(created.err, HasSubstr("dev.vigil.audit"));
  EXPECT_FALSE(std::filesystem::exists("/etc/cron.d/audit"));
  ExpectFailedCreateLeftNothing(id);
}

// DESIGN.md's test of the egress policy: a container on the host's network
// under `policy_annotation` tries the host's loopback, is refused with the
// policy's errno, and the refusal is audited.
void SentryTest::ExpectHostLoopbackRefused(const std::string& policy_annotation) {
  HostListener host;
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};  // the host's network
  config.annotations_json = policy_annotation;
  config.args = {"sh", "-c", StrCat("echo hi | nc -w 2 127.0.0.1 ", host.port(), "; echo status=$?")};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("Network is unreachable"));
  EXPECT_EQ(host.Accepted(), 0);
  EXPECT_THAT(records, ContainsRegex(StrCat(R"("syscall":"connect","args":\{"address":"127\.0\.0\.1:)",
                                            host.port(), R"("\},"decision":"deny","errno":"ENETUNREACH")")));
}

TEST_P(SentryTest, AgentPolicyDeniesEgressToTheHostsLoopbackAndAuditsIt) {
  ExpectHostLoopbackRefused(R"({"dev.vigil.policy": "agent"})");
}

// Egress alone (no file rules) is enforced on either platform: the
// connect is decided on the copied address.
TEST_P(SentryTest, EgressPolicyDeniesTheHostsLoopbackAndAuditsIt) {
  ExpectHostLoopbackRefused(R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\"}}"})");
}

// --policy is the operator's: a bundle's annotation may repeat it, not
// replace it (a pod must not pick audit-only where the RuntimeClass said
// agent). Refused at create with one line, nothing left behind.
TEST_P(SentryTest, AnAnnotationCannotReplaceThePolicyFlag) {
  BundleConfig config;
  config.args = {"/bin/sh", "-c", "echo ran"};
  config.annotations_json = R"({"dev.vigil.policy": "audit-only"})";
  WriteConfig(config);
  const std::string id = NewId();
  Outcome created =
      Runtime({"--policy", "agent", "create", "--bundle", bundle_, "--pid-file", PidFile(id), id});
  EXPECT_NE(created.status, 0) << created;
  EXPECT_TRUE(IsOneLine(created.err)) << created.err;
  EXPECT_THAT(created.err, HasSubstr("annotation dev.vigil.policy: asks for policy \"audit-only\", "
                                     "but --policy chose \"agent\""));
  ExpectFailedCreateLeftNothing(id);

  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  WriteConfig(config);
  Outcome repeated = Runtime({"--policy", "agent", "run", "--bundle", bundle_, NewId()});
  EXPECT_TRUE(repeated.ok()) << repeated;
  EXPECT_EQ(repeated.out, "ran\n");
}

// A bind is decided like a destination: with no allow entry, not even the
// wildcard address may be bound (EACCES, the address is "protected"), and
// the refusal is audited. busybox httpd binds the IPv4 address it is given.
TEST_P(SentryTest, EgressPolicyRefusesBindingTheWildcardAndAuditsIt) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "{\"network\": {\"egress\": \"deny\"}}"})";
  // Bound, it would serve until killed (status=137).
  config.args = {"sh", "-c", "timeout -s KILL 3 httpd -f -p 0.0.0.0:9000; echo status=$?"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr("status=1"));
  EXPECT_THAT(run.err, HasSubstr("bind: Permission denied"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"bind","args":{"address":"0.0.0.0:9000"},)"
                                 R"("decision":"deny","errno":"EACCES")"));
}

TEST_P(SentryTest, DefaultPolicyLetsConnectsThrough) {
  HostListener host;
  BundleConfig config;
  config.namespaces = {"pid", "ipc", "uts", "mount"};
  // The listener never answers: nc is stopped once it has connected.
  config.args = {"sh", "-c", StrCat("timeout -s KILL 2 nc 127.0.0.1 ", host.port(), "; true")};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_TRUE(Eventually([&] { return host.Accepted() == 1; }));
}

// With its own network namespace the container's loopback is its own, and
// the agent profile leaves it alone: a server bound to 127.0.0.1 is
// reached. The wildcard address is not loopback (the namespace may have
// other interfaces) and cannot be bound.
TEST_P(SentryTest, AgentPolicyKeepsTheContainersOwnLoopback) {
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.readonly_root = false;
  Grant(config, "CAP_NET_ADMIN");  // to bring lo up
  Outcome run = RunScript(config,
                          "ip link set lo up && mkdir /tmp/www && echo hello > /tmp/www/index.html "
                          "|| exit 1; "
                          "nc -l -p 9001 2>&1; "  // busybox nc listens on ::
                          "httpd -f -p 127.0.0.1:9000 -h /tmp/www & "
                          "for i in 1 2 3 4 5 6 7 8 9 10; do "
                          "wget -q -O - http://127.0.0.1:9000/index.html 2>/dev/null && break; "
                          "sleep 0.3; done; kill $!");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "nc: bind: Permission denied\nhello\n");
}

// NETLINK_ROUTE is read-only whatever the container holds: a dump works,
// changes are refused. busybox ip sends to an explicit address (which the
// kernel checks against the sender alone): the sentry sends without it, so
// the socket's opener (the sentry, without CAP_NET_ADMIN) counts. Without
// the sentry, CAP_NET_ADMIN would add the address and the route. (busybox
// `ip link set` uses the legacy ioctls, which are not mediated.)
TEST_P(SentryTest, NetlinkRouteIsReadOnlyEvenWithCapNetAdmin) {
  BundleConfig config;
  Grant(config, "CAP_NET_ADMIN");
  Outcome run = RunScript(config,
                          "ip -o link show lo | grep -c 'lo:'; "
                          "ip addr add 10.9.9.9/32 dev lo 2>&1; "
                          "ip route add 192.0.2.0/24 dev lo 2>&1; "
                          "ip -o addr show lo | grep -c 10.9.9.9; true");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out,
            "1\nip: RTNETLINK answers: Operation not permitted\n"
            "ip: RTNETLINK answers: Operation not permitted\n0\n")
      << run;
}

// The agent profile's container: root read-only, /tmp and the working
// directory writable but not executable, setuid without effect.
TEST_P(SentryTest, AgentProfileConfinesWritesAndExecution) {
  std::filesystem::create_directories(bundle_ + "/rootfs/work");
  BundleConfig config;
  config.readonly_root = false;  // the profile makes it read-only
  config.no_new_privileges = false;  // and sets no_new_privs
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  Outcome run = RunScript(config,
                          "touch /etc/x 2>/dev/null && echo root=writable || echo root=read-only; "
                          "touch /tmp/x && echo tmp=writable; touch ./x && echo cwd=writable; "
                          "cp /bin/busybox /tmp/bb && (/tmp/bb true 2>/dev/null && echo tmp=exec || "
                          "echo tmp=noexec); grep NoNewPrivs /proc/self/status");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out,
            "root=read-only\ntmp=writable\ncwd=writable\ntmp=noexec\nNoNewPrivs:\t1\n");
}

// The policy exec reads back from the record: with a working directory the
// agent profile gains a write rule for it, and the profile so edited no
// longer parsed under the name "agent", so exec failed.
TEST_P(SentryTest, ExecWorksInAnAgentContainerWithAWorkingDirectory) {
  std::filesystem::create_directories(bundle_ + "/rootfs/work");
  BundleConfig config;
  config.args = {"sleep", "1000"};
  config.readonly_root = false;
  config.no_new_privileges = false;
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  Outcome exec = Runtime({"exec", id, "sh", "-c", "touch ./x && echo cwd=writable"});
  EXPECT_TRUE(exec.ok()) << exec;
  EXPECT_EQ(exec.out, "cwd=writable\n");
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

// A file policy: decided on the file a path resolves to, inside the
// container, and audited.
TEST_P(SentryTest, FilePolicyHidesDeniesAndKeepsReadOnly) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  BundleConfig config;
  config.readonly_root = false;
  config.extra_mounts_json = {R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"})"};
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [)"
                            R"({\"path\": \"/etc/secret\", \"access\": \"hidden\"}, )"
                            R"({\"path\": \"/tmp/**\", \"access\": \"write\"}, )"
                            R"({\"path\": \"/dev/**\", \"access\": \"write\"}]}}"})";
  config.args = {"sh", "-c",
                 "cat /etc/motd; cat /etc/secret || echo hidden; stat /etc/secret >/dev/null 2>&1 || "
                 "echo stat-hidden; ln -s /etc/secret /tmp/l; "
                 "cat /tmp/l || echo hidden-via-link; { echo x > /etc/motd; } 2>/dev/null || "
                 "echo read-only; echo t > /tmp/t && cat /tmp/t; head -1 /proc/self/status; "
                 "echo z > /dev/null && echo devnull; ls /etc | grep -q secret || echo unlisted"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\nhidden\nstat-hidden\nhidden-via-link\nread-only\nt\nName:\thead\n"
                     "devnull\nunlisted\n");
  EXPECT_THAT(records, HasSubstr(R"("path":"/tmp/l","flags":"00","resolved":"/etc/secret"},"decision":"deny","errno":"ENOENT")"));
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/etc/motd"},"decision":"deny","errno":"EACCES")"));
}

// The policy names files from the container's root, not from the root a
// process chrooted to: inside chroot /etc, "/secret" and "secret" are still
// /etc/secret (a chroot into /etc once turned them into "/secret", which no
// rule named), and the files it may read read as usual, by absolute and
// relative paths alike.
TEST_P(SentryTest, FilePolicyHoldsInsideAChroot) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  std::filesystem::copy_file(bundle_ + "/rootfs/bin/busybox", bundle_ + "/rootfs/etc/busybox");
  BundleConfig config;
  Grant(config, "CAP_SYS_CHROOT");
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [)"
                            R"({\"path\": \"/etc/secret\", \"access\": \"hidden\"}, )"
                            R"({\"path\": \"/dev/**\", \"access\": \"write\"}]}}"})";
  config.args = {"sh", "-c",
                 "chroot /etc /busybox cat /motd; chroot /etc /busybox cat motd; "
                 "chroot /etc /busybox cat /secret 2>/dev/null || "
                 "echo hidden; chroot /etc /busybox cat secret 2>/dev/null || echo hidden-relative; "
                 "chroot /etc /busybox stat /secret >/dev/null 2>&1 || echo stat-hidden"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\nhello\nhidden\nhidden-relative\nstat-hidden\n");
  EXPECT_THAT(records, HasSubstr(R"("path":"/secret","flags":"00","resolved":"/etc/secret"},"decision":"deny","errno":"ENOENT")"));
}

// A container user other than root: the sentry opens, stats and creates
// as that user (a root-only file stays unreadable, a new one is the
// user's), and reads the process's descriptors and working directory,
// which the user's own credentials are not enough for, as itself.
TEST_P(SentryTest, AnotherUserIsServedWithItsOwnCredentials) {
  std::filesystem::create_directories(bundle_ + "/rootfs/work");
  ASSERT_EQ(::chown((bundle_ + "/rootfs/work").c_str(), 1000, 1000), 0);
  std::ofstream(bundle_ + "/rootfs/work/notes") << "mine\n";
  std::ofstream(bundle_ + "/rootfs/etc/root-only") << "s3cret\n";
  ASSERT_EQ(::chmod((bundle_ + "/rootfs/etc/root-only").c_str(), 0600), 0);
  BundleConfig config;
  config.uid = 1000;
  config.gid = 1000;
  config.readonly_root = false;
  config.no_new_privileges = false;
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  Outcome run = RunScript(config,
                          "cat notes; cat /work/notes; cat /etc/root-only 2>/dev/null || echo "
                          "refused; echo t > /tmp/t && stat -c %u:%g /tmp/t; ls; "
                          "wc -c < notes; id -u");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "mine\nmine\nrefused\n1000:1000\nnotes\n5\n1000\n");
}

// Renaming, linking or deleting a file the policy hides or keeps read-only
// is refused like opening it; within writable places all of it works.
TEST_P(SentryTest, FilePolicyCannotBeSidesteppedByRenameOrLink) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  BundleConfig config;
  config.readonly_root = false;
  config.extra_mounts_json = {R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"})"};
  config.annotations_json = R"({"dev.vigil.policy": "{\"files\": {\"default\": \"write\", \"rules\": [)"
                            R"({\"path\": \"/etc/secret\", \"access\": \"hidden\"}, )"
                            R"({\"path\": \"/bin/**\", \"access\": \"read\"}]}}"})";
  config.args = {"sh", "-c",
                 "mv /etc/secret /tmp/s 2>/dev/null || echo no-mv; "
                 "ln /etc/secret /tmp/h 2>/dev/null || echo no-ln; "
                 "rm /etc/secret 2>/dev/null || echo no-rm; "
                 "mv /etc /tmp/etc 2>/dev/null; cat /tmp/etc/secret 2>/dev/null || echo no-dir-mv; "
                 "rm /bin/ls 2>/dev/null || echo no-rm-ro; "
                 "mkdir /tmp/d && touch /tmp/d/f && mv /tmp/d /tmp/e && ln /tmp/e/f /tmp/g && "
                 "rm /tmp/e/f && ls /tmp/e /tmp/g"};
  WriteConfig(config);
  Outcome run = Runtime({"run", "--bundle", bundle_, NewId()});
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "no-mv\nno-ln\nno-rm\nno-dir-mv\nno-rm-ro\n/tmp/g\n\n/tmp/e:\n");
}

// exec.allow and exec.fromWritable are checked on the file a path resolves
// to: busybox under /bin runs (its applets are links to it), a copy
// elsewhere does not, nor anything written to a writable mount.
TEST_P(SentryTest, ExecPolicyIsCheckedOnTheResolvedFile) {
  std::filesystem::create_directories(bundle_ + "/rootfs/opt");
  std::filesystem::copy_file(bundle_ + "/rootfs/bin/busybox", bundle_ + "/rootfs/opt/bb");
  BundleConfig config;
  config.extra_mounts_json = {R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"})"};
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"exec\": {\"allow\": [\"/bin/*\", \"/tmp/*\"], \"fromWritable\": false}}"})";
  config.args = {"sh", "-c",
                 "/bin/echo listed; /opt/bb echo unlisted 2>/dev/null || echo not-listed; "
                 "cp /bin/busybox /tmp/bb; /tmp/bb echo written 2>/dev/null || echo not-written"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "listed\nnot-listed\nnot-written\n");
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/opt/bb"},"decision":"deny","errno":"EACCES")"));
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/tmp/bb"},"decision":"deny","errno":"EACCES")"));
}

// Each exec is verified once done (the thread is ptrace-seized, its mapped
// image compared at PTRACE_EVENT_EXEC): a script maps its interpreter,
// which is what the check approves, and the program runs untraced.
TEST_P(SentryTest, VerifiedExecsRunScriptsAndLeaveNothingTraced) {
  std::filesystem::create_directories(bundle_ + "/rootfs/opt");
  {
    std::ofstream script(bundle_ + "/rootfs/opt/hello");
    script << "#!/bin/sh\necho script-ran\ngrep TracerPid /proc/self/status\n";
  }
  std::filesystem::permissions(bundle_ + "/rootfs/opt/hello", std::filesystem::perms(0755));
  BundleConfig config;
  config.annotations_json = R"({"dev.vigil.policy": "{\"exec\": {\"allow\": [\"/bin/*\", \"/opt/*\"]}}"})";
  config.args = {"sh", "-c", "/opt/hello; /bin/true && echo true-ran"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "script-ran\nTracerPid:\t0\ntrue-ran\n");
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/opt/hello"},"decision":"allow")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("decision":"kill")")));
}

// An agent's typical job: Python from the host's /usr (bound read-only),
// every open mediated by the file policy: imports work, the working
// directory is writable, the rest of the root is not.
TEST_P(SentryTest, AgentProfileRunsPythonFromTheHostsUsr) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs the host's python3";
  for (const char* dir : {"usr", "lib", "lib64", "work"}) {
    std::filesystem::create_directories(bundle_ + "/rootfs/" + dir);
  }
  BundleConfig config;
  config.readonly_root = false;
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  for (const char* dir : {"/usr", "/lib", "/lib64"}) {
    config.extra_mounts_json.push_back(StrCat(R"({"destination": ")", dir,
                                              R"(", "type": "bind", "source": ")", dir,
                                              R"(", "options": ["rbind", "ro"]})"));
  }
  config.args = {"/usr/bin/python3", "-c",
                 "import json, csv, email, decimal, statistics\n"
                 "open('out.txt', 'w').write('written')\n"
                 "print(open('out.txt').read())\n"
                 "try:\n  open('/etc/x', 'w')\nexcept PermissionError:\n  print('refused')\n"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "written\nrefused\n");
}

INSTANTIATE_TEST_SUITE_P(Runtimes, SentryTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY},
                                           RuntimeUnderTest{"vigil_ptrace", VIGIL_BINARY,
                                                            {"--platform=ptrace"}}),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
