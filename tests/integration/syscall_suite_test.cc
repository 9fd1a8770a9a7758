// The same program, natively and sandboxed: tests/integration/syscall_suite
// runs one case per mediated syscall form in a busybox container under runc
// (the reference: the same container with no sentry) and under vigil, with
// the `audit-only` policy (every file and network call mediated) and with
// `default`. Each case prints one line; the lines must be identical, except
// for the few listed in kKnownDifferences, where vigil deliberately answers
// otherwise and must give exactly its documented answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

constexpr char kRunc[] = "/usr/sbin/runc";
// A run of the whole suite: a few hundred cases, mostly mediated.
constexpr std::chrono::seconds kSuiteTimeout{120};

// A case whose answer under vigil differs from the kernel's on purpose.
struct KnownDifference {
  std::string_view name;      // the case
  std::string_view policies;  // the policies it applies to, e.g. "audit-only"
  std::string_view native;    // what runc's container sees
  std::string_view vigil;     // what vigil answers instead
  std::string_view reason;
};

// Under a policy that refuses no address, a thread that cannot hold
// CAP_NET_ADMIN has its sends made by the kernel; the suite's container
// may hold it, so the sentry sends for it (docs/policy.md).
constexpr std::string_view kDescriptorPassingPid =
    "a message passing descriptors that the sentry sends names the supervisor's pid, 0 in the "
    "container: the kernel takes another only with CAP_SYS_ADMIN, which would also lift its "
    "limit on descriptors in flight";

// The policies under which the sentry binds and sends itself: those that
// refuse some address, and (for sends) any, for a container that may hold
// CAP_NET_ADMIN.
constexpr std::string_view kSentryBinds = "egress-loopback,egress";
constexpr std::string_view kSentrySends =
    "audit-only,default,egress-loopback,egress,ptrace-audit-only";

// Each entry is checked both ways: vigil must give its answer, and the
// native run the kernel's, so an entry that no longer differs fails too.
constexpr KnownDifference kKnownDifferences[] = {
    // bind of a unix path under a policy that refuses some address: the
    // sentry binds to /proc/self/fd/N/NAME, the directory it resolved
    // (docs/policy.md).
    {"bind-unix-getsockname", kSentryBinds, "0 as given", "0 other",
     "the kernel keeps the address it was given: the sentry's /proc/self/fd/N/NAME"},
    {"bind-unix-name-too-long-for-the-sentry", kSentryBinds,
     "0 mode=0140755 nlink=1 uid=0 gid=0 size=0 rdev=0:0", "-1 ENAMETOOLONG -1 ENOENT",
     "a 95-byte name fits sun_path, but not with /proc/self/fd/N/ before it"},
    // A trade docs/policy.md gives the reason for: the sentry vouches for
    // the sender's pid only in a message that passes no descriptor.
    {"scm-credentials-and-rights", kSentrySends, "1 got 1 creds=sender uid=0 gid=0 rights=1:hello",
     "1 got 1 creds=pid-0 uid=0 gid=0 rights=1:hello", kDescriptorPassingPid},
    {"scm-rights-dgram", kSentrySends, "1 got 1 creds=sender uid=0 gid=0 rights=1:hello",
     "1 got 1 creds=pid-0 uid=0 gid=0 rights=1:hello", kDescriptorPassingPid},
    {"scm-rights-one", kSentrySends, "1 got 1 creds=sender uid=0 gid=0 rights=1:hello",
     "1 got 1 creds=pid-0 uid=0 gid=0 rights=1:hello", kDescriptorPassingPid},
    {"scm-rights-receiver-short-buffer", kSentrySends,
     "1 got 1 creds=sender uid=0 gid=0 MSG_CTRUNC", "1 got 1 creds=pid-0 uid=0 gid=0 MSG_CTRUNC",
     kDescriptorPassingPid},
    {"scm-rights-three", kSentrySends, "1 got 1 creds=sender uid=0 gid=0 rights=3:hello:i:s",
     "1 got 1 creds=pid-0 uid=0 gid=0 rights=3:hello:i:s", kDescriptorPassingPid},
    {"scm-two-rights-messages", kSentrySends, "1 got 1 creds=sender uid=0 gid=0 rights=2:hello:i",
     "1 got 1 creds=pid-0 uid=0 gid=0 rights=2:hello:i", kDescriptorPassingPid},
};

// The suite's output as (name, result) pairs in the order printed.
std::vector<std::pair<std::string, std::string>> ParseLines(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::size_t colon = line.find(": ");
    if (colon == std::string::npos) {
      lines.emplace_back(line, "(not a case line)");
    } else {
      lines.emplace_back(line.substr(0, colon), line.substr(colon + 2));
    }
  }
  return lines;
}

bool AppliesTo(const KnownDifference& known, std::string_view policy) {
  std::string_view list = known.policies;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    if (list.substr(0, comma) == policy) return true;
    list = comma == std::string_view::npos ? "" : list.substr(comma + 1);
  }
  return false;
}

class SentrySyscallSuiteTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped()) return;
    if (::access(kRunc, X_OK) != 0) GTEST_SKIP() << "the native reference needs runc at " << kRunc;
    std::filesystem::copy_file(VIGIL_SYSCALL_SUITE, bundle_ + "/rootfs/suite");
  }

  // The container every run uses: Docker's default capabilities (root that
  // can chown, override permissions and make device nodes, so the cases see
  // both root's and, after setresuid, a user's view), a read-only root, and
  // a tmpfs on /tmp where the cases work.
  BundleConfig SuiteConfig(const std::string& policy) const {
    BundleConfig config;
    config.args = {"/suite"};
    std::vector<std::string> caps = {
        "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
        "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
        "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
        "CAP_KILL",    "CAP_AUDIT_WRITE"};
    // So that connect, sendto, sendmsg and bind are mediated under
    // `default` too, and made by the sentry (a process that may hold it
    // could reconfigure the network namespace): the network cases meet
    // the sentry's own sends.
    if (may_hold_network_admin_) caps.push_back("CAP_NET_ADMIN");
    config.capabilities = Capabilities{.bounding = caps, .effective = caps, .permitted = caps};
    config.readonly_root = true;
    config.extra_mounts_json.push_back(
        R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
            "options": ["nosuid", "nodev", "mode=1777", "size=65536k"]})");
    if (!policy.empty()) {
      config.annotations_json = StrCat(R"({"dev.vigil.policy": ")", policy, R"("})");
    }
    return config;
  }

  // Runs the suite under `binary` (with global `flags`) with its own
  // --root; the outcome.
  Outcome RunSuite(const std::string& binary, const std::string& policy,
                   const std::string& audit = "", const std::vector<std::string>& flags = {}) {
    WriteConfig(SuiteConfig(policy));
    const bool native = binary == kRunc;
    std::vector<std::string> argv = {binary, "--root", native ? dir_ + "/runc-root" : root_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    if (!audit.empty()) argv.insert(argv.end(), {"--audit", audit});
    const std::string id = native ? "it-" + unique_ + "-native" : NewId();
    argv.insert(argv.end(), {"run", "--bundle", bundle_, id});
    const std::string base = scratch_ + "/" + id;
    Outcome run = Child::Spawn(argv, base + ".out", base + ".err").Wait(kSuiteTimeout);
    if (native) {
      Child::Spawn({binary, "--root", dir_ + "/runc-root", "delete", "--force", id},
                   base + ".delete.out", base + ".delete.err")
          .Wait();
    }
    return run;
  }

  // Off: Docker's default capabilities exactly, as most containers run.
  bool may_hold_network_admin_ = true;

  // Compares vigil's lines under `policy` with the native ones: equal,
  // except the known differences for that policy, which must match both
  // answers they document.
  void ExpectSameAsNative(const std::string& native_out, const std::string& vigil_out,
                          const std::string& policy) {
    auto native = ParseLines(native_out);
    auto sandboxed = ParseLines(vigil_out);
    std::map<std::string, std::string> sandboxed_by_name(sandboxed.begin(), sandboxed.end());
    std::set<std::string> native_names;
    std::string differing;
    int compared = 0;
    for (const auto& [name, expected] : native) {
      native_names.insert(name);
      auto found = sandboxed_by_name.find(name);
      const std::string got = found == sandboxed_by_name.end() ? "(missing)" : found->second;
      const KnownDifference* known = nullptr;
      for (const KnownDifference& k : kKnownDifferences) {
        if (k.name == name && AppliesTo(k, policy)) known = &k;
      }
      if (known != nullptr) {
        EXPECT_EQ(expected, known->native) << name << ": the kernel's answer has changed";
        EXPECT_EQ(got, known->vigil) << name << " under " << policy << ": " << known->reason;
        continue;
      }
      ++compared;
      if (got != expected)
        differing += StrCat("\n  ", name, ":\n    runc:  ", expected, "\n    vigil: ", got);
    }
    // Every known difference for this policy was checked: a case that was
    // renamed or dropped must take its entry with it.
    for (const KnownDifference& k : kKnownDifferences) {
      if (AppliesTo(k, policy) && !native_names.count(std::string(k.name))) {
        ADD_FAILURE() << "known difference " << k.name << " names no case the suite ran";
      }
    }
    for (const auto& [name, result] : sandboxed) {
      if (!native_names.count(name))
        differing += StrCat("\n  ", name, ": only under vigil: ", result);
    }
    if (!differing.empty()) {
      ADD_FAILURE() << "cases that differ under vigil with " << policy << ":" << differing;
    }
    EXPECT_GT(compared, 300) << "too few cases compared: the suite did not run to the end";
  }
};

TEST_P(SentrySyscallSuiteTest, SameResultsNativelyAndUnderEachPolicy) {
  Outcome native = RunSuite(kRunc, "");
  ASSERT_TRUE(native.ok()) << native;
  ASSERT_THAT(native.out, HasSubstr("\ncases: ")) << native;

  const std::string audit = scratch_ + "/audit-only.jsonl";
  Outcome observed = RunSuite(GetParam().binary, "audit-only", audit);
  ASSERT_TRUE(observed.ok()) << observed;
  ExpectSameAsNative(native.out, observed.out, "audit-only");

  Outcome plain = RunSuite(GetParam().binary, "default");
  ASSERT_TRUE(plain.ok()) << plain;
  ExpectSameAsNative(native.out, plain.out, "default");

  // An allow-list that holds the container's loopback: binds and connects
  // to it are decided by the list and answered as the kernel would.
  const std::string egress_audit = scratch_ + "/egress-loopback.jsonl";
  Outcome allowed =
      RunSuite(GetParam().binary,
               R"({\"network\": {\"egress\": \"deny\", \"allow\": [{\"cidr\": \"127.0.0.0/8\"}]}})",
               egress_audit);
  ASSERT_TRUE(allowed.ok()) << allowed;
  ExpectSameAsNative(native.out, allowed.out, "egress-loopback");
  EXPECT_THAT(
      ReadWholeFile(egress_audit),
      HasSubstr(R"("syscall":"bind","args":{"address":"127.0.0.1:47011"},"decision":"allow")"));

  // The sentry was involved: under audit-only every family the suite
  // exercises left records, so agreement is not the kernel answering alone.
  const std::string records = ReadWholeFile(audit);
  std::string unmediated;
  for (const char* syscall :
       {"open",      "openat",     "creat",      "stat",        "lstat",        "newfstatat",
        "statx",     "access",     "faccessat",  "faccessat2",  "readlink",     "readlinkat",
        "mkdir",     "mkdirat",    "mknod",      "mknodat",     "symlink",      "symlinkat",
        "unlink",    "unlinkat",   "rmdir",      "rename",      "renameat",     "renameat2",
        "link",      "linkat",     "chmod",      "fchmod",      "fchmodat",     "chown",
        "fchown",    "lchown",     "fchownat",   "truncate",    "utime",        "utimes",
        "futimesat", "utimensat",  "getxattr",   "lgetxattr",   "setxattr",     "lsetxattr",
        "fsetxattr", "listxattr",  "llistxattr", "removexattr", "lremovexattr", "fremovexattr",
        "getdents",  "getdents64", "uname",      "sysinfo",     "execve",       "connect",
        "sendto",    "sendmsg",    "openat2",    "bind"}) {
    if (records.find(StrCat(R"("syscall":")", syscall, R"(")")) == std::string::npos) {
      unmediated += StrCat(" ", syscall);
    }
  }
  EXPECT_EQ(unmediated, "") << "no audit record under audit-only for these";
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/tmp/suite/open/file")"));
}

// The other backend: on the ptrace platform the same program sees the
// same, under the default policy, under an egress policy that mediates its
// connects and sends, and under audit-only, where every file call is the
// sentry's and each opened file goes through the descriptor channel.
TEST_P(SentrySyscallSuiteTest, SameResultsNativelyAndOnThePtracePlatform) {
  Outcome native = RunSuite(kRunc, "");
  ASSERT_TRUE(native.ok()) << native;
  const std::vector<std::string> ptrace = {"--platform=ptrace"};
  Outcome plain = RunSuite(GetParam().binary, "default", "", ptrace);
  ASSERT_TRUE(plain.ok()) << plain;
  ExpectSameAsNative(native.out, plain.out, "default");

  // The container's own loopback stays reachable under "egress": "deny".
  const std::string audit = scratch_ + "/ptrace-egress.jsonl";
  Outcome egress =
      RunSuite(GetParam().binary, R"({\"network\": {\"egress\": \"deny\"}})", audit, ptrace);
  ASSERT_TRUE(egress.ok()) << egress;
  ExpectSameAsNative(native.out, egress.out, "egress");
  const std::string records = ReadWholeFile(audit);
  for (const char* syscall :
       {"uname", "sysinfo", "execve", "connect", "sendto", "sendmsg", "bind"}) {
    EXPECT_THAT(records, HasSubstr(StrCat(R"("syscall":")", syscall, R"(")")))
        << "no audit record on the ptrace platform for " << syscall;
  }

  const std::string files_audit = scratch_ + "/ptrace-audit-only.jsonl";
  Outcome observed = RunSuite(GetParam().binary, "audit-only", files_audit, ptrace);
  ASSERT_TRUE(observed.ok()) << observed;
  ExpectSameAsNative(native.out, observed.out, "ptrace-audit-only");
  EXPECT_THAT(ReadWholeFile(files_audit), HasSubstr(R"("resolved":"/tmp/suite/open/file")"));
}

// What most containers are (Docker's default capabilities, without
// CAP_NET_ADMIN) under audit-only: every call seen and audited, and the
// program cannot tell, on either platform; nor under default.
TEST_P(SentrySyscallSuiteTest, AuditOnlyIsTransparentWithDockersDefaultCapabilities) {
  may_hold_network_admin_ = false;
  Outcome native = RunSuite(kRunc, "");
  ASSERT_TRUE(native.ok()) << native;
  const std::string audit = scratch_ + "/audit-only-docker-caps.jsonl";
  Outcome observed = RunSuite(GetParam().binary, "audit-only", audit);
  ASSERT_TRUE(observed.ok()) << observed;
  ExpectSameAsNative(native.out, observed.out, "audit-only-docker-caps");
  Outcome plain = RunSuite(GetParam().binary, "default");
  ASSERT_TRUE(plain.ok()) << plain;
  ExpectSameAsNative(native.out, plain.out, "default-docker-caps");
  const std::string records = ReadWholeFile(audit);
  for (const char* syscall : {"connect", "sendto", "sendmsg", "bind", "mknod", "linkat"}) {
    EXPECT_THAT(records, HasSubstr(StrCat(R"("syscall":")", syscall, R"(")")))
        << "no audit record under audit-only for " << syscall;
  }
  // Decided and audited, then made by the kernel: the record says so.
  EXPECT_THAT(records, HasSubstr(R"("syscall":"linkat","args":)"));
  EXPECT_THAT(records, HasSubstr(R"("leftToKernel":true)"));

  const std::string ptrace_audit = scratch_ + "/ptrace-audit-only-docker-caps.jsonl";
  Outcome traced = RunSuite(GetParam().binary, "audit-only", ptrace_audit, {"--platform=ptrace"});
  ASSERT_TRUE(traced.ok()) << traced;
  ExpectSameAsNative(native.out, traced.out, "ptrace-audit-only-docker-caps");
}

INSTANTIATE_TEST_SUITE_P(Runtimes, SentrySyscallSuiteTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
