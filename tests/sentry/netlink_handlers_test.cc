// NETLINK_ROUTE read-only: the socket the sentry opens for the workload
// refuses changes to the network even to a caller holding CAP_NET_ADMIN,
// and answers queries. Each test runs in a child in a network namespace of
// its own (root needed), so that a failure cannot touch the host's.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kAddress = FakeTracee::kBase;
constexpr std::uint64_t kPayload = FakeTracee::kBase + 1024;

struct LinkRequest {
  nlmsghdr header;
  ifinfomsg link;
};

// RTM_NEWLINK setting lo up (a change), or RTM_GETLINK dumping every link.
LinkRequest Request(bool change) {
  LinkRequest request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = change ? RTM_NEWLINK : RTM_GETLINK;
  request.header.nlmsg_flags = NLM_F_REQUEST | (change ? NLM_F_ACK : NLM_F_DUMP);
  request.header.nlmsg_seq = 1;
  request.link.ifi_family = AF_UNSPEC;
  if (change) {
    request.link.ifi_index = static_cast<int>(::if_nametoindex("lo"));
    request.link.ifi_flags = IFF_UP;
    request.link.ifi_change = IFF_UP;
  }
  return request;
}

// The answer to one request: an ack's error, or 1 for a dump that ended
// (NLMSG_DONE) after at least one link; -errno of a failed receive.
int Reply(int socket) {
  int links = 0;
  for (;;) {
    alignas(nlmsghdr) char buffer[32768];
    ssize_t got = ::recv(socket, buffer, sizeof buffer, 0);
    if (got < 0) return -errno;
    auto left = static_cast<unsigned>(got);
    for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, left);
         header = NLMSG_NEXT(header, left)) {
      if (header->nlmsg_type == NLMSG_ERROR) {
        return reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(header))->error;
      }
      if (header->nlmsg_type == NLMSG_DONE) return links > 0 ? 1 : 0;
      if (header->nlmsg_type == RTM_NEWLINK) ++links;
    }
  }
}

// Runs `body` in a child in a new network namespace; the child's gtest
// failures fail the test.
void InOwnNetwork(const std::function<void()>& body) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for a network namespace";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(3);
    body();
    ::_exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

class NetlinkHandlers : public ::testing::Test {
 protected:
  void SetUp() override { sandbox_.policy = &policy_; }

  Verdict Call(int number, std::array<std::uint64_t, 6> args) {
    SyscallEvent event{.tid = ::gettid(), .number = number, .args = args};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    return HandleAsLoop(FindSyscall(number)->handler, context);
  }

  Verdict Socket(int type) {
    return Call(SYS_socket, {AF_NETLINK, static_cast<std::uint64_t>(type), NETLINK_ROUTE});
  }

  config::Policy policy_;  // egress allowed, unix sockets allowed
  Sandbox sandbox_;
  FakeTracee tracee_{4096};
};

TEST_F(NetlinkHandlers, TheSocketAnswersQueriesAndRefusesChanges) {
  InOwnNetwork([this] {
    Verdict verdict = Socket(SOCK_RAW | SOCK_CLOEXEC);
    ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
    EXPECT_TRUE(verdict.cloexec);
    const int socket = verdict.fd->Get();
    int protocol = -1;
    socklen_t size = sizeof protocol;
    ASSERT_EQ(::getsockopt(socket, SOL_SOCKET, SO_PROTOCOL, &protocol, &size), 0);
    EXPECT_EQ(protocol, NETLINK_ROUTE);
    // This process holds CAP_NET_ADMIN; the socket's opener did not.
    const LinkRequest get = Request(false), change = Request(true);
    ASSERT_EQ(::write(socket, &get, sizeof get), static_cast<ssize_t>(sizeof get));
    EXPECT_EQ(Reply(socket), 1) << "the dump lists lo";
    int other = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    ASSERT_GE(other, 0);
    ASSERT_EQ(::write(other, &change, sizeof change), static_cast<ssize_t>(sizeof change));
    EXPECT_EQ(Reply(other), 0) << "a socket this process opened may change the network";
    ::close(other);
    ASSERT_EQ(::write(socket, &change, sizeof change), static_cast<ssize_t>(sizeof change));
    EXPECT_EQ(Reply(socket), -EPERM);
  });
}

TEST_F(NetlinkHandlers, FlagsAreTheWorkloads) {
  InOwnNetwork([this] {
    Verdict verdict = Socket(SOCK_DGRAM | SOCK_NONBLOCK);
    ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
    EXPECT_FALSE(verdict.cloexec);
    EXPECT_NE(::fcntl(verdict.fd->Get(), F_GETFL) & O_NONBLOCK, 0);
    // What the kernel refuses, it refuses: an unknown flag, a stream socket.
    EXPECT_EQ(Socket(SOCK_RAW | 0x100000).error, EINVAL);
    EXPECT_EQ(Socket(SOCK_STREAM).error, ESOCKTNOSUPPORT);
  });
}

// An explicit destination makes the kernel count the sender alone (the
// sentry, when it sends): the sentry sends to the kernel without it, and
// refuses other destinations.
TEST_F(NetlinkHandlers, SendtoTheKernelIsSentAsReadOnly) {
  InOwnNetwork([this] {
    Verdict verdict = Socket(SOCK_RAW | SOCK_CLOEXEC);
    ASSERT_EQ(verdict.kind, Verdict::Kind::kInstallFd) << verdict.error;
    const int socket = verdict.fd->Get();
    const LinkRequest change = Request(true);
    sockaddr_nl kernel{.nl_family = AF_NETLINK};
    // What the kernel itself does with an explicit destination:
    ASSERT_EQ(::sendto(socket, &change, sizeof change, 0, reinterpret_cast<sockaddr*>(&kernel),
                       sizeof kernel),
              static_cast<ssize_t>(sizeof change));
    EXPECT_EQ(Reply(socket), 0) << "the kernel checked the opener for an explicit destination";
    ASSERT_TRUE(tracee_.WriteObject(kAddress, kernel));
    ASSERT_TRUE(tracee_.WriteObject(kPayload, change));
    const auto fd = static_cast<std::uint64_t>(socket);
    Verdict sent = Call(SYS_sendto, {fd, kPayload, sizeof change, 0, kAddress, sizeof kernel});
    EXPECT_EQ(sent.error, 0);
    EXPECT_EQ(sent.value, static_cast<std::int64_t>(sizeof change));
    EXPECT_EQ(Reply(socket), -EPERM);

    sockaddr_nl process{.nl_family = AF_NETLINK, .nl_pid = 4242};
    ASSERT_TRUE(tracee_.WriteObject(kAddress, process));
    Verdict refused = Call(SYS_sendto, {fd, kPayload, sizeof change, 0, kAddress, sizeof process});
    EXPECT_EQ(refused.error, EPERM);
    EXPECT_EQ(refused.decision, Decision::kDeny);
    EXPECT_EQ(Call(SYS_connect, {fd, kAddress, sizeof process}).error, EPERM);
    EXPECT_EQ(
        Call(SYS_sendto, {fd, kPayload, sizeof change, 0, kAddress, sizeof process - 1}).error,
        EINVAL);
  });
}

TEST_F(NetlinkHandlers, NothingIsOpenedForAStaleCall) {
  InOwnNetwork([this] {
    tracee_.valid = false;
    EXPECT_EQ(Socket(SOCK_RAW).kind, Verdict::Kind::kStale);
    tracee_.valid = true;
    EXPECT_EQ(Call(SYS_socket, {AF_NETLINK, SOCK_RAW, NETLINK_AUDIT}).error, EAFNOSUPPORT);
  });
}

}  // namespace
}  // namespace vigil::sentry
