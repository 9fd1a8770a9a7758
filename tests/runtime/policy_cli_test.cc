// `vigil policy show|list`, and the policy in force in `vigil state`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "config/policy/policy.h"
#include "runtime/container/state_dir.h"
#include "tests/runtime/vigil_command.h"
#include "tests/support/temp_dir.h"

namespace vigil::runtime {
namespace {

using ::testing::HasSubstr;

using test::Outcome;

class PolicyCliTest : public ::testing::Test {
 protected:
  Outcome Vigil(const std::string& args) { return test::RunVigil(args, dir_); }

  test::TempDir temp_{"policy-cli-test"};
  const std::string dir_ = temp_.path();
};

// What `show` prints is the policy whole: it reads back as the same one.
TEST_F(PolicyCliTest, ShowPrintsAPolicyThatReadsBackEqual) {
  for (const char* name : {"default", "agent", "audit-only"}) {
    Outcome shown = Vigil(std::string("policy show ") + name);
    ASSERT_EQ(shown.status, 0) << shown.err;
    Result<config::Policy> back = config::ParsePolicy(shown.out);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, *config::BuiltinPolicy(name));
  }
  const std::string file = dir_ + "/ci.json";
  ASSERT_TRUE(WriteFileAtomic(
      file, R"({"extends": "agent", "files": {"rules": [{"path": "/out/**", "access": "write"}]}})",
      0644, true));
  Outcome extended = Vigil("policy show " + file);
  ASSERT_EQ(extended.status, 0) << extended.err;
  EXPECT_THAT(extended.out, HasSubstr(R"("name": "agent-extended")"));
  Outcome list = Vigil("policy list");
  EXPECT_EQ(list.out, "default\nagent\naudit-only\n");
}

TEST_F(PolicyCliTest, BadPoliciesAndUsageAreOneLine) {
  Outcome bad = Vigil(R"(policy show '{"audit": "loud"}')");
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.err, HasSubstr("vigil: policy: show: policy.audit: expected one of"));
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1);
  EXPECT_EQ(Vigil("policy").status, 1);
  EXPECT_EQ(Vigil("policy show").status, 1);
  EXPECT_EQ(Vigil("policy frob").status, 1);
}

// `show --compiled` prints what the compiler makes of a policy for a
// bundle: the compiled policy and what it changed in the config.
TEST_F(PolicyCliTest, ShowCompiledNamesEachLayer) {
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/config.json", R"({"ociVersion": "1.0.2",
      "process": {"args": ["sh"], "cwd": "/work"}, "root": {"path": "rootfs"}})",
                              0644, true));
  Outcome shown = Vigil("policy --compiled --bundle " + dir_ + " show agent");
  ASSERT_EQ(shown.status, 0) << shown.err;
  Result<json::Document> doc = json::Document::Parse(shown.out);
  ASSERT_TRUE(doc) << shown.out;
  std::optional<json::Value> compiled = doc->root().Find("compiled");
  ASSERT_TRUE(compiled) << shown.out;
  EXPECT_EQ(compiled->Find("filter")->Find("mediateFiles")->AsBool(), true);
  EXPECT_THAT(shown.out, HasSubstr(R"({"path":"/work/**","access":"write"})"));
  EXPECT_EQ(doc->root().Find("config")->Find("readOnlyRoot")->AsBool(), true);
  // Each file rule names the layers that enforce it.
  EXPECT_THAT(shown.out, HasSubstr(R"({"rule":"files.default","access":"read","by":["sentry",)"
                                   R"("landlock 1: no writes","mount: read-only root"]})"));
  EXPECT_THAT(shown.out,
              HasSubstr(R"({"rule":"/work/**","access":"write","by":["sentry",)"
                        R"("landlock 1: writes beneath /work",)"
                        R"("landlock 2 (exact): write_file,make_reg,truncate beneath /work",)"
                        R"("mount: tmpfs nosuid,nodev,mode=1777,)"));
  EXPECT_THAT(shown.out, HasSubstr(R"({"rule":"/proc/kcore","access":"masked","by":["sentry",)"
                                   R"("landlock 1: no writes","mount: masked"]})"));
  Outcome misplaced = Vigil("policy --bundle " + dir_ + " show agent");
  EXPECT_EQ(misplaced.status, 1);
  EXPECT_THAT(misplaced.err, HasSubstr("--bundle: only with show --compiled"));
}

// `state` shows the policy create recorded and the platform.
TEST_F(PolicyCliTest, StateShowsThePolicyInForce) {
  const std::string root = dir_ + "/root";
  Result<StateDir> dir = StateDir::Create(root, "box");
  ASSERT_TRUE(dir) << dir.error().message;
  ContainerRecord record{.id = "box",
                         .bundle = dir_,
                         .status = config::ContainerStatus::kStopped,
                         .policy = config::DumpPolicy(*config::BuiltinPolicy("agent")),
                         .platform = sentry::Platform::kPtrace};
  ASSERT_TRUE(dir->SaveRecord(record));
  Outcome state = Vigil("--root " + root + " state box");
  ASSERT_EQ(state.status, 0) << state.err;
  Result<json::Document> doc = json::Document::Parse(state.out);
  ASSERT_TRUE(doc) << state.out;
  std::optional<json::Value> policy = doc->root().Find("policy");
  ASSERT_TRUE(policy) << state.out;
  EXPECT_EQ(policy->Find("name")->AsString().value_or(""), "agent");
  EXPECT_EQ(doc->root().Find("platform")->AsString().value_or(""), "ptrace");
}

}  // namespace
}  // namespace vigil::runtime
