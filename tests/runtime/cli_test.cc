// The vigil binary as a user and as containerd/podman drive it: exit status,
// one error line, the log file, and the verbs that exist so far.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "cli/command.h"
#include "config/oci/config.h"
#include "tests/runtime/vigil_command.h"
#include "tests/support/temp_dir.h"

namespace vigil::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using test::Outcome;
using test::Slurp;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bundle_ = dir_ + "/bundle";
    std::filesystem::create_directory(bundle_);
  }

  Outcome Vigil(const std::string& args) { return test::RunVigil(args, dir_); }
  void WriteConfig(const std::string& text) {
    ASSERT_TRUE(WriteFileAtomic(bundle_ + "/config.json", text, 0644, true));
  }

  test::TempDir temp_{"cli-test"};
  const std::string dir_ = temp_.path();
  std::string bundle_;
};

TEST_F(CliTest, SpecWritesAConfigThatChecksBack) {
  Outcome spec = Vigil("spec --bundle " + bundle_);
  ASSERT_EQ(spec.status, 0) << spec.err;
  Outcome check = Vigil("check --bundle " + bundle_);
  ASSERT_EQ(check.status, 0) << check.err;
  auto parsed = config::ParseSpec(check.out);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->root->path, bundle_ + "/rootfs");  // resolved against the bundle
  EXPECT_EQ(parsed->process->args, std::vector<std::string>{"sh"});
}

TEST_F(CliTest, SpecRefusesToOverwrite) {
  ASSERT_EQ(Vigil("spec -b " + bundle_).status, 0);
  std::string before = Slurp(bundle_ + "/config.json");
  Outcome again = Vigil("spec -b " + bundle_);
  EXPECT_EQ(again.status, 1);
  EXPECT_EQ(again.err, "vigil: spec: " + bundle_ + "/config.json already exists\n");
  EXPECT_EQ(Slurp(bundle_ + "/config.json"), before);
}

TEST_F(CliTest, RootlessSpecAddsAUserNamespace) {
  ASSERT_EQ(Vigil("spec --rootless --bundle " + bundle_).status, 0);
  auto spec = config::ParseSpec(Slurp(bundle_ + "/config.json"));
  ASSERT_TRUE(spec);
  EXPECT_NE(spec->linux_spec->FindNamespace(config::NamespaceType::kUser), nullptr);
}

TEST_F(CliTest, RuncSpecOutputChecks) {
  // The same shape `runc spec` writes; a bundle made for runc must work here.
  WriteConfig(R"({"ociVersion": "1.0.2-dev", "process": {"terminal": true, "user": {"uid": 0,
      "gid": 0}, "args": ["sh"], "env": ["PATH=/bin", "TERM=xterm"], "cwd": "/",
      "capabilities": {"bounding": ["CAP_KILL"], "effective": ["CAP_KILL"], "inheritable":
      ["CAP_KILL"], "permitted": ["CAP_KILL"], "ambient": ["CAP_KILL"]}, "rlimits": [{"type":
      "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}], "noNewPrivileges": true},
      "root": {"path": "rootfs", "readonly": true}, "hostname": "runc",
      "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
      "linux": {"resources": {"devices": [{"allow": false, "access": "rwm"}]},
      "namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"},
      {"type": "mount"}], "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"]}})");
  Outcome check = Vigil("check --bundle " + bundle_);
  EXPECT_EQ(check.status, 0) << check.err;
}

TEST_F(CliTest, InvalidConfigGivesOneLineNamingTheJsonPath) {
  WriteConfig(R"({"ociVersion": "1.2.0", "root": {"path": "rootfs"},
      "linux": {"resources": {"memory": {"limit": "1g"}}}})");
  Outcome check = Vigil("check --bundle " + bundle_);
  EXPECT_EQ(check.status, 1);
  EXPECT_EQ(check.out, "");
  EXPECT_EQ(check.err, "vigil: check: " + bundle_ +
                           "/config.json: linux.resources.memory.limit: expected integer, got "
                           "string \"1g\"\n");
}

TEST_F(CliTest, MalformedJsonGivesOneLine) {
  WriteConfig("{\"ociVersion\": \"1.2.0\",\n  \"root\": {\"path\": rootfs}}");
  Outcome check = Vigil("check --bundle " + bundle_);
  EXPECT_EQ(check.status, 1);
  EXPECT_THAT(check.err,
              StartsWith("vigil: check: " + bundle_ + "/config.json: invalid JSON at byte "));
  EXPECT_EQ(std::count(check.err.begin(), check.err.end(), '\n'), 1);
}

TEST_F(CliTest, MissingConfigNamesTheFile) {
  Outcome check = Vigil("check --bundle " + bundle_);
  EXPECT_EQ(check.status, 1);
  EXPECT_EQ(check.err,
            "vigil: check: open " + bundle_ + "/config.json: No such file or directory\n");
}

TEST_F(CliTest, JsonLogCarriesTheErrorForContainerd) {
  // containerd's shim passes these global flags before every verb and shows
  // the user the last "level":"error" line of the log.
  std::string log = dir_ + "/log.json";
  Outcome check = Vigil("--root " + dir_ + "/state --log " + log +
                        " --log-format json check --bundle " + bundle_);
  EXPECT_EQ(check.status, 1);
  auto doc = json::Document::Parse(Slurp(log));
  ASSERT_TRUE(doc) << Slurp(log);
  EXPECT_EQ(doc->root().Find("level")->AsString(), "error");
  EXPECT_THAT(std::string(*doc->root().Find("msg")->AsString()),
              HasSubstr("config.json: No such file or directory"));
  EXPECT_TRUE(doc->root().Find("time"));
}

TEST_F(CliTest, GlobalFlagsTakeTheEqualsAndSingleDashForms) {
  std::string log = dir_ + "/log.txt";
  Outcome r = Vigil("-root=" + dir_ + " -log=" + log +
                    " -log-format=text --systemd-cgroup "
                    "--rootless=false features");
  EXPECT_EQ(r.status, 0) << r.err;
  Outcome bad = Vigil("--log-format yaml features");
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.err, HasSubstr("invalid log format \"yaml\""));
}

TEST_F(CliTest, FeaturesIsValidJson) {
  Outcome r = Vigil("features");
  ASSERT_EQ(r.status, 0);
  auto doc = json::Document::Parse(r.out);
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->root().Find("linux")->Find("namespaces")->size(), 8u);
}

TEST_F(CliTest, UnknownCommandsAndFlagsAreOneLineErrors) {
  Outcome r = Vigil("frobnicate");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "vigil: unknown command \"frobnicate\"; run 'vigil help' for the list\n");
  r = Vigil("spec --frob");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "vigil: flag provided but not defined: \"--frob\"\n");
  r = Vigil("check extra");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "vigil: check: check takes no arguments, got \"extra\"\n");
}

TEST_F(CliTest, HelpAndVersionDeriveFromTheTables) {
  Outcome help = Vigil("help");
  ASSERT_EQ(help.status, 0);
  for (const Command& command : Commands()) EXPECT_THAT(help.out, HasSubstr(command.name));
  EXPECT_EQ(Vigil("--help").out, help.out);
  Outcome spec_help = Vigil("help spec");
  EXPECT_THAT(spec_help.out, HasSubstr("--bundle DIR, -b DIR"));
  EXPECT_EQ(Vigil("spec --help").out, spec_help.out);
  Outcome version = Vigil("--version");
  EXPECT_THAT(version.out, StartsWith("vigil version "));
  EXPECT_THAT(version.out, HasSubstr("spec: 1.2.0"));
  EXPECT_EQ(Vigil("-v").out, version.out);
  EXPECT_EQ(Vigil("").status, 1);  // no verb: usage on stderr
}

TEST(CommandTableTest, IsSortedUniqueAndDocumented) {
  auto commands = Commands();
  for (std::size_t i = 0; i < commands.size(); ++i) {
    EXPECT_FALSE(commands[i].summary.empty()) << commands[i].name;
    EXPECT_NE(commands[i].run, nullptr) << commands[i].name;
    if (i > 0) {
      EXPECT_LT(commands[i - 1].name, commands[i].name);
    }
  }
}

}  // namespace
}  // namespace vigil::cli
