#include "runtime/linux/landlock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace vigil::runtime {
namespace {

namespace fs = std::filesystem;

class LandlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/vigil-landlock-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    root_ = name;
    fs::create_directories(root_ / "granted" / "deep");
    fs::create_directories(root_ / "other");
    fs::create_directories(root_ / "real");
    fs::create_symlink("real", root_ / "link");
    std::FILE* f = std::fopen((root_ / "file").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  void TearDown() override { fs::remove_all(root_); }

  // The directory `path` (in root_) anchors on, as a path relative to root_.
  std::string AnchorOf(const std::string& path) {
    UniqueFd root(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    Result<UniqueFd> dir = OpenGrantDirectory(root.Get(), path);
    if (!dir) return "error: " + dir.error().message;
    std::string anchor =
        fs::read_symlink(fs::path("/proc/self/fd") / std::to_string(dir->Get())).string();
    return anchor == root_.string() ? "/" : anchor.substr(root_.string().size());
  }

  fs::path root_;
};

TEST_F(LandlockTest, AGrantIsAnchoredOnItsDirectory) {
  EXPECT_EQ(AnchorOf("/granted"), "/granted");
  EXPECT_EQ(AnchorOf("/granted/deep"), "/granted/deep");
  EXPECT_EQ(AnchorOf("/"), "/");
}

TEST_F(LandlockTest, AMissingDirectoryIsAnchoredOnItsNearestExistingAncestor) {
  EXPECT_EQ(AnchorOf("/granted/deep/not/yet"), "/granted/deep");
  EXPECT_EQ(AnchorOf("/nothing"), "/");
}

TEST_F(LandlockTest, AFileOrASymlinkIsAnchoredOnTheDirectoryHoldingIt) {
  EXPECT_EQ(AnchorOf("/file"), "/");
  EXPECT_EQ(AnchorOf("/file/below"), "/");
  // Never the link's target: /link -> real is anchored on "/", not /real.
  EXPECT_EQ(AnchorOf("/link"), "/");
  EXPECT_EQ(AnchorOf("/link/x"), "/");
}

// bind(2) of a unix socket path: the fast-path syscall that creates a file,
// which only Landlock can refuse.
int BindAt(const fs::path& path) {
  int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return errno;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  int result = ::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ? 0 : errno;
  ::close(sock);
  return result;
}

// Runs `body` in a child restricted to `ruleset`; its exit code is
// body's result (an errno), 255 if applying failed.
int InRestrictedChild(const config::LandlockRuleset& ruleset, const fs::path& root,
                      int (*body)(const fs::path&)) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!ApplyLandlock(ruleset, root.string())) ::_exit(255);
    ::_exit(body(root));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(LandlockTest, TheRulesetRefusesWhatItDoesNotGrant) {
  if (LandlockAbi() < 1) GTEST_SKIP() << "no Landlock in this kernel";
  const config::LandlockRuleset ruleset{
      .handled = config::kLandlockWriteClass & config::LandlockFsRights(LandlockAbi()),
      .grants = {
          {"/granted", config::kLandlockWriteClass & config::LandlockFsRights(LandlockAbi())}}};
  EXPECT_EQ(
      InRestrictedChild(ruleset, root_, [](const fs::path& r) { return BindAt(r / "other/s"); }),
      EACCES);
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) { return BindAt(r / "granted/deep/s"); }),
            0);
  // mkdir is the kernel's too here (no sentry): refused outside.
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) {
                                return ::mkdir((r / "other/d").c_str(), 0755) == 0 ? 0 : errno;
                              }),
            EACCES);
  // Unrestricted, the same bind succeeds.
  EXPECT_EQ(InRestrictedChild(config::LandlockRuleset{}, root_,
                              [](const fs::path& r) { return BindAt(r / "other/s2"); }),
            0);
}

TEST_F(LandlockTest, AGrantForAMissingDirectoryCoversItOnceCreated) {
  if (LandlockAbi() < 1) GTEST_SKIP() << "no Landlock in this kernel";
  const std::uint64_t rights =
      config::kLandlockWriteClass & config::LandlockFsRights(LandlockAbi());
  const config::LandlockRuleset ruleset{.handled = rights,
                                        .grants = {{"/granted/new/dir", rights}}};
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) {
                                if (::mkdir((r / "granted/new").c_str(), 0755) != 0) return errno;
                                if (::mkdir((r / "granted/new/dir").c_str(), 0755) != 0)
                                  return errno;
                                return BindAt(r / "granted/new/dir/s");
                              }),
            0);
  EXPECT_EQ(
      InRestrictedChild(ruleset, root_, [](const fs::path& r) { return BindAt(r / "other/s"); }),
      EACCES);
}

// EXECUTE is checked on every file the kernel opens for an exec: the
// program, a script's interpreter, an ELF's PT_INTERP. busybox-static
// (scripts/install-deps) is the static program; /bin/true is dynamic, its
// loader lies outside the grant.
int ExecFrom(const fs::path& program) {
  const std::string path = program.string();
  char* const argv[] = {const_cast<char*>(path.c_str()), const_cast<char*>("true"), nullptr};
  ::execv(path.c_str(), argv);
  return errno;
}

TEST_F(LandlockTest, ExecuteIsCheckedOnTheProgramAndEachInterpreter) {
  if (LandlockAbi() < 1) GTEST_SKIP() << "no Landlock in this kernel";
  ASSERT_TRUE(fs::exists("/bin/busybox")) << "scripts/install-deps installs busybox-static";
  fs::copy_file("/bin/busybox", root_ / "granted/busybox");
  fs::copy_file("/bin/busybox", root_ / "other/busybox");
  fs::copy_file("/bin/true", root_ / "granted/dynamic");
  const std::string script = "#!" + (root_ / "other/busybox").string() + "\n";
  std::FILE* f = std::fopen((root_ / "granted/script").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(script.c_str(), f);
  std::fclose(f);
  fs::permissions(root_ / "granted/script", fs::perms::owner_all);
  const config::LandlockRuleset ruleset{.handled = config::kLandlockExecute,
                                        .grants = {{"/granted", config::kLandlockExecute}}};
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) { return ExecFrom(r / "granted/busybox"); }),
            0);
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) { return ExecFrom(r / "other/busybox"); }),
            EACCES);
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) { return ExecFrom(r / "granted/script"); }),
            EACCES);
  EXPECT_EQ(InRestrictedChild(ruleset, root_,
                              [](const fs::path& r) { return ExecFrom(r / "granted/dynamic"); }),
            EACCES);
  // Unrestricted, the dynamic program runs.
  EXPECT_EQ(InRestrictedChild(config::LandlockRuleset{}, root_,
                              [](const fs::path& r) { return ExecFrom(r / "granted/dynamic"); }),
            0);
}

}  // namespace
}  // namespace vigil::runtime
