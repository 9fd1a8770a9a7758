// Landlock under the sentry (vigil only): a policy's write rules are backed
// by the kernel for what the workload's kernel does without the sentry.
// bind(2) of a unix socket path is on the fast path and creates a file, so
// only Landlock can refuse it: a refusal proves the ruleset is in force, in
// the init and in processes `vigil exec` adds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

// The probe's report of one bind-unix check.
std::string Bound(const std::string& path) {
  return "\"arg\":\"" + path + "\",\"ok\":true,\"errno\":0";
}
std::string Refused(const std::string& path, int code) {
  return "\"arg\":\"" + path + "\",\"ok\":false,\"errno\":" + std::to_string(code);
}

// Read everywhere, write only in /tmp, on a writable root: without Landlock
// nothing would stop a bind outside /tmp.
constexpr const char* kTmpOnly =
    R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [{\"path\": \"/tmp/**\", \"access\": \"write\"}]}}"})";

class LandlockTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (IsSkipped()) return;
    std::filesystem::copy_file(VIGIL_PROBE, bundle_ + "/rootfs/probe");
  }

  static BundleConfig WritableRoot(const char* annotations) {
    BundleConfig config;
    config.readonly_root = false;
    if (annotations != nullptr) config.annotations_json = annotations;
    return config;
  }
};

TEST_P(LandlockTest, TheFilePolicysWriteRulesAreEnforcedByTheKernelToo) {
  BundleConfig config = WritableRoot(kTmpOnly);
  config.args = {"/probe", "bind-unix", "/sock-outside", "bind-unix", "/tmp/sock"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr(Refused("/sock-outside", EACCES)));
  EXPECT_THAT(run.out, HasSubstr(Bound("/tmp/sock")));
  EXPECT_FALSE(std::filesystem::exists(bundle_ + "/rootfs/sock-outside"));
}

TEST_P(LandlockTest, TheDefaultProfileGetsNoRuleset) {
  BundleConfig config = WritableRoot(nullptr);
  config.args = {"/probe", "bind-unix", "/sock-outside"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr(Bound("/sock-outside")));
}

// A rule for a directory the image lacks is granted beneath its nearest
// existing ancestor: creating the directory and binding in it must work.
TEST_P(LandlockTest, AWriteRuleForAMissingDirectoryStillAllowsIt) {
  BundleConfig config = WritableRoot(
      R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [{\"path\": \"/etc/new/**\", \"access\": \"write\"}]}}"})");
  config.args = {"/probe",        "mkdir",     "/etc/new",        "bind-unix",
                 "/etc/new/sock", "bind-unix", "/etc/sock-beside"};
  Outcome run = RunWith(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(run.out, HasSubstr(Bound("/etc/new/sock")));
  // /etc is the grant's anchor: the superset Landlock lets through, and the
  // sentry (which does not see bind) does not narrow.
  EXPECT_THAT(run.out, HasSubstr(Bound("/etc/sock-beside")));
}

TEST_P(LandlockTest, ExecdProcessesGetTheRulesetToo) {
  BundleConfig config = WritableRoot(kTmpOnly);
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  Outcome exec =
      Runtime({"exec", id, "/probe", "bind-unix", "/sock-exec", "bind-unix", "/tmp/sock-exec"});
  ASSERT_TRUE(exec.ok()) << exec;
  EXPECT_THAT(exec.out, HasSubstr(Refused("/sock-exec", EACCES)));
  EXPECT_THAT(exec.out, HasSubstr(Bound("/tmp/sock-exec")));
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

// The agent profile: the working directory's rule, added at create, is in
// the exec'd process's ruleset as in the init's.
TEST_P(LandlockTest, AgentProfileKeepsTheWorkingDirectoryWritableForExecdProcesses) {
  std::filesystem::create_directories(bundle_ + "/rootfs/work");
  BundleConfig config;
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.args = {"sleep", "1000"};
  WriteConfig(config);
  const std::string id = NewId();
  CreateAndStart(id);
  Outcome exec =
      Runtime({"exec", id, "/probe", "bind-unix", "/work/sock", "bind-unix", "/tmp/sock"});
  ASSERT_TRUE(exec.ok()) << exec;
  EXPECT_THAT(exec.out, HasSubstr(Bound("/work/sock")));
  EXPECT_THAT(exec.out, HasSubstr(Bound("/tmp/sock")));
  EXPECT_TRUE(Runtime({"delete", "--force", id}).ok());
}

INSTANTIATE_TEST_SUITE_P(Runtimes, LandlockTest,
                         ::testing::Values(RuntimeUnderTest{"vigil", VIGIL_BINARY}), RuntimeName);

}  // namespace
}  // namespace vigil::integration
