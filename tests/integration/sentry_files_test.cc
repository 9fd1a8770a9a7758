// The sentry's file and exec policies in real containers: files hidden,
// denied and kept read-only by what a path resolves to (inside a chroot,
// through renames and links too), the workload's own credentials, the
// agent profile, and exec checked on the resolved file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "tests/integration/sentry_fixture.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The file policy's tests share the sentry's fixture.
using SentryFilesTest = SentryTest;

TEST_P(SentryFilesTest, AgentProfileConfinesWritesAndExecution) {
  std::filesystem::create_directories(bundle_ + "/rootfs/work");
  BundleConfig config;
  config.readonly_root = false;      // the profile makes it read-only
  config.no_new_privileges = false;  // and sets no_new_privs
  config.cwd = "/work";
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  Outcome run =
      RunScript(config,
                "touch /etc/x 2>/dev/null && echo root=writable || echo root=read-only; "
                "touch /tmp/x && echo tmp=writable; touch ./x && echo cwd=writable; "
                "cp /bin/busybox /tmp/bb && (/tmp/bb true 2>/dev/null && echo tmp=exec || "
                "echo tmp=noexec); grep NoNewPrivs /proc/self/status");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "root=read-only\ntmp=writable\ncwd=writable\ntmp=noexec\nNoNewPrivs:\t1\n");
}

// A bind mount the config marks rw (an output directory) stays writable
// under agent, and one it marks ro stays read-only.
TEST_P(SentryFilesTest, AgentKeepsTheModeOfConfiguredBindMounts) {
  const std::string out = scratch_ + "/out", ref = scratch_ + "/ref";
  std::filesystem::create_directories(out);
  std::filesystem::create_directories(ref);
  std::filesystem::create_directories(bundle_ + "/rootfs/out");
  std::filesystem::create_directories(bundle_ + "/rootfs/ref");
  BundleConfig config;
  config.readonly_root = false;
  config.no_new_privileges = false;
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.extra_mounts_json = {BindMountJson("/out", out), BindMountJson("/ref", ref, "ro")};
  Outcome run = RunScript(config,
                          "echo result > /out/r.txt && echo out=writable; "
                          "touch /ref/x 2>/dev/null && echo ref=writable || echo ref=read-only");
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "out=writable\nref=read-only\n");
  EXPECT_EQ(ReadWholeFile(out + "/r.txt"), "result\n");
}

// Under agent reads are the kernel's: its masked paths are mounts (a file
// is /dev/null, char 1:3; a directory is empty), what only reads is
// neither decided nor audited, and what writes is both (beneath /tmp,
// decided, audited and then made by the kernel under a Landlock layer).
TEST_P(SentryFilesTest, AgentReadsAreTheKernelsAndItsMasksAreMounts) {
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  BundleConfig config;
  config.readonly_root = false;
  config.no_new_privileges = false;
  config.annotations_json = R"({"dev.vigil.policy": "agent"})";
  config.args = {"sh", "-c",
                 "stat -c %t:%T /proc/kmsg; ls -A /sys/kernel/debug | wc -l; "
                 "cat /etc/motd; touch /etc/x 2>/dev/null || echo refused; "
                 "echo scratch > /tmp/f && cat /tmp/f"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "1:3\n0\nhello\nrefused\nscratch\n");
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/tmp/f"},"decision":"allow")"));
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/etc/x"},"decision":"deny","errno":"EACCES")"));
  EXPECT_THAT(records, HasSubstr(R"("syscall":"execve")"));
  // Only as cat's argument, never as an open's path.
  EXPECT_THAT(records, HasSubstr(R"("argv":"cat /etc/motd")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("path":"/etc/motd")"))) << "a read-only open was audited";
  EXPECT_THAT(records, Not(HasSubstr(R"("syscall":"newfstatat")"))) << "a stat was audited";
}

// The policy exec reads back from the record: with a working directory the
// agent profile gains a write rule for it, and the profile so edited no
// longer parsed under the name "agent", so exec failed.
TEST_P(SentryFilesTest, ExecWorksInAnAgentContainerWithAWorkingDirectory) {
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
TEST_P(SentryFilesTest, FilePolicyHidesDeniesAndKeepsReadOnly) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  BundleConfig config;
  config.readonly_root = false;
  config.extra_mounts_json = {R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"})"};
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [)"
      R"({\"path\": \"/etc/secret\", \"access\": \"hidden\"}, )"
      R"({\"path\": \"/tmp/**\", \"access\": \"write\"}, )"
      R"({\"path\": \"/dev/**\", \"access\": \"write\"}]}}"})";
  config.args = {
      "sh", "-c",
      "cat /etc/motd; cat /etc/secret || echo hidden; stat /etc/secret >/dev/null 2>&1 || "
      "echo stat-hidden; ln -s /etc/secret /tmp/l; "
      "cat /tmp/l || echo hidden-via-link; { echo x > /etc/motd; } 2>/dev/null || "
      "echo read-only; echo t > /tmp/t && cat /tmp/t; head -1 /proc/self/status; "
      "echo z > /dev/null && echo devnull; ls /etc | grep -q secret || echo unlisted"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out,
            "hello\nhidden\nstat-hidden\nhidden-via-link\nread-only\nt\nName:\thead\n"
            "devnull\nunlisted\n");
  EXPECT_THAT(
      records,
      HasSubstr(
          R"("path":"/tmp/l","flags":"00","resolved":"/etc/secret"},"decision":"deny","errno":"ENOENT")"));
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/etc/motd"},"decision":"deny","errno":"EACCES")"));
}

// The policy names files from the container's root, not from the root a
// process chrooted to: inside chroot /etc, "/secret" and "secret" are still
// /etc/secret (a chroot into /etc once turned them into "/secret", which no
// rule named), and the files it may read read as usual, by absolute and
// relative paths alike.
TEST_P(SentryFilesTest, FilePolicyHoldsInsideAChroot) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  std::ofstream(bundle_ + "/rootfs/etc/motd") << "hello\n";
  std::filesystem::copy_file(bundle_ + "/rootfs/bin/busybox", bundle_ + "/rootfs/etc/busybox");
  BundleConfig config;
  Grant(config, "CAP_SYS_CHROOT");
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"files\": {\"default\": \"read\", \"rules\": [)"
      R"({\"path\": \"/etc/secret\", \"access\": \"hidden\"}, )"
      R"({\"path\": \"/dev/**\", \"access\": \"write\"}]}}"})";
  config.args = {
      "sh", "-c",
      "chroot /etc /busybox cat /motd; chroot /etc /busybox cat motd; "
      "chroot /etc /busybox cat /secret 2>/dev/null || "
      "echo hidden; chroot /etc /busybox cat secret 2>/dev/null || echo hidden-relative; "
      "chroot /etc /busybox stat /secret >/dev/null 2>&1 || echo stat-hidden"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "hello\nhello\nhidden\nhidden-relative\nstat-hidden\n");
  EXPECT_THAT(
      records,
      HasSubstr(
          R"("path":"/secret","flags":"00","resolved":"/etc/secret"},"decision":"deny","errno":"ENOENT")"));
}

// A container user other than root: the sentry opens, stats and creates
// as that user (a root-only file stays unreadable, a new one is the
// user's), and reads the process's descriptors and working directory,
// which the user's own credentials are not enough for, as itself.
TEST_P(SentryFilesTest, AnotherUserIsServedWithItsOwnCredentials) {
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
TEST_P(SentryFilesTest, FilePolicyCannotBeSidesteppedByRenameOrLink) {
  std::ofstream(bundle_ + "/rootfs/etc/secret") << "s3cret\n";
  BundleConfig config;
  config.readonly_root = false;
  config.extra_mounts_json = {R"({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"})"};
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"files\": {\"default\": \"write\", \"rules\": [)"
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
TEST_P(SentryFilesTest, ExecPolicyIsCheckedOnTheResolvedFile) {
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
TEST_P(SentryFilesTest, VerifiedExecsRunScriptsAndLeaveNothingTraced) {
  std::filesystem::create_directories(bundle_ + "/rootfs/opt");
  {
    std::ofstream script(bundle_ + "/rootfs/opt/hello");
    script << "#!/bin/sh\necho script-ran\ngrep TracerPid /proc/self/status\n";
  }
  std::filesystem::permissions(bundle_ + "/rootfs/opt/hello", std::filesystem::perms(0755));
  BundleConfig config;
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"exec\": {\"allow\": [\"/bin/*\", \"/opt/*\"]}}"})";
  config.args = {"sh", "-c", "/opt/hello; /bin/true && echo true-ran"};
  auto [run, records] = RunAudited(config);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(run.out, "script-ran\nTracerPid:\t0\ntrue-ran\n");
  // The record names the interpreter the "#!" line made the kernel run.
  EXPECT_THAT(records, HasSubstr(R"("resolved":"/opt/hello","interpreter":"/bin/busybox"},)"
                                 R"("decision":"allow")"));
  EXPECT_THAT(records, Not(HasSubstr(R"("decision":"kill")")));
}

// An agent's typical job: Python from the host's /usr (bound read-only),
// every open mediated by the file policy: imports work, the working
// directory is writable, the rest of the root is not.
TEST_P(SentryFilesTest, AgentProfileRunsPythonFromTheHostsUsr) {
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

INSTANTIATE_TEST_SUITE_P(Runtimes, SentryFilesTest, ::testing::ValuesIn(SentryRuntimes()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
