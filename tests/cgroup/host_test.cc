// The cgroup manager against this host's real cgroups (hybrid here: v1
// controllers plus a cgroup2 mount). Needs root; skipped otherwise.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "base/file.h"
#include "base/scope_guard.h"
#include "base/strings.h"
#include "runtime/cgroup/attach_primer.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cgroup/hierarchy.h"

namespace vigil::runtime::cgroup::testing {
namespace {

using ::testing::Contains;

TEST(HostCgroupTest, CreateLimitJoinMeasureFreezeAndDestroy) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups under /sys/fs/cgroup";
  auto hierarchies = DiscoverHierarchies();
  ASSERT_TRUE(hierarchies) << hierarchies.error().message;
  if (FindController(*hierarchies, "memory") == nullptr ||
      FindController(*hierarchies, "pids") == nullptr) {
    GTEST_SKIP() << "this host lacks the memory or pids controller";
  }
  std::string path = StrCat("/vigil-test-", ::getpid());

  auto cg = Cgroup::Create(*hierarchies, path);
  ASSERT_TRUE(cg) << cg.error().message;
  std::vector<std::string> dirs = cg->Paths();
  ASSERT_EQ(dirs.size(), hierarchies->size());
  for (const std::string& dir : dirs) EXPECT_TRUE(std::filesystem::is_directory(dir)) << dir;

  // A child that, once in the cgroup, touches 4 MiB (charged to the cgroup:
  // v1 does not move earlier charges along), says so, and waits for EOF.
  int pipe_fds[2];
  int ack_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(ack_fds, O_CLOEXEC), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    static char memory[4 << 20];
    char c;
    ::close(pipe_fds[1]);
    if (::read(pipe_fds[0], &c, 1) != 1) ::_exit(1);
    // volatile: at -O2 the compiler drops stores nobody reads back.
    volatile char* touch = memory;
    for (std::size_t i = 0; i < sizeof memory; i += 4096) touch[i] = 1;
    if (::write(ack_fds[1], "k", 1) != 1) ::_exit(1);
    while (::read(pipe_fds[0], &c, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(pipe_fds[0]);
  ::close(ack_fds[1]);
  ScopeGuard cleanup([&] {
    (void)cg->Thaw();
    ::kill(child, SIGKILL);
    ::close(pipe_fds[1]);
    ::close(ack_fds[0]);
    ::waitpid(child, nullptr, 0);
    (void)cg->Destroy();
  });

  config::Resources resources;
  resources.memory = config::Memory{.limit = 64 << 20};
  resources.pids = config::Pids{.limit = 10};
  auto applied = cg->Apply(resources);
  ASSERT_TRUE(applied) << applied.error().message;
  ASSERT_TRUE(cg->AddProcess(child));
  char ack;
  ASSERT_EQ(::write(pipe_fds[1], "g", 1), 1);
  ASSERT_EQ(::read(ack_fds[0], &ack, 1), 1);

  auto pids = cg->Processes();
  ASSERT_TRUE(pids) << pids.error().message;
  EXPECT_THAT(*pids, Contains(child));

  auto stats = cg->ReadStats();
  ASSERT_TRUE(stats) << stats.error().message;
  ASSERT_TRUE(stats->memory);
  EXPECT_EQ(stats->memory->limit, 64u << 20);
  EXPECT_GE(stats->memory->usage, 4u << 20);
  ASSERT_TRUE(stats->pids);
  EXPECT_EQ(stats->pids->current, 1u);
  EXPECT_EQ(stats->pids->limit, 10u);
  ASSERT_TRUE(stats->cpu);

  auto frozen = cg->Freeze();
  ASSERT_TRUE(frozen) << frozen.error().message;
  EXPECT_TRUE(*cg->Frozen());
  ASSERT_TRUE(cg->Thaw());
  EXPECT_FALSE(*cg->Frozen());

  // Let the child exit; then the cgroup can go.
  ::close(pipe_fds[1]);
  ::close(ack_fds[0]);
  pipe_fds[1] = ack_fds[0] = -1;
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto destroyed = cg->Destroy();
  ASSERT_TRUE(destroyed) << destroyed.error().message;
  for (const std::string& dir : dirs) EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
  cleanup.Dismiss();
}

// The primer's write moves the process into the cgroup it is already in:
// shown from a process in a cgroup of its own (the test's is the root,
// where a write to the wrong cgroup.procs would change nothing either).
TEST(HostCgroupTest, TheAttachPrimerLeavesTheProcessInItsCgroups) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups under /sys/fs/cgroup";
  auto hierarchies = DiscoverHierarchies();
  ASSERT_TRUE(hierarchies) << hierarchies.error().message;
  auto cg = Cgroup::Create(*hierarchies, StrCat("/vigil-primer-test-", ::getpid()));
  ASSERT_TRUE(cg) << cg.error().message;
  ScopeGuard destroy([&] { (void)cg->Destroy(); });
  int go[2];
  ASSERT_EQ(::pipe2(go, O_CLOEXEC), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(2);
    Result<std::string> before = ReadFile("/proc/self/cgroup", 65536);
    { const AttachPrimer primer = AttachPrimer::Start(); }  // waits for the write
    Result<std::string> after = ReadFile("/proc/self/cgroup", 65536);
    ::_exit(before && after && *before == *after &&
                    before->find("vigil-primer-test") != std::string::npos
                ? 0
                : 1);
  }
  ::close(go[0]);
  ASSERT_TRUE(cg->AddProcess(child));
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

}  // namespace
}  // namespace vigil::runtime::cgroup::testing
