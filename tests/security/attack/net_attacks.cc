// The network: raw and packet sockets, route changes over netlink, and
// egress to listeners on the host's loopback (TCP and an abstract unix socket).
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "attack.h"

namespace vigil::security {
namespace {

Outcome SocketOf(const std::string& what, int domain, int type, int protocol) {
  ChildResult r = InChild([=] { return static_cast<long>(::socket(domain, type, protocol)); });
  std::string detail = what + ": " + r.Describe();
  if (r.exited && r.ret >= 0) return Escaped(detail + " (a socket)");
  return Contained(detail);
}

Outcome RawSocket(const Context&) {
  Outcome a = SocketOf("socket(AF_INET, SOCK_RAW, ICMP)", AF_INET, SOCK_RAW, IPPROTO_ICMP);
  Outcome b = SocketOf("socket(AF_INET6, SOCK_RAW, RAW)", AF_INET6, SOCK_RAW, IPPROTO_RAW);
  std::string detail = a.detail + "; " + b.detail;
  return a.escaped || b.escaped ? Escaped(detail) : Contained(detail);
}

Outcome PacketSocket(const Context&) {
  return SocketOf("socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)", AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
}

// RTM_NEWROUTE for 192.0.2.0/24 through an interface index that does not
// exist: the CAP_NET_ADMIN check comes first (EPERM), then ENODEV.
Outcome NetlinkRoute(const Context&) {
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return Contained("socket(NETLINK_ROUTE): " + ErrnoText(errno));
  struct {
    nlmsghdr nh;
    rtmsg rt;
    char attrs[64];
  } req{};
  req.nh.nlmsg_type = RTM_NEWROUTE;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
  req.nh.nlmsg_seq = 1;
  req.rt.rtm_family = AF_INET;
  req.rt.rtm_dst_len = 24;
  req.rt.rtm_table = RT_TABLE_MAIN;
  req.rt.rtm_protocol = RTPROT_STATIC;
  req.rt.rtm_scope = RT_SCOPE_LINK;
  req.rt.rtm_type = RTN_UNICAST;
  std::size_t len = NLMSG_LENGTH(sizeof(rtmsg));
  auto add_attr = [&](unsigned short type, const void* data, unsigned short size) {
    auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(&req) + NLMSG_ALIGN(len));
    a->rta_type = type;
    a->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
    std::memcpy(RTA_DATA(a), data, size);
    len = NLMSG_ALIGN(len) + RTA_ALIGN(a->rta_len);
  };
  in_addr dst{};
  ::inet_pton(AF_INET, "192.0.2.0", &dst);
  add_attr(RTA_DST, &dst, sizeof dst);
  int oif = 0x7ffffff0;
  add_attr(RTA_OIF, &oif, sizeof oif);
  req.nh.nlmsg_len = static_cast<unsigned>(len);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd, &req, len, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) {
    int err = errno;
    ::close(fd);
    std::string detail = "sendto: " + ErrnoText(err);
    return IsRefusal(err) ? Contained(detail) : Escaped(detail);
  }
  pollfd p{fd, POLLIN, 0};
  char buf[4096];
  ssize_t n = ::poll(&p, 1, 2000) == 1 ? ::recv(fd, buf, sizeof buf, 0) : -1;
  ::close(fd);
  if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr)))) {
    return Contained("no netlink answer");
  }
  auto* nh = reinterpret_cast<nlmsghdr*>(buf);
  if (nh->nlmsg_type != NLMSG_ERROR) return Escaped("unexpected netlink answer");
  int err = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(nh))->error;
  std::string detail = "RTM_NEWROUTE (nonexistent oif): " + (err ? ErrnoText(err) : "ok");
  if (err == 0 || !IsRefusal(err)) return Escaped(detail + ": passed the CAP_NET_ADMIN check");
  return Contained(detail);
}

// Connects with a 1 s limit; "" when connected, else the error.
std::string ConnectWithin(int fd, const sockaddr* addr, socklen_t len) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  if (::connect(fd, addr, len) == 0) return "";
  if (errno != EINPROGRESS) return ErrnoText(errno);
  pollfd p{fd, POLLOUT, 0};
  if (::poll(&p, 1, 1000) != 1) return "timed out";
  int err = 0;
  socklen_t el = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
  return err ? ErrnoText(err) : "";
}

Outcome EgressLocalhost(const Context& c) {
  std::string detail;
  bool escaped = false;
  int tcp = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(static_cast<unsigned short>(c.port));
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string err = ConnectWithin(tcp, reinterpret_cast<sockaddr*>(&in), sizeof in);
  if (err.empty()) {
    escaped = true;
    (void)!::write(tcp, "vsec-escaped\n", 13);
    detail += "tcp 127.0.0.1:" + std::to_string(c.port) + ": connected; ";
  } else {
    detail += "tcp 127.0.0.1:" + std::to_string(c.port) + ": " + err + "; ";
  }
  ::close(tcp);
  int un = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un ua{};
  ua.sun_family = AF_UNIX;
  std::memcpy(ua.sun_path + 1, c.abstract.data(),
              std::min(c.abstract.size(), sizeof ua.sun_path - 2));
  socklen_t ulen = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + c.abstract.size());
  err = ConnectWithin(un, reinterpret_cast<sockaddr*>(&ua), ulen);
  if (err.empty()) {
    escaped = true;
    (void)!::write(un, "vsec-escaped\n", 13);
    detail += "abstract unix @" + c.abstract + ": connected";
  } else {
    detail += "abstract unix @" + c.abstract + ": " + err;
  }
  ::close(un);
  return escaped ? Escaped(detail) : Contained(detail);
}

// The address of a UDP connect flipped by another thread, for 2 s, between
// one the policy allows (192.0.2.1, TEST-NET-1) and the host's loopback
// listener, which it refuses (run from the host's network namespace): a
// sentry that decided on its own read of the address and then let the
// kernel read it again would leave sockets connected to the listener. UDP
// connects at once, so the race runs thousands of times.
Outcome EgressAddressFlip(const Context& c) {
  const sockaddr_in allowed{
      .sin_family = AF_INET, .sin_port = htons(9), .sin_addr = {htonl(0xc0000201)}};
  const sockaddr_in refused{.sin_family = AF_INET,
                            .sin_port = htons(static_cast<unsigned short>(c.port)),
                            .sin_addr = {htonl(INADDR_LOOPBACK)}};
  static sockaddr_in address;
  address = allowed;
  Flipper flipper([&](long) {
    std::memcpy(&address, &refused, sizeof address);
    std::memcpy(&address, &allowed, sizeof address);
  });
  const long long deadline = NowMs() + 2000;
  long connects = 0, to_allowed = 0;
  bool reached = false;
  while (NowMs() < deadline && !reached) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    ++connects;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
      sockaddr_in peer{};
      socklen_t size = sizeof peer;
      if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) == 0) {
        reached = peer.sin_addr.s_addr == refused.sin_addr.s_addr;
        to_allowed += reached ? 0 : 1;
      }
    }
    ::close(fd);
  }
  const std::string detail = std::to_string(connects) + " connects in 2 s, " +
                             std::to_string(to_allowed) + " to the allowed address";
  if (reached) return Escaped(detail + "; one reached 127.0.0.1:" + std::to_string(c.port));
  return Contained(detail);
}

// A process that gave up root connects to a unix server in the container,
// which asks who connected (SO_PEERCRED): told uid 0, a server that trusts
// peer credentials (a local agent, D-Bus) would obey the process as root.
// Under a network policy the sentry makes the connect; it must do so as
// the process, not as itself.
Outcome UnixPeerAsRoot(const Context&) {
  int server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string name = "vsec-peer-" + std::to_string(::getpid());
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(server, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(server, 1) != 0) {
    return Contained("bind/listen: " + ErrnoText(errno));
  }
  constexpr uid_t kNobody = 65534;
  ChildResult connected = InChild([&]() -> long {
    if (::setresgid(kNobody, kNobody, kNobody) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0) {
      return -2;
    }
    int client = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    return ::connect(client, reinterpret_cast<sockaddr*>(&address), length);
  });
  if (!connected.exited || connected.ret != 0) {
    return Contained("the connect as uid 65534: " + (connected.ret == -2
                                                         ? std::string("could not drop root")
                                                         : connected.Describe()));
  }
  int conn = ::accept4(server, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  ucred peer{};
  socklen_t size = sizeof peer;
  if (conn < 0 || ::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) {
    return Contained("accept/SO_PEERCRED: " + ErrnoText(errno));
  }
  const std::string detail = "the server was told uid " + std::to_string(peer.uid) + ", gid " +
                             std::to_string(peer.gid) + " for a process of uid 65534";
  return peer.uid == 0 || peer.gid == 0 ? Escaped(detail) : Contained(detail);
}

}  // namespace

const std::vector<Attack>& NetAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"raw-socket", RawSocket, "AF_INET and AF_INET6 raw sockets"},
      {"packet-socket", PacketSocket, "an AF_PACKET socket"},
      {"netlink-route", NetlinkRoute, "RTM_NEWROUTE over NETLINK_ROUTE"},
      {"egress-localhost", EgressLocalhost, "connect to the host's 127.0.0.1 and abstract unix"},
      {"host-netns-loopback", EgressLocalhost,
       "the same from the host's network namespace (no namespace of its own) under egress deny"},
      {"host-netns-joined", EgressLocalhost,
       "the same from the host's namespace joined by path (/proc/PID/ns/net) under egress deny"},
      {"egress-address-flip", EgressAddressFlip,
       "a connect's address flipped between an allowed one and the host's loopback (2 s)"},
      {"unix-peer-root", UnixPeerAsRoot,
       "an unprivileged unix connect the server takes for root's"},
  };
  return kAttacks;
}

}  // namespace vigil::security
