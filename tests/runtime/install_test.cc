// vigil install / uninstall: the edits of daemon.json, containerd's
// config.toml and containers.conf, and the verbs on temporary files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "cli/verb_install.h"
#include "tests/runtime/vigil_command.h"
#include "tests/support/temp_dir.h"

namespace vigil::cli::install {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Registration Vigil(std::vector<std::string> args = {}) {
  return Registration{"vigil", "/usr/local/bin/vigil", std::move(args)};
}

// The edit of `text`, which must succeed.
Edit Installed(Target target, std::string_view text, const Registration& r = Vigil()) {
  auto edit = Install(target, text, r);
  EXPECT_TRUE(edit) << edit.error().message;
  return edit ? *edit : Edit{};
}
Edit Uninstalled(Target target, std::string_view text) {
  auto edit = Uninstall(target, text, "vigil");
  EXPECT_TRUE(edit) << edit.error().message;
  return edit ? *edit : Edit{};
}

// ---- Docker ----------------------------------------------------------------

TEST(InstallDocker, AddsTheRuntimeAndKeepsEverythingElse) {
  const std::string before = R"({
  "log-level": "warn",
  "max-concurrent-downloads": 3,
  "runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace"]}},
  "default-ulimits": {"nofile": {"Name": "nofile", "Hard": 1024, "Soft": 1024}},
  "debug": false,
  "labels": null
})";
  Edit edit = Installed(Target::kDocker, before, Vigil({"--debug"}));
  EXPECT_TRUE(edit.changed);
  auto doc = json::Document::Parse(edit.text);
  ASSERT_TRUE(doc) << doc.error().message;
  json::Value root = doc->root();
  ASSERT_EQ(root.size(), 6u);
  EXPECT_EQ(root.MemberKey(0), "log-level");  // order kept
  EXPECT_EQ(root.Find("max-concurrent-downloads")->NumberText(), "3");
  EXPECT_EQ(root.Find("debug")->AsBool(), false);
  EXPECT_TRUE(root.Find("labels")->IsNull());
  EXPECT_EQ(root.Find("default-ulimits")->Find("nofile")->Find("Hard")->NumberText(), "1024");
  json::Value runtimes = *root.Find("runtimes");
  ASSERT_EQ(runtimes.size(), 2u);
  EXPECT_EQ(runtimes.Find("runsc")->Find("runtimeArgs")->Element(0).AsString(),
            "--platform=ptrace");
  json::Value vigil = *runtimes.Find("vigil");
  EXPECT_EQ(vigil.Find("path")->AsString(), "/usr/local/bin/vigil");
  ASSERT_EQ(vigil.Find("runtimeArgs")->size(), 1u);
  EXPECT_EQ(vigil.Find("runtimeArgs")->Element(0).AsString(), "--debug");
}

TEST(InstallDocker, CreatesTheFileFromNothing) {
  Edit edit = Installed(Target::kDocker, "");
  EXPECT_TRUE(edit.changed);
  EXPECT_EQ(edit.text,
            "{\n\t\"runtimes\": {\n\t\t\"vigil\": {\n\t\t\t\"path\": "
            "\"/usr/local/bin/vigil\"\n\t\t}\n\t}\n}\n");
}

TEST(InstallDocker, IsIdempotent) {
  Edit first = Installed(Target::kDocker, R"({"debug": true})");
  Edit second = Installed(Target::kDocker, first.text);
  EXPECT_FALSE(second.changed);
  EXPECT_EQ(second.text, first.text);
}

TEST(InstallDocker, UpdatesAnOutdatedEntryInPlace) {
  Edit edit = Installed(
      Target::kDocker, R"({"runtimes": {"vigil": {"path": "/old/vigil"}, "runc": {"path": "r"}}})");
  EXPECT_TRUE(edit.changed);
  auto doc = json::Document::Parse(edit.text);
  ASSERT_TRUE(doc);
  json::Value runtimes = *doc->root().Find("runtimes");
  EXPECT_EQ(runtimes.MemberKey(0), "vigil");
  EXPECT_EQ(runtimes.Find("vigil")->Find("path")->AsString(), "/usr/local/bin/vigil");
}

TEST(InstallDocker, UninstallRevertsAndDropsAnEmptyRuntimes) {
  Edit installed = Installed(Target::kDocker, R"({"debug": true})");
  Edit removed = Uninstalled(Target::kDocker, installed.text);
  EXPECT_TRUE(removed.changed);
  EXPECT_EQ(removed.text, "{\n\t\"debug\": true\n}\n");
  Edit again = Uninstalled(Target::kDocker, removed.text);
  EXPECT_FALSE(again.changed);
}

// With the text kept at the first install, uninstall gives the file back
// byte for byte (or no file, when there was none), unless something else
// in it changed since: then the rewrite keeps that change.
TEST(InstallDocker, UninstallGivesTheFileBackExactlyAsItWas) {
  const std::string before = "{ \"debug\" : true,\n  \"log-level\": \"warn\" }\n";
  Edit installed = Installed(Target::kDocker, before);
  auto restored = Uninstall(Target::kDocker, installed.text, "vigil", before);
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->text, before);
  EXPECT_FALSE(restored->remove_file);

  Edit created = Installed(Target::kDocker, "");
  auto gone = Uninstall(Target::kDocker, created.text, "vigil", std::string_view(""));
  ASSERT_TRUE(gone) << gone.error().message;
  EXPECT_TRUE(gone->remove_file) << "no leftover {}";

  std::string edited = installed.text;
  edited.insert(edited.find('{') + 1, "\"icc\": false,");
  auto kept = Uninstall(Target::kDocker, edited, "vigil", before);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_NE(kept->text, before);
  EXPECT_THAT(kept->text, ::testing::HasSubstr("\"icc\": false"));
  EXPECT_THAT(kept->text, ::testing::Not(::testing::HasSubstr("vigil")));
}

TEST(InstallDocker, UninstallKeepsOtherRuntimes) {
  Edit removed = Uninstalled(Target::kDocker,
                             R"({"runtimes": {"vigil": {"path": "/v"}, "runsc": {"path": "/r"}}})");
  auto doc = json::Document::Parse(removed.text);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->root().Find("runtimes")->size(), 1u);
  EXPECT_TRUE(doc->root().Find("runtimes")->Find("runsc"));
}

TEST(InstallDocker, RefusesWhatItCannotEditSafely) {
  auto not_object = Install(Target::kDocker, "[1]", Vigil());
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().message, "expected a JSON object, got array");
  auto bad_runtimes = Install(Target::kDocker, R"({"runtimes": []})", Vigil());
  ASSERT_FALSE(bad_runtimes);
  EXPECT_EQ(bad_runtimes.error().message, "runtimes: expected an object, got array");
  auto fraction = Install(Target::kDocker, R"({"x": {"y": 1.5}})", Vigil());
  ASSERT_FALSE(fraction);
  EXPECT_THAT(fraction.error().message, HasSubstr("x: cannot keep the number 1.5"));
  auto broken = Install(Target::kDocker, R"({"a": )", Vigil());
  EXPECT_FALSE(broken);
  auto default_runtime =
      Uninstall(Target::kDocker,
                R"({"default-runtime": "vigil", "runtimes": {"vigil": {"path": "/v"}}})", "vigil");
  ASSERT_FALSE(default_runtime);
  EXPECT_EQ(default_runtime.error().message, "default-runtime is \"vigil\"; set another one first");
}

TEST(InstallDocker, RefusesARelativePathAndABadName) {
  EXPECT_FALSE(Install(Target::kDocker, "", Registration{"vigil", "vigil", {}}));
  EXPECT_FALSE(Install(Target::kDocker, "", Registration{"a b", "/v", {}}));
}

// ---- containerd -------------------------------------------------------------

constexpr std::string_view kContainerdConfig = R"(version = 2
root = "/var/lib/containerd"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.6"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
)";

TEST(InstallContainerd, AppendsAManagedBlock) {
  Edit edit = Installed(Target::kContainerd, kContainerdConfig);
  EXPECT_TRUE(edit.changed);
  EXPECT_EQ(edit.text, std::string(kContainerdConfig) + R"(
# BEGIN vigil-install vigil (written by `vigil install`; `vigil uninstall` removes it)
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.vigil]
  runtime_type = "io.containerd.runc.v2"
  # Pass the vigil annotations (dev.vigil.policy) from pods to vigil.
  pod_annotations = ["dev.vigil.*"]
  container_annotations = ["dev.vigil.*"]
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.vigil.options]
  BinaryName = "/usr/local/bin/vigil"
# END vigil-install vigil
)");
}

TEST(InstallContainerd, IsIdempotentAndUninstallRestoresTheFile) {
  Edit first = Installed(Target::kContainerd, kContainerdConfig);
  Edit second = Installed(Target::kContainerd, first.text);
  EXPECT_FALSE(second.changed);
  EXPECT_EQ(second.text, first.text);
  Edit removed = Uninstalled(Target::kContainerd, first.text);
  EXPECT_TRUE(removed.changed);
  EXPECT_EQ(removed.text, kContainerdConfig);
  EXPECT_FALSE(Uninstalled(Target::kContainerd, removed.text).changed);
}

TEST(InstallContainerd, ANewPathReplacesTheBlock) {
  Edit first = Installed(Target::kContainerd, kContainerdConfig);
  Edit moved = Installed(Target::kContainerd, first.text, Registration{"vigil", "/opt/vigil", {}});
  EXPECT_TRUE(moved.changed);
  EXPECT_THAT(moved.text, HasSubstr("BinaryName = \"/opt/vigil\""));
  EXPECT_THAT(moved.text, Not(HasSubstr("/usr/local/bin/vigil")));
}

TEST(InstallContainerd, PicksTheTableOfTheConfigVersion) {
  Edit empty = Installed(Target::kContainerd, "");
  EXPECT_THAT(empty.text, HasSubstr("\nversion = 2\n[plugins.\"io.containerd.grpc.v1.cri\""));
  EXPECT_EQ(Uninstalled(Target::kContainerd, empty.text).text, "");
  EXPECT_THAT(Installed(Target::kContainerd, "root = \"/x\"\n").text,
              HasSubstr("[plugins.cri.containerd.runtimes.vigil]"));
  EXPECT_THAT(Installed(Target::kContainerd, "version = 3\n").text,
              HasSubstr("[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.vigil]"));
  EXPECT_FALSE(Install(Target::kContainerd, "version = 9\n", Vigil()));
}

TEST(InstallContainerd, RefusesAHandWrittenRuntimeAndRuntimeArgs) {
  auto taken = Install(Target::kContainerd,
                       "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes."
                       "vigil]\n  runtime_type = \"x\"\n",
                       Vigil());
  ASSERT_FALSE(taken);
  EXPECT_THAT(taken.error().message, HasSubstr("line 2 already defines"));
  auto args = Install(Target::kContainerd, kContainerdConfig, Vigil({"--debug"}));
  ASSERT_FALSE(args);
  EXPECT_THAT(args.error().message, HasSubstr("passes no arguments"));
  auto unterminated = Install(Target::kContainerd, "# BEGIN vigil-install vigil (x)\n", Vigil());
  ASSERT_FALSE(unterminated);
  EXPECT_THAT(unterminated.error().message, HasSubstr("fix the file by hand"));
}

TEST(InstallContainerd, NotesADisabledCriPlugin) {
  Edit edit = Installed(Target::kContainerd, "version = 2\ndisabled_plugins = [\"cri\"]\n");
  ASSERT_EQ(edit.notes.size(), 1u);
  EXPECT_THAT(edit.notes[0], HasSubstr("disables the CRI plugin"));
}

// ---- podman -----------------------------------------------------------------

TEST(InstallPodman, AppendsAnEngineTableWhenThereIsNone) {
  Edit edit = Installed(Target::kPodman, "[containers]\nlog_driver = \"k8s-file\"\n");
  EXPECT_EQ(edit.text, R"([containers]
log_driver = "k8s-file"

# BEGIN vigil-install vigil (written by `vigil install`; `vigil uninstall` removes it)
[engine]
runtime_supports_json = ["crun", "runc", "kata", "runsc", "youki", "krun", "vigil"]
runtimes.vigil = ["/usr/local/bin/vigil"]
# END vigil-install vigil
)");
  EXPECT_EQ(Uninstalled(Target::kPodman, edit.text).text,
            "[containers]\nlog_driver = \"k8s-file\"\n");
}

TEST(InstallPodman, WritesIntoExistingTables) {
  constexpr std::string_view kConf = R"([engine]
cgroup_manager = "cgroupfs"

[engine.runtimes]
runc = ["/usr/sbin/runc"]
)";
  Edit edit = Installed(Target::kPodman, kConf);
  EXPECT_EQ(edit.text, R"([engine]
# BEGIN vigil-install vigil (written by `vigil install`; `vigil uninstall` removes it)
runtime_supports_json = ["crun", "runc", "kata", "runsc", "youki", "krun", "vigil"]
# END vigil-install vigil
cgroup_manager = "cgroupfs"

[engine.runtimes]
# BEGIN vigil-install vigil (written by `vigil install`; `vigil uninstall` removes it)
vigil = ["/usr/local/bin/vigil"]
# END vigil-install vigil
runc = ["/usr/sbin/runc"]
)");
  EXPECT_FALSE(Installed(Target::kPodman, edit.text).changed);
  EXPECT_EQ(Uninstalled(Target::kPodman, edit.text).text, kConf);
}

TEST(InstallPodman, KeepsAJsonListThatNamesVigilAndRefusesOneThatDoesNot) {
  Edit edit = Installed(Target::kPodman, "[engine]\nruntime_supports_json = [\"vigil\"]\n");
  EXPECT_THAT(edit.text, Not(HasSubstr("\"crun\"")));
  EXPECT_THAT(edit.text, HasSubstr("runtimes.vigil = [\"/usr/local/bin/vigil\"]"));
  auto other = Install(Target::kPodman, "[engine]\nruntime_supports_json = [\"crun\"]\n", Vigil());
  ASSERT_FALSE(other);
  EXPECT_THAT(other.error().message, HasSubstr("line 2 sets engine.runtime_supports_json"));
  auto taken = Install(Target::kPodman, "[engine.runtimes]\nvigil = [\"/x\"]\n", Vigil());
  ASSERT_FALSE(taken);
  EXPECT_THAT(taken.error().message, HasSubstr("line 2 already sets engine.runtimes.vigil"));
}

// ---- the verbs --------------------------------------------------------------

using test::Outcome;
using test::Slurp;

class InstallCliTest : public ::testing::Test {
 protected:
  Outcome Vigil(const std::string& args) { return test::RunVigil(args, dir_); }

  test::TempDir temp_{"install-test"};
  const std::string dir_ = temp_.path();
};

TEST_F(InstallCliTest, DockerInstallTwiceThenUninstall) {
  std::string file = dir_ + "/daemon.json";
  ASSERT_TRUE(WriteFileAtomic(file, "{\"debug\": true}\n", 0600, true));
  Outcome first = Vigil("install --docker --config " + file +
                        " --path /usr/local/bin/vigil --runtime-args --debug");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.out, file +
                           ": added runtime \"vigil\" (/usr/local/bin/vigil); restart dockerd "
                           "(or send it SIGHUP) to use it\n");
  std::string installed = Slurp(file);
  EXPECT_THAT(installed, HasSubstr("\"runtimeArgs\": [\n\t\t\t\t\"--debug\""));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // the mode is kept

  Outcome second =
      Vigil("install --docker --config " + file + " --path /usr/local/bin/vigil -- --debug");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.out, file + ": already has runtime \"vigil\"; nothing changed\n");
  EXPECT_EQ(Slurp(file), installed);

  Outcome removed = Vigil("uninstall --docker --config " + file);
  ASSERT_EQ(removed.status, 0) << removed.err;
  EXPECT_EQ(Slurp(file), "{\"debug\": true}\n") << "not the file as it was";
  EXPECT_FALSE(std::filesystem::exists(file + ".vigil-backup"));
}

// A daemon.json that install made is gone again after uninstall.
TEST_F(InstallCliTest, DockerUninstallRemovesTheFileInstallMade) {
  const std::string file = dir_ + "/daemon.json";
  ASSERT_EQ(Vigil("install --docker --config " + file + " --path /usr/local/bin/vigil").status, 0);
  ASSERT_TRUE(std::filesystem::exists(file));
  Outcome removed = Vigil("uninstall --docker --config " + file);
  ASSERT_EQ(removed.status, 0) << removed.err;
  EXPECT_FALSE(std::filesystem::exists(file)) << Slurp(file);
  EXPECT_FALSE(std::filesystem::exists(file + ".vigil-backup"));
}

TEST_F(InstallCliTest, DryRunPrintsAndWritesNothing) {
  std::string file = dir_ + "/config.toml";
  Outcome dry = Vigil("install --containerd --dry-run --config " + file + " --path /opt/vigil");
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("BinaryName = \"/opt/vigil\""));
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(InstallCliTest, DefaultsToItsOwnBinaryAndCreatesTheFile) {
  std::string file = dir_ + "/containers.conf";
  Outcome out = Vigil("install --podman --config " + file);
  ASSERT_EQ(out.status, 0) << out.err;
  std::string self = std::filesystem::canonical(VIGIL_BINARY).string();
  EXPECT_THAT(Slurp(file), HasSubstr("runtimes.vigil = [\"" + self + "\"]"));
  Outcome removed = Vigil("uninstall --podman --config " + file);
  ASSERT_EQ(removed.status, 0) << removed.err;
  EXPECT_EQ(Slurp(file), "");
}

TEST_F(InstallCliTest, ErrorsAreOneLine) {
  Outcome none = Vigil("install --config " + dir_ + "/x");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, "vigil: install: give exactly one of --docker, --containerd, --podman\n");
  std::string file = dir_ + "/daemon.json";
  ASSERT_TRUE(WriteFileAtomic(file, "[]", 0644, true));
  Outcome bad = Vigil("install --docker --config " + file);
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, "vigil: install: " + file + ": expected a JSON object, got array\n");
  EXPECT_EQ(Slurp(file), "[]");
  Outcome missing = Vigil("uninstall --docker --config " + dir_ + "/absent.json");
  EXPECT_EQ(missing.status, 0) << missing.err;
  EXPECT_THAT(missing.out, HasSubstr("has no runtime \"vigil\"; nothing changed"));
}

}  // namespace
}  // namespace vigil::cli::install
