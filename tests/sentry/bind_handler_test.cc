// bind(2) against a fake tracee whose "workload" is this test process: its
// sockets are real, so what the sentry binds on its behalf can be observed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kAddress = FakeTracee::kBase;

config::Policy Parse(const std::string& text) {
  Result<config::Policy> policy = config::ParsePolicy(text);
  EXPECT_TRUE(policy) << policy.error().message;
  return policy ? *policy : config::Policy{};
}

sockaddr_in Ipv4(const char* ip, std::uint16_t port) {
  sockaddr_in in{.sin_family = AF_INET, .sin_port = htons(port)};
  EXPECT_EQ(::inet_pton(AF_INET, ip, &in.sin_addr), 1);
  return in;
}

sockaddr_un UnixAddress(const std::string& path) {
  sockaddr_un un{.sun_family = AF_UNIX};
  std::memcpy(un.sun_path, path.data(), std::min(path.size(), sizeof un.sun_path));
  return un;
}

std::uint16_t PortOf(int fd) {
  sockaddr_in in{};
  socklen_t size = sizeof in;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&in), &size) != 0) return 0;
  return ntohs(in.sin_port);
}

UniqueFd Socket(int domain, int type, int protocol = 0) {
  return UniqueFd(::socket(domain, type | SOCK_CLOEXEC, protocol));
}

// A directory standing for the container's root, removed afterwards.
struct FakeRoot {
  FakeRoot() {
    char tmpl[] = "/tmp/vigil-bind-root-XXXXXX";
    EXPECT_NE(::mkdtemp(tmpl), nullptr);
    path = tmpl;
    ::chmod(path.c_str(), 0755);
    std::filesystem::create_directories(path + "/run");
  }
  ~FakeRoot() { std::filesystem::remove_all(path); }
  std::string path;
};

class BindHandler : public ::testing::Test {
 protected:
  // IPv4 loopback on every port; no unix sockets unless a test turns them
  // on. The fake container shares the test's network: its loopback is no
  // exception.
  void SetUp() override {
    policy_ = Parse(R"({"network": {"egress": "deny", "unix": false, "allow": [
        {"cidr": "127.0.0.0/8", "ports": ["1-65535"]}]}})");
    sandbox_.policy = &policy_;
  }

  Verdict Bind(int fd, std::uint64_t address, std::uint64_t length) {
    SyscallEvent event{.tid = ::gettid(),
                       .number = SYS_bind,
                       .args = {static_cast<std::uint64_t>(fd), address, length}};
    HandlerContext context{
        .event = event, .tracee = tracee_, .sandbox = sandbox_, .wait = [](int, std::uint32_t) {
          return Result<void>();
        }};
    Verdict verdict = HandleAsLoop(FindSyscall(SYS_bind)->handler, context);
    audit_args_ = context.audit_args;
    return verdict;
  }

  template <typename T>
  Verdict BindTo(int fd, const T& address, std::uint64_t length = sizeof(T)) {
    EXPECT_TRUE(tracee_.WriteObject(kAddress, address));
    return Bind(fd, kAddress, length);
  }

  std::string Audited(const std::string& name) const {
    for (const AuditValue& arg : audit_args_) {
      if (arg.name == name) return arg.value;
    }
    return "(none)";
  }

  config::Policy policy_;
  Sandbox sandbox_;
  FakeTracee tracee_{4096};
  AuditArgs audit_args_;
};

TEST_F(BindHandler, AnAllowedAddressIsBoundOnTheWorkloadsSocket) {
  UniqueFd socket = Socket(AF_INET, SOCK_STREAM);
  Verdict verdict = BindTo(socket.Get(), Ipv4("127.0.0.1", 0));
  EXPECT_EQ(verdict.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_NE(PortOf(socket.Get()), 0) << "the workload's socket is not bound";
  EXPECT_EQ(Audited("address"), "127.0.0.1:0");
}

TEST_F(BindHandler, AnAddressOutsideTheAllowListIsRefusedAndNotBound) {
  UniqueFd socket = Socket(AF_INET, SOCK_STREAM);
  Verdict verdict = BindTo(socket.Get(), Ipv4("0.0.0.0", 0));
  EXPECT_EQ(verdict.error, EACCES);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_EQ(PortOf(socket.Get()), 0);
  EXPECT_EQ(Audited("address"), "0.0.0.0:0");
}

// A server in a network namespace of the container's own (uvicorn on
// 0.0.0.0:8000 under agent, published by `docker run -p`): every address
// there is the container's, whatever the allow-list says of egress.
TEST_F(BindHandler, InItsOwnNetworkAContainerBindsAnyAddress) {
  sandbox_.own_network = true;
  UniqueFd socket = Socket(AF_INET, SOCK_STREAM);
  Verdict verdict = BindTo(socket.Get(), Ipv4("0.0.0.0", 0));
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_NE(PortOf(socket.Get()), 0);
  // :: too, which on a dual-stack socket takes IPv4 as well.
  Destination any;
  any.address.ss_family = AF_INET6;
  any.length = sizeof(sockaddr_in6);
  EXPECT_EQ(BindVerdict(sandbox_, any), 0);
  // In a namespace shared with the host, the allow-list decides.
  sandbox_.own_network = false;
  EXPECT_EQ(BindVerdict(sandbox_, any), EACCES);
}

TEST_F(BindHandler, TheKernelsAnswerIsReturned) {
  UniqueFd first = Socket(AF_INET, SOCK_STREAM);
  ASSERT_EQ(BindTo(first.Get(), Ipv4("127.0.0.1", 0)).error, 0);
  const std::uint16_t port = PortOf(first.Get());
  UniqueFd second = Socket(AF_INET, SOCK_STREAM);
  EXPECT_EQ(BindTo(second.Get(), Ipv4("127.0.0.1", port)).error, EADDRINUSE);
  // Bound already: EINVAL, as the kernel answers a second bind.
  EXPECT_EQ(BindTo(first.Get(), Ipv4("127.0.0.1", 0)).error, EINVAL);
}

TEST_F(BindHandler, BadArgumentsFailAsTheKernelWould) {
  UniqueFd socket = Socket(AF_INET, SOCK_STREAM);
  const int fd = socket.Get();
  EXPECT_EQ(Bind(fd, 0x1, sizeof(sockaddr_in)).error, EFAULT);
  EXPECT_EQ(Bind(fd, kAddress, 4096).error, EINVAL);
  EXPECT_EQ(Bind(fd, kAddress, 1).error, EINVAL);
  // Too short for its family: the kernel's EINVAL, not the policy's EACCES.
  EXPECT_EQ(BindTo(fd, Ipv4("0.0.0.0", 0), sizeof(sockaddr_in) - 1).error, EINVAL);
  EXPECT_EQ(PortOf(fd), 0);
  // The descriptor comes first, as in the kernel.
  EXPECT_EQ(Bind(9999, 0x1, sizeof(sockaddr_in)).error, EBADF);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  EXPECT_EQ(BindTo(read_end.Get(), Ipv4("127.0.0.1", 0)).error, ENOTSOCK);
}

TEST_F(BindHandler, AStaleNotificationBindsNothing) {
  UniqueFd socket = Socket(AF_INET, SOCK_STREAM);
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Ipv4("127.0.0.1", 0)));
  tracee_.valid = false;
  EXPECT_EQ(Bind(socket.Get(), kAddress, sizeof(sockaddr_in)).kind, Verdict::Kind::kStale);
  EXPECT_EQ(PortOf(socket.Get()), 0);
}

TEST_F(BindHandler, UnixSocketsFollowThePolicy) {
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  sockaddr_un abstract{.sun_family = AF_UNIX};
  std::memcpy(abstract.sun_path, "\0vigil-bind-refused", 19);
  Verdict verdict = BindTo(socket.Get(), abstract, offsetof(sockaddr_un, sun_path) + 19);
  EXPECT_EQ(verdict.error, EACCES);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
}

TEST_F(BindHandler, AbstractAddressesAndAutobindAreBoundAsGiven) {
  policy_.unix_sockets = true;
  sandbox_.own_network = true;  // abstract names are then the container's own
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  const std::string name = StrCat("vigil-bind-", ::getpid());
  sockaddr_un abstract{.sun_family = AF_UNIX};
  std::memcpy(abstract.sun_path + 1, name.data(), name.size());
  const socklen_t length = offsetof(sockaddr_un, sun_path) + 1 + name.size();
  ASSERT_EQ(BindTo(socket.Get(), abstract, length).error, 0);
  EXPECT_EQ(Audited("address"), "unix:@" + name);
  sockaddr_un got{};
  socklen_t size = sizeof got;
  ASSERT_EQ(::getsockname(socket.Get(), reinterpret_cast<sockaddr*>(&got), &size), 0);
  EXPECT_EQ(size, length);
  EXPECT_EQ(std::string(got.sun_path + 1, name.size()), name);

  UniqueFd autobound = Socket(AF_UNIX, SOCK_DGRAM);
  ASSERT_EQ(BindTo(autobound.Get(), sockaddr_un{.sun_family = AF_UNIX}, sizeof(sa_family_t)).error,
            0);
  size = sizeof got;
  ASSERT_EQ(::getsockname(autobound.Get(), reinterpret_cast<sockaddr*>(&got), &size), 0);
  EXPECT_GT(size, sizeof(sa_family_t)) << "autobind gave the socket no name";
  EXPECT_EQ(got.sun_path[0], '\0');
}

// The socket file is created in the container's root: /run here is a
// symlink that, absolute, stays inside it.
TEST_F(BindHandler, AUnixPathIsCreatedInsideTheWorkloadsRoot) {
  policy_.unix_sockets = true;
  FakeRoot root;
  std::filesystem::create_directories(root.path + "/var/real");
  std::filesystem::create_directory_symlink("/var/real", root.path + "/sockets");
  tracee_.root = root.path;
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  Verdict verdict = BindTo(socket.Get(), UnixAddress("/sockets/a.sock"));
  ASSERT_EQ(verdict.error, 0);
  struct stat st {};
  ASSERT_EQ(::lstat((root.path + "/var/real/a.sock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists("/var/real/a.sock"));
  EXPECT_EQ(Audited("address"), "unix:/sockets/a.sock");
  EXPECT_EQ(Audited("resolved"), "/var/real/a.sock");
  // It is a working listener at that path.
  ASSERT_EQ(::listen(socket.Get(), 1), 0);
  UniqueFd client = Socket(AF_UNIX, SOCK_STREAM);
  sockaddr_un there = UnixAddress(root.path + "/var/real/a.sock");
  EXPECT_EQ(::connect(client.Get(), reinterpret_cast<sockaddr*>(&there), sizeof there), 0);
  // The same name again: the kernel's EADDRINUSE.
  UniqueFd again = Socket(AF_UNIX, SOCK_STREAM);
  EXPECT_EQ(BindTo(again.Get(), UnixAddress("/var/real/a.sock")).error, EADDRINUSE);
}

TEST_F(BindHandler, ARelativeUnixPathStartsAtTheWorkingDirectory) {
  policy_.unix_sockets = true;
  FakeRoot root;
  tracee_.root = root.path;
  tracee_.cwd = "/run";
  UniqueFd socket = Socket(AF_UNIX, SOCK_DGRAM);
  ASSERT_EQ(BindTo(socket.Get(), UnixAddress("../rel.sock")).error, 0);
  EXPECT_TRUE(std::filesystem::is_socket(root.path + "/rel.sock"));
  EXPECT_EQ(Audited("resolved"), "/rel.sock");
}

// Under a file policy the path is a create, decided like mknod's.
TEST_F(BindHandler, TheFilePolicyDecidesTheSocketFile) {
  policy_ = Parse(R"({"network": {"unix": true, "egress": "deny"},
      "files": {"default": "read", "rules": [{"path": "/run/**", "access": "write"},
                                              {"path": "/secret/**", "access": "hidden"}]}})");
  FakeRoot root;
  std::filesystem::create_directories(root.path + "/etc");
  std::filesystem::create_directories(root.path + "/secret");
  tracee_.root = root.path;
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  Verdict read_only = BindTo(socket.Get(), UnixAddress("/etc/x.sock"));
  EXPECT_EQ(read_only.error, EACCES);
  EXPECT_EQ(read_only.decision, Decision::kDeny);
  EXPECT_FALSE(std::filesystem::exists(root.path + "/etc/x.sock"));
  EXPECT_EQ(BindTo(socket.Get(), UnixAddress("/secret/x.sock")).error, ENOENT);
  EXPECT_EQ(BindTo(socket.Get(), UnixAddress("/run/x.sock")).error, 0);
  EXPECT_TRUE(std::filesystem::is_socket(root.path + "/run/x.sock"));
}

// Under a policy that refuses no address and no file, a bind is decided,
// audited and left to the kernel, which keeps the name as written; a file
// rule that takes anything away keeps it the sentry's.
TEST_F(BindHandler, UnderAPolicyRefusingNoAddressNorFileTheKernelBinds) {
  policy_ = Parse("{}");
  FakeRoot root;
  tracee_.root = root.path;
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  EXPECT_EQ(BindTo(socket.Get(), UnixAddress("/run/x.sock")).kind, Verdict::Kind::kContinue);
  EXPECT_EQ(Audited("address"), "unix:/run/x.sock");
  EXPECT_FALSE(std::filesystem::exists(root.path + "/run/x.sock"));
  UniqueFd ip = Socket(AF_INET, SOCK_STREAM);
  EXPECT_EQ(BindTo(ip.Get(), Ipv4("127.0.0.1", 0)).kind, Verdict::Kind::kContinue);

  policy_ =
      Parse(R"({"files": {"default": "read", "rules": [{"path": "/run/**", "access": "write"}]}})");
  Verdict made = BindTo(socket.Get(), UnixAddress("/run/x.sock"));
  EXPECT_EQ(made.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(made.error, 0);
  EXPECT_TRUE(std::filesystem::is_socket(root.path + "/run/x.sock"));
}

TEST_F(BindHandler, ARewrittenPathThatDoesNotFitIsTooLong) {
  policy_.unix_sockets = true;
  FakeRoot root;
  tracee_.root = root.path;
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  // Fits the workload's sun_path, not /proc/self/fd/N/ in front of it.
  const std::string name(95, 'n');
  Verdict verdict = BindTo(socket.Get(), UnixAddress("/" + name));
  EXPECT_EQ(verdict.error, ENAMETOOLONG);
  EXPECT_FALSE(std::filesystem::exists(root.path + "/" + name));
  // Past sockaddr_un: the kernel's EINVAL.
  EXPECT_EQ(Bind(socket.Get(), kAddress, sizeof(sockaddr_un) + 1).error, EINVAL);
}

// The file is the workload's: its directory permission and its owner.
TEST_F(BindHandler, TheSocketFileIsCreatedWithTheWorkloadsCredentials) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  policy_.unix_sockets = true;
  FakeRoot root;
  std::filesystem::create_directories(root.path + "/mine");
  ASSERT_EQ(::chown((root.path + "/mine").c_str(), 1000, 1000), 0);
  tracee_.root = root.path;
  tracee_.fsuid = 1000;
  tracee_.fsgid = 1000;
  tracee_.capabilities = 0;
  UniqueFd refused = Socket(AF_UNIX, SOCK_STREAM);
  EXPECT_EQ(BindTo(refused.Get(), UnixAddress("/run/root-only.sock")).error, EACCES);
  UniqueFd socket = Socket(AF_UNIX, SOCK_STREAM);
  ASSERT_EQ(BindTo(socket.Get(), UnixAddress("/mine/user.sock")).error, 0);
  struct stat st {};
  ASSERT_EQ(::lstat((root.path + "/mine/user.sock").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1000u);
  EXPECT_EQ(st.st_gid, 1000u);
  EXPECT_EQ(st.st_mode & 0777, 0755u);  // the workload's umask, 022
}

// Ports below ip_unprivileged_port_start need the workload's
// CAP_NET_BIND_SERVICE, not the sentry's.
TEST_F(BindHandler, APrivilegedPortNeedsTheWorkloadsCapability) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to hold CAP_NET_BIND_SERVICE";
  int start = 1024;
  std::ifstream("/proc/sys/net/ipv4/ip_unprivileged_port_start") >> start;
  if (start <= 1) GTEST_SKIP() << "every port is unprivileged here";
  const std::uint16_t port = static_cast<std::uint16_t>(start - 1);
  UniqueFd socket = Socket(AF_INET, SOCK_DGRAM);
  tracee_.capabilities = 0;
  EXPECT_EQ(BindTo(socket.Get(), Ipv4("127.0.0.1", port)).error, EACCES);
  EXPECT_EQ(PortOf(socket.Get()), 0);
  tracee_.capabilities = std::uint64_t{1} << CAP_NET_BIND_SERVICE;
  const int error = BindTo(socket.Get(), Ipv4("127.0.0.1", port)).error;
  if (error == EADDRINUSE) GTEST_SKIP() << "port " << port << " is in use here";
  EXPECT_EQ(error, 0);
  EXPECT_EQ(PortOf(socket.Get()), port);
}

// A netlink bind names the socket's port id: the workload's tgid when the
// kernel would choose, as it would for the workload.
TEST_F(BindHandler, ANetlinkBindTakesTheWorkloadsPortId) {
  UniqueFd socket = Socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
  ASSERT_TRUE(socket);
  tracee_.ns_tgid = 0x3ff00000 + (::getpid() & 0xffff);
  sockaddr_nl nl{.nl_family = AF_NETLINK};
  ASSERT_EQ(BindTo(socket.Get(), nl).error, 0);
  sockaddr_nl got{};
  socklen_t size = sizeof got;
  ASSERT_EQ(::getsockname(socket.Get(), reinterpret_cast<sockaddr*>(&got), &size), 0);
  EXPECT_EQ(got.nl_pid, static_cast<__u32>(tracee_.ns_tgid));
  // That id taken: the kernel's own choice, as netlink_autobind falls back.
  UniqueFd other = Socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
  ASSERT_EQ(BindTo(other.Get(), nl).error, 0);
  size = sizeof got;
  ASSERT_EQ(::getsockname(other.Get(), reinterpret_cast<sockaddr*>(&got), &size), 0);
  EXPECT_NE(got.nl_pid, 0u);
  EXPECT_NE(got.nl_pid, static_cast<__u32>(tracee_.ns_tgid));
}

}  // namespace
}  // namespace vigil::sentry
