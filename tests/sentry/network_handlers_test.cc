// The network handlers' sends, unix destinations and the identity they
// act with, against a fake tracee whose "workload" is this test process
// (network_fixture.h); the decisions on IP connects are in
// egress_handlers_test.cc.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>

#include "base/strings.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/handler.h"
#include "tests/sentry/fake_tracee.h"
#include "tests/sentry/handle_as_loop.h"
#include "tests/sentry/network_fixture.h"

namespace vigil::sentry {
namespace {

TEST_F(NetworkHandlers, SendtoSendsTheCopiedBytesToTheDecidedDestination) {
  UniqueFd receiver(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in in = Loopback(0);
  ASSERT_EQ(::bind(receiver.Get(), reinterpret_cast<sockaddr*>(&in), sizeof in), 0);
  socklen_t size = sizeof in;
  ::getsockname(receiver.Get(), reinterpret_cast<sockaddr*>(&in), &size);
  policy_ = DenyAllButPort(ntohs(in.sin_port));
  UniqueFd sender(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, in));
  ASSERT_TRUE(tracee_.Write(kPayload, std::as_bytes(std::span("datagram", 8))));
  Verdict verdict = Call(
      SYS_sendto, {static_cast<std::uint64_t>(sender.Get()), kPayload, 8, 0, kAddress, sizeof in});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.value, 8);
  char got[16] = {};
  EXPECT_EQ(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 8);
  EXPECT_STREQ(got, "datagram");
}

// A UDP socket sends an AF_UNSPEC destination to the IPv4 address after
// the family (udp_sendmsg): judged as that address, it does not slip past
// the allow-list. connect(AF_UNSPEC) only dissolves an association.
TEST_F(NetworkHandlers, AnUnspecifiedFamilyIsJudgedAsTheIpv4AddressItSendsTo) {
  UniqueFd receiver(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in in = Loopback(0);
  ASSERT_EQ(::bind(receiver.Get(), reinterpret_cast<sockaddr*>(&in), sizeof in), 0);
  socklen_t size = sizeof in;
  ::getsockname(receiver.Get(), reinterpret_cast<sockaddr*>(&in), &size);
  // Natively the kernel delivers it: the bypass this closes.
  UniqueFd sender(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in unspecified = in;
  unspecified.sin_family = AF_UNSPEC;
  ASSERT_EQ(::sendto(sender.Get(), "x", 1, 0, reinterpret_cast<sockaddr*>(&unspecified),
                     sizeof unspecified),
            1);
  char got[4] = {};
  ASSERT_EQ(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 1);

  // The allow-list names another port: the send is refused, nothing sent.
  ASSERT_TRUE(tracee_.WriteObject(kAddress, unspecified));
  ASSERT_TRUE(tracee_.Write(kPayload, std::as_bytes(std::span("datagram", 8))));
  Verdict verdict = Call(SYS_sendto, {static_cast<std::uint64_t>(sender.Get()), kPayload, 8, 0,
                                      kAddress, sizeof unspecified});
  EXPECT_EQ(verdict.error, ENETUNREACH);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_LT(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 0);

  // Allowed, it is sent where the kernel sends it.
  policy_ = DenyAllButPort(ntohs(in.sin_port));
  verdict = Call(SYS_sendto, {static_cast<std::uint64_t>(sender.Get()), kPayload, 8, 0, kAddress,
                              sizeof unspecified});
  EXPECT_EQ(verdict.value, 8);
  EXPECT_EQ(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 4);

  // connect(AF_UNSPEC), whatever follows the family, dissolves.
  Destination dissolve;
  std::memcpy(&dissolve.address, &unspecified, sizeof unspecified);
  dissolve.length = sizeof unspecified;
  policy_ = DenyAllButPort(1);
  EXPECT_EQ(EgressVerdict(sandbox_, dissolve, Egress::kConnect), 0);
  EXPECT_EQ(EgressVerdict(sandbox_, dissolve, Egress::kSend), ENETUNREACH);
}

// An abstract unix address unique to this process.
std::pair<sockaddr_un, socklen_t> AbstractAddress(const char* name) {
  sockaddr_un un{.sun_family = AF_UNIX};
  const std::string text = StrCat(name, "-", ::getpid());
  std::memcpy(un.sun_path + 1, text.data(), text.size());
  return {un, static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + text.size())};
}

// The peer of a unix connect or send the sentry makes learns the
// workload's ids, not the sentry's root: SO_PEERCRED (the effective ids)
// on a connection, SCM_CREDENTIALS (the real ids) with SO_PASSCRED.
TEST_F(NetworkHandlers, AUnixPeerLearnsTheWorkloadsIdsNotTheSentrys) {
  policy_.unix_sockets = true;
  sandbox_.own_network = true;  // the abstract names below are the container's
  tracee_.ruid = tracee_.euid = tracee_.fsuid = 1000;
  tracee_.rgid = tracee_.egid = tracee_.fsgid = 1001;
  auto [address, length] = AbstractAddress("vigil-peer");
  UniqueFd server(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_EQ(::bind(server.Get(), reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(::listen(server.Get(), 1), 0);
  UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, address));
  ASSERT_EQ(Call(SYS_connect, {static_cast<std::uint64_t>(client.Get()), kAddress, length}).error,
            0);
  UniqueFd accepted(::accept4(server.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  ucred peer{};
  socklen_t size = sizeof peer;
  ASSERT_EQ(::getsockopt(accepted.Get(), SOL_SOCKET, SO_PEERCRED, &peer, &size), 0);
  EXPECT_EQ(peer.uid, 1000u);
  EXPECT_EQ(peer.gid, 1001u);

  auto [dgram_address, dgram_length] = AbstractAddress("vigil-passcred");
  UniqueFd receiver(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const int on = 1;
  ASSERT_EQ(::setsockopt(receiver.Get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on), 0);
  ASSERT_EQ(::bind(receiver.Get(), reinterpret_cast<sockaddr*>(&dgram_address), dgram_length), 0);
  UniqueFd sender(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, dgram_address));
  ASSERT_TRUE(tracee_.WriteObject(kPayload, 'x'));
  ASSERT_EQ(Call(SYS_sendto,
                 {static_cast<std::uint64_t>(sender.Get()), kPayload, 1, 0, kAddress, dgram_length})
                .error,
            0);
  char byte = 0;
  iovec iov{.iov_base = &byte, .iov_len = 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))] = {};
  msghdr message{
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  ASSERT_EQ(::recvmsg(receiver.Get(), &message, 0), 1);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
  ASSERT_NE(cmsg, nullptr);
  ASSERT_EQ(cmsg->cmsg_type, SCM_CREDENTIALS);
  ucred sent{};
  std::memcpy(&sent, CMSG_DATA(cmsg), sizeof sent);
  EXPECT_EQ(sent.uid, 1000u);
  EXPECT_EQ(sent.gid, 1001u);
  EXPECT_EQ(sent.pid, ::getpid());  // the workload's (the fake's is this process)
  // And the sentry is itself again.
  EXPECT_EQ(::geteuid(), 0u);
  EXPECT_EQ(::getgid(), 0u);
}

// A descriptor passed with sendmsg arrives as a working duplicate.
TEST_F(NetworkHandlers, SendmsgPassesDescriptorsAlong) {
  policy_.unix_sockets = true;
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair), 0);
  UniqueFd ours(pair[0]), theirs(pair[1]);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);

  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
  header.msg_iov = reinterpret_cast<iovec*>(kIov);
  header.msg_iovlen = 1;
  header.msg_control = reinterpret_cast<void*>(kControl);
  header.msg_controllen = sizeof control;
  msghdr layout{};
  layout.msg_control = control;
  layout.msg_controllen = sizeof control;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&layout);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  int passed = write_end.Get();
  std::memcpy(CMSG_DATA(cmsg), &passed, sizeof passed);
  iovec iov{.iov_base = reinterpret_cast<void*>(kPayload), .iov_len = 3};
  ASSERT_TRUE(tracee_.WriteObject(kHeader, header));
  ASSERT_TRUE(tracee_.WriteObject(kIov, iov));
  ASSERT_TRUE(tracee_.Write(kControl, std::as_bytes(std::span(control))));
  ASSERT_TRUE(tracee_.Write(kPayload, std::as_bytes(std::span("fd!", 3))));

  Verdict verdict = Call(SYS_sendmsg, {static_cast<std::uint64_t>(ours.Get()), kHeader, 0});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.value, 3);

  char data[4] = {};
  alignas(cmsghdr) char received[CMSG_SPACE(sizeof(int))] = {};
  iovec in{.iov_base = data, .iov_len = sizeof data};
  msghdr message{};
  message.msg_iov = &in;
  message.msg_iovlen = 1;
  message.msg_control = received;
  message.msg_controllen = sizeof received;
  ASSERT_EQ(::recvmsg(theirs.Get(), &message, MSG_CMSG_CLOEXEC), 3);
  cmsghdr* got = CMSG_FIRSTHDR(&message);
  ASSERT_NE(got, nullptr);
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(got), sizeof fd);
  UniqueFd passed_copy(fd);
  ASSERT_EQ(::write(passed_copy.Get(), "x", 1), 1);
  char c = 0;
  EXPECT_EQ(::read(read_end.Get(), &c, 1), 1);
  EXPECT_EQ(c, 'x');
}

// glibc's resolver sends its A and AAAA queries in one sendmmsg: each
// message is decided on its own destination and sent in order, its msg_len
// set, the count returned; a refused one ends the call there, and refuses
// it when it is the first.
TEST_F(NetworkHandlers, SendmmsgSendsEachAllowedMessageInOrder) {
  UniqueFd receiver(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in allowed = Loopback(0);
  ASSERT_EQ(::bind(receiver.Get(), reinterpret_cast<sockaddr*>(&allowed), sizeof allowed), 0);
  socklen_t size = sizeof allowed;
  ::getsockname(receiver.Get(), reinterpret_cast<sockaddr*>(&allowed), &size);
  policy_ = DenyAllButPort(ntohs(allowed.sin_port));
  const sockaddr_in refused = Loopback(static_cast<std::uint16_t>(ntohs(allowed.sin_port) + 1));
  constexpr std::uint64_t kRefused = kAddress + 64;
  constexpr std::uint64_t kIov = kPayload + 64;
  ASSERT_TRUE(tracee_.WriteObject(kAddress, allowed));
  ASSERT_TRUE(tracee_.WriteObject(kRefused, refused));
  ASSERT_TRUE(tracee_.Write(kPayload, std::as_bytes(std::span("query", 5))));
  ASSERT_TRUE(tracee_.WriteObject(
      kIov, iovec{.iov_base = reinterpret_cast<void*>(kPayload), .iov_len = 5}));
  auto write_messages = [&](std::initializer_list<std::uint64_t> destinations) {
    std::uint64_t at = kHeader;
    for (std::uint64_t destination : destinations) {
      mmsghdr entry{};
      entry.msg_hdr.msg_name = reinterpret_cast<void*>(destination);
      entry.msg_hdr.msg_namelen = sizeof(sockaddr_in);
      entry.msg_hdr.msg_iov = reinterpret_cast<iovec*>(kIov);
      entry.msg_hdr.msg_iovlen = 1;
      ASSERT_TRUE(tracee_.WriteObject(at, entry));
      at += sizeof entry;
    }
  };
  UniqueFd sender(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const auto socket = static_cast<std::uint64_t>(sender.Get());
  write_messages({kAddress, kAddress, kRefused});
  Verdict verdict = Call(SYS_sendmmsg, {socket, kHeader, 3, 0});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(verdict.value, 2);
  for (std::uint64_t i = 0; i < 3; ++i) {
    mmsghdr entry{};
    ASSERT_TRUE(
        tracee_.Read(kHeader + i * sizeof entry, std::as_writable_bytes(std::span(&entry, 1))));
    EXPECT_EQ(entry.msg_len, i < 2 ? 5u : 0u) << "message " << i;
  }
  char got[8] = {};
  EXPECT_EQ(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 5);
  EXPECT_EQ(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 5);
  EXPECT_LT(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 0);
  std::vector<std::string> names;
  for (const AuditValue& arg : audit_args_) names.push_back(arg.name);
  EXPECT_THAT(names, ::testing::ElementsAre("address", "address[1]", "address[2]"));

  write_messages({kRefused, kAddress});
  verdict = Call(SYS_sendmmsg, {socket, kHeader, 2, 0});
  EXPECT_EQ(verdict.error, ENETUNREACH);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_LT(::recv(receiver.Get(), got, sizeof got, MSG_DONTWAIT), 0);
  EXPECT_EQ(Call(SYS_sendmmsg, {socket, kHeader, 0, 0}).value, 0);
}

// Under a policy that refuses no address, a thread that cannot hold
// CAP_NET_ADMIN has its connects and sends decided, audited and left to
// the kernel (KernelMaySend); one that may hold it still has them made by
// the sentry, which sends netlink messages without their address.
TEST_F(NetworkHandlers, UnderAPolicyRefusingNoAddressTheKernelSendsForThreadsWithoutNetAdmin) {
  config::Policy open_policy;
  sandbox_.policy = &open_policy;
  tracee_.capabilities = ~(std::uint64_t{1} << CAP_NET_ADMIN);
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(tracee_.WriteObject(kAddress, Loopback(listener_.port)));
  const std::array<std::uint64_t, 6> connect_args = {static_cast<std::uint64_t>(socket.Get()),
                                                     kAddress, sizeof(sockaddr_in)};
  Verdict left = Call(SYS_connect, connect_args);
  EXPECT_EQ(left.kind, Verdict::Kind::kContinue);
  EXPECT_EQ(audit_args_.at(0).value, StrCat("127.0.0.1:", listener_.port));
  sockaddr_in peer{};
  socklen_t size = sizeof peer;
  EXPECT_NE(::getpeername(socket.Get(), reinterpret_cast<sockaddr*>(&peer), &size), 0)
      << "the sentry connected it itself";
  EXPECT_EQ(Call(SYS_sendto, {static_cast<std::uint64_t>(socket.Get()), kPayload, 1, 0, kAddress,
                              sizeof(sockaddr_in)})
                .kind,
            Verdict::Kind::kContinue);
  EXPECT_EQ(Call(SYS_sendmsg, {static_cast<std::uint64_t>(socket.Get()), kHeader, 0}).kind,
            Verdict::Kind::kContinue);
  EXPECT_EQ(Call(SYS_sendmmsg, {0, 0, 0}).kind, Verdict::Kind::kContinue);

  tracee_.capabilities = ~std::uint64_t{0};
  Verdict made = Call(SYS_connect, connect_args);
  EXPECT_EQ(made.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(made.error, 0);
  EXPECT_EQ(::getpeername(socket.Get(), reinterpret_cast<sockaddr*>(&peer), &size), 0);
  EXPECT_EQ(Call(SYS_sendmmsg, {0, 0, 0}).kind, Verdict::Kind::kReturn);

  // A policy that refuses some address: the sentry makes every call.
  sandbox_.policy = &policy_;
  tracee_.capabilities = ~(std::uint64_t{1} << CAP_NET_ADMIN);
  UniqueFd other(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  Verdict decided =
      Call(SYS_connect, {static_cast<std::uint64_t>(other.Get()), kAddress, sizeof(sockaddr_in)});
  EXPECT_EQ(decided.kind, Verdict::Kind::kReturn);
  EXPECT_EQ(decided.error, 0);
}

// A unix socket path is reached through the socket file opened inside the
// workload's root: an absolute symlink there stays inside that root.
TEST_F(NetworkHandlers, UnixPathsResolveInsideTheWorkloadsRoot) {
  policy_.unix_sockets = true;
  char tmpl[] = "/tmp/vigil-unix-root-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  std::filesystem::create_directories(root + "/run");
  UniqueFd server(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un un{.sun_family = AF_UNIX};
  const std::string real = root + "/run/real.sock";
  std::strcpy(un.sun_path, real.c_str());
  ASSERT_EQ(::bind(server.Get(), reinterpret_cast<sockaddr*>(&un), sizeof un), 0);
  ASSERT_EQ(::listen(server.Get(), 1), 0);
  // In the container: /link -> /run/real.sock (absolute, so inside its root).
  std::filesystem::create_symlink("/run/real.sock", root + "/link");
  tracee_.root = root;

  sockaddr_un theirs{.sun_family = AF_UNIX};
  std::strcpy(theirs.sun_path, "/link");
  ASSERT_TRUE(tracee_.WriteObject(kAddress, theirs));
  UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  Verdict verdict =
      Call(SYS_connect, {static_cast<std::uint64_t>(client.Get()), kAddress, sizeof theirs});
  EXPECT_EQ(verdict.error, 0);
  EXPECT_EQ(audit_args_.at(0).value, "unix:/link");
  std::filesystem::remove_all(root);
}

// A socket path the workload cannot reach is the kernel's errno; when the
// rules refuse the path it names, a refusal too (a search for the host's
// daemons is in the audit), however it was spelled.
TEST_F(NetworkHandlers, AnUnreachableSocketPathTheRulesRefuseIsARefusal) {
  policy_.unix_sockets = true;
  policy_.unix_paths = {"/run/**"};
  char tmpl[] = "/tmp/vigil-unix-gone-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  std::filesystem::create_directories(root + "/run");
  tracee_.root = root;
  auto connect = [&](const char* path) {
    sockaddr_un theirs{.sun_family = AF_UNIX};
    std::strcpy(theirs.sun_path, path);
    EXPECT_TRUE(tracee_.WriteObject(kAddress, theirs));
    UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    return Call(SYS_connect, {static_cast<std::uint64_t>(client.Get()), kAddress, sizeof theirs});
  };
  Verdict outside = connect("/var/lib/../lib/incus/unix.socket");
  EXPECT_EQ(outside.error, ENOENT);
  EXPECT_EQ(outside.decision, Decision::kDeny);
  EXPECT_EQ(audit_args_.back().value, "/var/lib/incus/unix.socket");
  Verdict inside = connect("/run/none.sock");
  EXPECT_EQ(inside.error, ENOENT);
  EXPECT_EQ(inside.decision, Decision::kAllow);
  std::filesystem::remove_all(root);
}

// The sentry connects with the workload's identity: a socket file the
// workload may not write to stays closed to it (no confused deputy).
TEST_F(NetworkHandlers, UnixSocketPermissionsAreTheWorkloads) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  policy_.unix_sockets = true;
  char tmpl[] = "/tmp/vigil-unix-perm-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ::chmod(dir.c_str(), 0755);
  UniqueFd server(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un un{.sun_family = AF_UNIX};
  std::strcpy(un.sun_path, (dir + "/private.sock").c_str());
  ASSERT_EQ(::bind(server.Get(), reinterpret_cast<sockaddr*>(&un), sizeof un), 0);
  ASSERT_EQ(::chmod(un.sun_path, 0600), 0);
  ASSERT_EQ(::listen(server.Get(), 1), 0);
  ASSERT_TRUE(tracee_.WriteObject(kAddress, un));

  tracee_.fsuid = 1000;
  tracee_.fsgid = 1000;
  tracee_.capabilities = 0;
  UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(
      Call(SYS_connect, {static_cast<std::uint64_t>(client.Get()), kAddress, sizeof un}).error,
      EACCES);
  tracee_.fsuid = 0;
  tracee_.capabilities = ~std::uint64_t{0};
  UniqueFd root_client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(
      Call(SYS_connect, {static_cast<std::uint64_t>(root_client.Get()), kAddress, sizeof un}).error,
      0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vigil::sentry
