#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "config/policy/policy.h"
#include "tests/support/temp_dir.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ErrorOf(const Result<Policy>& p) { return p ? "" : p.error().message; }

TEST(PolicyFromFlagTest, ProfileName) {
  Result<Policy> p = PolicyFromFlag("agent");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, *BuiltinPolicy("agent"));
}

TEST(PolicyFromFlagTest, UnknownProfile) {
  EXPECT_EQ(ErrorOf(PolicyFromFlag("agnet")),
            "--policy: unknown policy profile \"agnet\"; known profiles: default, agent, "
            "audit-only");
  EXPECT_THAT(ErrorOf(PolicyFromFlag("")), StartsWith("--policy: unknown policy profile \"\""));
}

TEST(PolicyFromFlagTest, InlineJson) {
  Result<Policy> p = PolicyFromFlag(R"({"readOnlyRoot": true})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->read_only_root);
  EXPECT_EQ(p->name, "custom");
  EXPECT_TRUE(PolicyFromFlag(" \n{}"));
  EXPECT_EQ(
      ErrorOf(PolicyFromFlag(R"({"netwrok": {}})")),
      "--policy: policy.netwrok: unknown property (expected one of: extends, name, files, network, "
      "exec, readOnlyRoot, noSetuid, noexecWritable, audit, observe, defaultLimits)");
}

TEST(PolicyFromFlagTest, File) {
  test::TempDir dir("policy-source-test");
  ASSERT_NE(dir.path(), "");
  std::string file = dir.Write("p.json", R"({"name": "mine", "audit": "denied"})");
  Result<Policy> p = PolicyFromFlag(file);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->name, "mine");
  EXPECT_EQ(p->audit, AuditLevel::kDenied);
}

TEST(PolicyFromFlagTest, AnyPathWithASlashIsAFile) {
  test::TempDir dir("policy-source-test");
  std::string file = dir.Write("agent", R"({"audit": "off"})");  // not the profile
  Result<Policy> p = PolicyFromFlag(file);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->audit, AuditLevel::kOff);
  EXPECT_EQ(p->name, "custom");
}

TEST(PolicyFromFlagTest, RelativeFileEndingInJson) {
  test::TempDir dir("policy-source-test");
  std::string file = dir.Write("relative.json", R"({"noSetuid": true})");
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  Result<Policy> p = PolicyFromFlag("relative.json");
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->no_setuid);
}

TEST(PolicyFromFlagTest, FileErrorsNameTheFile) {
  test::TempDir dir("policy-source-test");
  std::string file = dir.Write("bad.json", R"({"audit": "loud"})");
  EXPECT_EQ(ErrorOf(PolicyFromFlag(file)),
            "--policy: " + file +
                ": policy.audit: expected one of \"off\", \"denied\", \"actions\", \"all\", "
                "got string \"loud\"");
}

TEST(PolicyFromFlagTest, MissingFileNamesThePath) {
  test::TempDir dir("policy-source-test");
  std::string missing = dir.path() + "/missing.json";
  Result<Policy> p = PolicyFromFlag(missing);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "--policy: open " + missing + ": No such file or directory");
  EXPECT_EQ(p.error().code, ENOENT);
}

TEST(PolicyFromAnnotationTest, ProfileName) {
  Result<Policy> p = PolicyFromAnnotation("audit-only");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->name, "audit-only");
}

TEST(PolicyFromAnnotationTest, InlineJson) {
  Result<Policy> p = PolicyFromAnnotation(R"({"network": {"egress": "deny"}})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->egress_default_deny);
  EXPECT_EQ(ErrorOf(PolicyFromAnnotation(R"({"audit": 1})")),
            "annotation dev.vigil.policy: policy.audit: expected one of \"off\", \"denied\", "
            "\"actions\", \"all\", got number 1");
}

TEST(PolicyFromAnnotationTest, UnknownProfile) {
  EXPECT_EQ(ErrorOf(PolicyFromAnnotation("strict")),
            "annotation dev.vigil.policy: unknown policy profile \"strict\"; known profiles: "
            "default, agent, audit-only");
}

TEST(PolicyFromAnnotationTest, RefusesFiles) {
  // Even one that exists: the annotation must not make the runtime read host files.
  test::TempDir dir("policy-source-test");
  std::string file = dir.Write("p.json", "{}");
  EXPECT_EQ(ErrorOf(PolicyFromAnnotation(file)),
            "annotation dev.vigil.policy: \"" + file +
                "\" looks like a file path; the annotation takes a profile name or inline JSON, "
                "never a host file");
  EXPECT_THAT(ErrorOf(PolicyFromAnnotation("p.json")), HasSubstr("looks like a file path"));
  EXPECT_THAT(ErrorOf(PolicyFromAnnotation("/etc/vigil/agent")),
              HasSubstr("looks like a file path"));
}

}  // namespace
}  // namespace vigil::config
