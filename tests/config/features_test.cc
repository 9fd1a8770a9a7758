#include "config/oci/features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/json_reader.h"
#include "base/strings.h"
#include "config/oci/names.h"

namespace vigil::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

class FeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    text_ = FeaturesJson();
    auto doc = json::Document::Parse(text_);
    ASSERT_TRUE(doc) << doc.error().message << "\n" << text_;
    doc_.emplace(std::move(*doc));
  }

  json::Value Root() const { return doc_->root(); }

  // The value at `keys` under the root; fails the test if a key is missing.
  std::optional<json::Value> At(std::initializer_list<std::string_view> keys) const {
    json::Value v = Root();
    for (std::string_view key : keys) {
      std::optional<json::Value> next = v.Find(key);
      if (!next) {
        ADD_FAILURE() << "no property " << key;
        return std::nullopt;
      }
      v = *next;
    }
    return v;
  }

  // The strings of the array at `keys`.
  std::vector<std::string> Strings(std::initializer_list<std::string_view> keys) const {
    std::vector<std::string> out;
    std::optional<json::Value> array = At(keys);
    if (!array) return out;
    EXPECT_EQ(array->kind(), json::Kind::kArray);
    for (std::size_t i = 0; i < array->size(); ++i) {
      std::optional<std::string_view> s = array->Element(i).AsString();
      EXPECT_TRUE(s) << "element " << i << " is " << array->Element(i).Describe();
      if (s) out.emplace_back(*s);
    }
    return out;
  }

  std::string text_;
  std::optional<json::Document> doc_;
};

TEST_F(FeaturesTest, IsPrettyJsonEndingInANewline) {
  EXPECT_EQ(Root().kind(), json::Kind::kObject);
  EXPECT_TRUE(text_.ends_with("\n"));
  EXPECT_GT(std::count(text_.begin(), text_.end(), '\n'), 10);
}

TEST_F(FeaturesTest, NamesTheSupportedSpecVersions) {
  EXPECT_EQ(At({"ociVersionMin"})->AsString(), "1.0.0");
  EXPECT_EQ(At({"ociVersionMax"})->AsString(), "1.2.0");
}

TEST_F(FeaturesTest, ListsEveryHookKind) {
  EXPECT_THAT(Strings({"hooks"}), ElementsAre("prestart", "createRuntime", "createContainer",
                                              "startContainer", "poststart", "poststop"));
}

TEST_F(FeaturesTest, ListsAllEightNamespaces) {
  EXPECT_THAT(
      Strings({"linux", "namespaces"}),
      UnorderedElementsAre("pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"));
}

TEST_F(FeaturesTest, ListsAll41Capabilities) {
  std::vector<std::string> caps = Strings({"linux", "capabilities"});
  EXPECT_EQ(caps.size(), 41u);
  EXPECT_EQ(std::set<std::string>(caps.begin(), caps.end()).size(), caps.size());
  EXPECT_EQ(caps.front(), "CAP_CHOWN");
  EXPECT_EQ(caps.back(), "CAP_CHECKPOINT_RESTORE");
  EXPECT_THAT(caps, IsSupersetOf({"CAP_SYS_ADMIN", "CAP_NET_BIND_SERVICE", "CAP_BPF", "CAP_PERFMON",
                                  "CAP_AUDIT_READ"}));
}

TEST_F(FeaturesTest, ListsAllNineSeccompActions) {
  EXPECT_THAT(Strings({"linux", "seccomp", "actions"}),
              UnorderedElementsAre("SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
                                   "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE",
                                   "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"));
}

TEST_F(FeaturesTest, ListsSeccompOperatorsArchsAndFlags) {
  EXPECT_EQ(At({"linux", "seccomp", "enabled"})->AsBool(), true);
  EXPECT_THAT(Strings({"linux", "seccomp", "operators"}),
              UnorderedElementsAre("SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
                                   "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"));
  std::vector<std::string> archs = Strings({"linux", "seccomp", "archs"});
  EXPECT_EQ(archs.size(), 19u);
  EXPECT_THAT(archs, IsSupersetOf({"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32",
                                   "SCMP_ARCH_AARCH64", "SCMP_ARCH_RISCV64"}));
  std::vector<std::string> flags = Strings({"linux", "seccomp", "knownFlags"});
  EXPECT_THAT(flags, UnorderedElementsAre("SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                          "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                          "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"));
  EXPECT_THAT(Strings({"linux", "seccomp", "supportedFlags"}), UnorderedElementsAreArray(flags));
}

// vigil loads filters with seccomp(2) itself (docs/design.md, rule 8), so the
// supported flags are those the running kernel accepts, whatever libseccomp
// knows. A null program makes the kernel answer EFAULT for a known flag.
TEST_F(FeaturesTest, SupportedSeccompFlagsAreThoseTheKernelAccepts) {
  std::vector<std::string> known = Strings({"linux", "seccomp", "knownFlags"});
  std::vector<std::string> supported = Strings({"linux", "seccomp", "supportedFlags"});
  for (const NamedValue& flag : kSeccompFlagNames) {
    unsigned long flags = flag.value;
    if (flags == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
    errno = 0;
    ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, nullptr);
    bool kernel_knows = errno == EFAULT;
    bool advertised = std::find(supported.begin(), supported.end(), flag.name) != supported.end();
    EXPECT_EQ(advertised, kernel_knows) << flag.name;
    EXPECT_NE(std::find(known.begin(), known.end(), flag.name), known.end()) << flag.name;
  }
}

TEST_F(FeaturesTest, ListsMountOptionsSortedAndUnique) {
  std::vector<std::string> options = Strings({"mountOptions"});
  EXPECT_THAT(options, IsSupersetOf({"ro", "rw", "nosuid", "nodev", "noexec", "bind", "rbind",
                                     "private", "rprivate", "rshared", "rslave", "runbindable",
                                     "strictatime", "nosymfollow"}));
  EXPECT_TRUE(std::is_sorted(options.begin(), options.end()));
  EXPECT_EQ(std::adjacent_find(options.begin(), options.end()), options.end());
}

TEST_F(FeaturesTest, DoesNotListFilesystemDataAsOptions) {
  // "mode=755" and "size=64m" go to the filesystem; they are not flags.
  for (const std::string& option : Strings({"mountOptions"})) {
    EXPECT_EQ(option.find('='), std::string::npos) << option;
  }
}

TEST_F(FeaturesTest, DescribesCgroupSupport) {
  EXPECT_EQ(At({"linux", "cgroup", "v1"})->AsBool(), true);
  EXPECT_EQ(At({"linux", "cgroup", "v2"})->AsBool(), true);
  EXPECT_EQ(At({"linux", "cgroup", "systemd"})->AsBool(), false);
  EXPECT_EQ(At({"linux", "cgroup", "systemdUser"})->AsBool(), false);
  EXPECT_EQ(At({"linux", "cgroup", "rdma"})->AsBool(), false);
}

TEST_F(FeaturesTest, ReportsUnsupportedSecurityModulesAsDisabled) {
  EXPECT_EQ(At({"linux", "apparmor", "enabled"})->AsBool(), false);
  EXPECT_EQ(At({"linux", "selinux", "enabled"})->AsBool(), false);
  EXPECT_EQ(At({"linux", "intelRdt", "enabled"})->AsBool(), false);
  EXPECT_EQ(At({"linux", "mountExtensions", "idmap", "enabled"})->AsBool(), false);
}

TEST_F(FeaturesTest, AnnotatesTheLibseccompVersion) {
  std::optional<json::Value> version = At({"annotations", "io.github.seccomp.libseccomp.version"});
  ASSERT_TRUE(version);
  const scmp_version* v = seccomp_version();
  EXPECT_EQ(version->AsString(), StrCat(v->major, '.', v->minor, '.', v->micro));
  EXPECT_THAT(std::string(*version->AsString()),
              ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
}

TEST_F(FeaturesTest, IsTheSameEveryTime) { EXPECT_EQ(FeaturesJson(), text_); }

}  // namespace
}  // namespace vigil::config
