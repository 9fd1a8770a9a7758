// Who may give a supervisor orders over its control socket: the runtime's
// callers, in the supervisor's own pid namespace; never a process of its
// container, nor one of another sandbox (a pid namespace below), which a
// state root bound into that sandbox would let connect.
#include "supervisor/control_peers.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

namespace vigil::supervisor {
namespace {

using ::testing::HasSubstr;

// A process that sleeps in a pid namespace of its own, as a container's
// init: its pid in ours, and that of our child that made it. It dies with
// that child (PR_SET_PDEATHSIG).
std::pair<pid_t, pid_t> SleeperInNewPidNamespace() {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return {-1, -1};
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::unshare(CLONE_NEWPID) != 0) ::_exit(2);
    const pid_t inner = ::fork();
    if (inner == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::pause();
      ::_exit(0);
    }
    (void)!::write(report[1], &inner, sizeof inner);
    ::waitpid(inner, nullptr, 0);
    ::_exit(0);
  }
  ::close(report[1]);
  pid_t inner = -1;
  if (::read(report[0], &inner, sizeof inner) != sizeof inner) inner = -1;
  ::close(report[0]);
  return {pid, inner};
}

class ControlPeersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make pid namespaces";
    path_ = dir_.Join("control.sock");
    listening_ = UniqueFd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un address{.sun_family = AF_UNIX};
    std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(::bind(listening_.Get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listening_.Get(), 4), 0);
  }

  // Connects from a process in a new pid namespace (as a sandbox's would),
  // or from a child in ours; returns the accepted end.
  UniqueFd ConnectFrom(bool new_pid_namespace) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (new_pid_namespace && ::unshare(CLONE_NEWPID) != 0) ::_exit(2);
      const pid_t inner = new_pid_namespace ? ::fork() : 0;
      if (inner == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        sockaddr_un address{.sun_family = AF_UNIX};
        std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) ::_exit(3);
        char byte;
        (void)::read(fd, &byte, 1);  // held open until the test closes its end
        ::_exit(0);
      }
      int status = 0;
      ::waitpid(inner, &status, 0);
      ::_exit(0);
    }
    children_.push_back(pid);
    return UniqueFd(::accept4(listening_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  }

  void TearDown() override {
    for (pid_t pid : children_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

  test::TempDir dir_{"control-peers"};
  std::string path_;
  UniqueFd listening_;
  std::vector<pid_t> children_;
};

TEST_F(ControlPeersTest, TheRuntimesCallerMayAnotherSandboxMayNot) {
  const auto [made_it, container] = SleeperInNewPidNamespace();
  children_.push_back(made_it);
  ASSERT_GT(container, 0);
  Result<ControlPeers> peers = ControlPeers::For(container);
  ASSERT_TRUE(peers) << peers.error().message;
  UniqueFd caller = ConnectFrom(/*new_pid_namespace=*/false);
  ASSERT_TRUE(caller);
  EXPECT_TRUE(peers->Check(caller.Get()));
  // Another sandbox: not this container's pid namespace, but one below the
  // runtime's all the same.
  UniqueFd other = ConnectFrom(/*new_pid_namespace=*/true);
  ASSERT_TRUE(other);
  Result<void> refused = peers->Check(other.Get());
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("a pid namespace below the runtime's"));
}

}  // namespace
}  // namespace vigil::supervisor
