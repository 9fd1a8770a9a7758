// connect, sendto and sendmsg: to a unix socket and to TCP/UDP listeners
// the program opened itself on 127.0.0.1 in the container's own network
// namespace. Ports are the kernel's choice and never printed (bind's cases
// use fixed ones: the network namespace is the container's own).
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// A socket that closes itself.
class Socket {
 public:
  Socket(int domain, int type) : fd_(::socket(domain, type | SOCK_CLOEXEC, 0)) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

sockaddr_un UnixAddress(const char* path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
  return address;
}

// A connection waiting on listener `fd`, accepted; -1 if none comes within
// two seconds (a failed connect must not hang the suite).
int Accept(int fd) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, 2000) != 1) return -1;
  return ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
}

long Connect(int fd, const void* address, socklen_t size) {
  return ::syscall(SYS_connect, fd, address, size);
}

// 127.0.0.1 and the port `fd` is bound to (0 if it is not).
sockaddr_in LoopbackOf(int fd) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0) {
    socklen_t size = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  }
  return address;
}

// A socket of `type` bound to 127.0.0.1 on a port of the kernel's choosing
// (and listening, for a stream socket). Setup errors show as fd -1.
int BoundLoopback(Socket& s, int type) {
  sockaddr_in address = LoopbackOf(-1);
  if (::bind(s.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) return -1;
  if (type == SOCK_STREAM && ::listen(s.fd(), 8) < 0) return -1;
  return s.fd();
}

// What arrived on `fd` (a datagram or a stream's first bytes), or the error.
std::string Received(int fd) {
  char buffer[64];
  ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n < 0) return "recv -1 " + ErrnoName(errno);
  return "got " + std::string(buffer, n);
}

// A message of one iovec, to `address` if given.
long Sendmsg(int fd, const void* address, socklen_t size, const char* text) {
  iovec iov{.iov_base = const_cast<char*>(text), .iov_len = std::strlen(text)};
  msghdr message{};
  message.msg_name = const_cast<void*>(address);
  message.msg_namelen = size;
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  return ::syscall(SYS_sendmsg, fd, &message, 0);
}

long Sendto(int fd, const char* text, const void* address, socklen_t size) {
  return ::syscall(SYS_sendto, fd, text, std::strlen(text), 0, address, size);
}

long Bind(int fd, const void* address, socklen_t size) {
  return ::syscall(SYS_bind, fd, address, size);
}

// 127.0.0.1:`port`.
sockaddr_in LoopbackPort(std::uint16_t port) {
  sockaddr_in address = LoopbackOf(-1);
  address.sin_port = htons(port);
  return address;
}

// bind to 127.0.0.1:`port` on a new socket of `type`; with the port the
// socket got when one was asked for ("port=N"), or "port=ephemeral".
std::string BindLoopback(int type, std::uint16_t port) {
  Socket s(AF_INET, type);
  sockaddr_in address = LoopbackPort(port);
  std::string text = Rc(Bind(s.fd(), &address, sizeof address));
  const std::uint16_t got = ntohs(LoopbackOf(s.fd()).sin_port);
  if (port != 0) return Line({text, "port=" + std::to_string(got)});
  return Line({text, got != 0 ? "port=ephemeral" : "port=0"});
}

// bind of a new unix stream socket to `path`, then lstat of the path.
std::string BindUnix(const char* path) {
  Socket s(AF_UNIX, SOCK_STREAM);
  sockaddr_un address = UnixAddress(path);
  return Line({Rc(Bind(s.fd(), &address, sizeof address)), LstatOf(path)});
}

std::vector<Case> BindCases() {
  return {
      {"bind-tcp-loopback-port-zero", [] { return BindLoopback(SOCK_STREAM, 0); }},
      {"bind-udp-loopback-port-zero", [] { return BindLoopback(SOCK_DGRAM, 0); }},
      {"bind-tcp-fixed-port", [] { return BindLoopback(SOCK_STREAM, 47011); }},
      {"bind-tcp-privileged-port", [] { return BindLoopback(SOCK_STREAM, 99); }},
      {"bind-privileged-port-as-user",
       [] { return AsUser(1000, 1000, 1000, [] { return BindLoopback(SOCK_STREAM, 98); }); }},
      {"bind-tcp-in-use",
       [] {
         Socket first(AF_INET, SOCK_STREAM);
         Socket second(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackPort(47012);
         return Line({Rc(Bind(first.fd(), &address, sizeof address)),
                      Rc(Bind(second.fd(), &address, sizeof address))});
       }},
      {"bind-twice",
       [] {
         Socket s(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackPort(0);
         return Line({Rc(Bind(s.fd(), &address, sizeof address)),
                      Rc(Bind(s.fd(), &address, sizeof address))});
       }},
      {"bind-short-address",
       [] {
         Socket s(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackPort(0);
         return Rc(Bind(s.fd(), &address, 4));
       }},
      {"bind-efault",
       [] {
         Socket s(AF_INET, SOCK_STREAM);
         return Rc(Bind(s.fd(), kBadPointer, sizeof(sockaddr_in)));
       }},
      {"bind-bad-fd",
       [] {
         sockaddr_in address = LoopbackPort(0);
         return Rc(Bind(9999, &address, sizeof address));
       }},
      {"bind-wrong-family",
       [] {
         Socket s(AF_INET, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/inet.sock");
         return Line(
             {Rc(Bind(s.fd(), &address, sizeof address)), LstatOf("/tmp/suite/network/inet.sock")});
       }},
      {"bind-unix-path", [] { return BindUnix("/tmp/suite/network/bound-by-bind.sock"); }},
      {"bind-unix-relative", [] { return BindUnix("relative-bind.sock"); }},
      {"bind-unix-dotdot", [] { return BindUnix("dir/../dotdot-bind.sock"); }},
      {"bind-unix-through-symlink", [] { return BindUnix("dirlink/linked-bind.sock"); }},
      {"bind-unix-exists", [] { return BindUnix("file"); }},
      {"bind-unix-dangling-symlink", [] { return BindUnix("dangling"); }},
      {"bind-unix-missing-directory", [] { return BindUnix("missing/x.sock"); }},
      {"bind-unix-read-only-root", [] { return BindUnix("/bound.sock"); }},
      {"bind-unix-as-user",
       [] { return AsUser(1000, 1000, 1000, [] { return BindUnix("user-bind.sock"); }); }},
      {"bind-unix-twice",
       [] {
         Socket s(AF_UNIX, SOCK_STREAM);
         sockaddr_un first = UnixAddress("twice-1.sock");
         sockaddr_un second = UnixAddress("twice-2.sock");
         return Line({Rc(Bind(s.fd(), &first, sizeof first)),
                      Rc(Bind(s.fd(), &second, sizeof second)), LstatOf("twice-2.sock")});
       }},
      {"bind-unix-getsockname",
       [] {
         // The kernel keeps the address it was given: under a network
         // policy that is the sentry's rewritten path (docs/policy.md).
         Socket s(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/named.sock");
         std::string text = Rc(Bind(s.fd(), &address, sizeof address));
         sockaddr_un got{};
         socklen_t size = sizeof got;
         if (::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&got), &size) < 0) {
           return text + " getsockname " + Rc(-1);
         }
         return Line(
             {text, std::strcmp(got.sun_path, address.sun_path) == 0 ? "as given" : "other"});
       }},
      {"bind-unix-abstract",
       [] {
         Socket s(AF_UNIX, SOCK_DGRAM);
         sockaddr_un address{};
         address.sun_family = AF_UNIX;
         std::memcpy(address.sun_path, "\0vigil-bind", 11);
         const socklen_t size = offsetof(sockaddr_un, sun_path) + 11;
         std::string text = Rc(Bind(s.fd(), &address, size));
         sockaddr_un got{};
         socklen_t got_size = sizeof got;
         ::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&got), &got_size);
         const bool same = got_size == size && std::memcmp(&got, &address, size) == 0;
         return Line({text, same ? "named" : "unnamed"});
       }},
      {"bind-unix-autobind",
       [] {
         Socket s(AF_UNIX, SOCK_DGRAM);
         sockaddr_un address{};
         address.sun_family = AF_UNIX;
         std::string text = Rc(Bind(s.fd(), &address, sizeof(sa_family_t)));
         sockaddr_un got{};
         socklen_t size = sizeof got;
         ::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&got), &size);
         return Line({text, size > sizeof(sa_family_t) && got.sun_path[0] == '\0' ? "abstract"
                                                                                  : "unnamed"});
       }},
      {"bind-unix-name-too-long-for-the-sentry",
       [] {
         // 95 bytes: within sun_path, not with /proc/self/fd/N/ before it.
         const std::string name(95, 'n');
         return BindUnix(name.c_str());
       }},
      {"bind-netlink",
       [] {
         const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
         if (fd < 0) return "socket " + Rc(-1);
         sockaddr_nl address{};
         address.nl_family = AF_NETLINK;
         std::string text = Rc(Bind(fd, &address, sizeof address));
         sockaddr_nl got{};
         socklen_t size = sizeof got;
         ::getsockname(fd, reinterpret_cast<sockaddr*>(&got), &size);
         ::close(fd);
         return Line({text, got.nl_pid == static_cast<__u32>(::getpid()) ? "port-id=pid"
                                                                         : "port-id=other"});
       }},
  };
}

}  // namespace

std::vector<Case> NetworkCases() {
  std::vector<Case> cases = {
      {"network-fixture", [] { return MakeFixture("network"); }},
      {"connect-unix-stream",
       [] {
         Socket server(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/stream.sock");
         if (::bind(server.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 ||
             ::listen(server.fd(), 4) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_STREAM);
         std::string text = Rc(Connect(client.fd(), &address, sizeof address));
         int accepted = Accept(server.fd());
         text += accepted >= 0 ? " accepted" : " accept " + Rc(-1);
         if (accepted >= 0) ::close(accepted);
         return text;
       }},
      {"connect-unix-missing",
       [] {
         Socket client(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/none.sock");
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-unix-not-a-socket",
       [] {
         Socket client(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/file");
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-unix-no-listener",
       [] {
         // A bound socket nobody listens on.
         Socket bound(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/bound.sock");
         if (::bind(bound.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_STREAM);
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-unix-relative",
       [] {
         // The cwd is /tmp/suite/network: "stream.sock" is the listener above,
         // which is gone; bind a new one by its relative name.
         Socket server(AF_UNIX, SOCK_STREAM);
         sockaddr_un address = UnixAddress("relative.sock");
         if (::bind(server.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 ||
             ::listen(server.fd(), 4) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_STREAM);
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-unix-abstract",
       [] {
         Socket server(AF_UNIX, SOCK_STREAM);
         sockaddr_un address{};
         address.sun_family = AF_UNIX;
         std::memcpy(address.sun_path, "\0vigil-suite", 12);
         socklen_t size = offsetof(sockaddr_un, sun_path) + 12;
         if (::bind(server.fd(), reinterpret_cast<sockaddr*>(&address), size) < 0 ||
             ::listen(server.fd(), 4) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_STREAM);
         return Rc(Connect(client.fd(), &address, size));
       }},
      {"sendto-unix-dgram",
       [] {
         Socket server(AF_UNIX, SOCK_DGRAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/dgram.sock");
         if (::bind(server.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_DGRAM);
         std::string text = Rc(Sendto(client.fd(), "unix", &address, sizeof address));
         return text + " " + Received(server.fd());
       }},
      {"sendmsg-unix-dgram",
       [] {
         Socket server(AF_UNIX, SOCK_DGRAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/dgram2.sock");
         if (::bind(server.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
           return "setup " + Rc(-1);
         }
         Socket client(AF_UNIX, SOCK_DGRAM);
         std::string text = Rc(Sendmsg(client.fd(), &address, sizeof address, "msg"));
         return text + " " + Received(server.fd());
       }},
      {"connect-tcp-loopback",
       [] {
         Socket server(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_STREAM));
         if (address.sin_port == 0) return "setup " + Rc(-1);
         Socket client(AF_INET, SOCK_STREAM);
         std::string text = Rc(Connect(client.fd(), &address, sizeof address));
         int accepted = Accept(server.fd());
         if (accepted < 0) return text + " accept " + Rc(-1);
         text += " " + Rc(Sendto(client.fd(), "tcp", nullptr, 0));
         text += " " + Received(accepted);
         ::close(accepted);
         return text;
       }},
      {"connect-tcp-refused",
       [] {
         // A port just released by a listener: nothing listens there now.
         sockaddr_in address;
         {
           Socket gone(AF_INET, SOCK_STREAM);
           address = LoopbackOf(BoundLoopback(gone, SOCK_STREAM));
         }
         Socket client(AF_INET, SOCK_STREAM);
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-tcp-nonblocking",
       [] {
         Socket server(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_STREAM));
         Socket client(AF_INET, SOCK_STREAM | SOCK_NONBLOCK);
         long rc = Connect(client.fd(), &address, sizeof address);
         // Loopback may complete at once or report EINPROGRESS: either is a
         // connection under way. Once writable, connect again completes it
         // (0), and a third finds it connected (EISCONN).
         std::string first = rc == 0 || errno == EINPROGRESS ? "started" : Rc(rc);
         pollfd p{.fd = client.fd(), .events = POLLOUT, .revents = 0};
         if (::poll(&p, 1, 2000) != 1) return first + " never writable";
         std::string second = Rc(Connect(client.fd(), &address, sizeof address));
         return Line({first, second, Rc(Connect(client.fd(), &address, sizeof address))});
       }},
      {"connect-short-address",
       [] {
         Socket client(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(-1);
         return Rc(Connect(client.fd(), &address, 4));
       }},
      {"connect-efault",
       [] {
         Socket client(AF_INET, SOCK_STREAM);
         return Rc(Connect(client.fd(), kBadPointer, sizeof(sockaddr_in)));
       }},
      {"connect-wrong-family",
       [] {
         Socket client(AF_INET, SOCK_STREAM);
         sockaddr_un address = UnixAddress("/tmp/suite/network/dgram.sock");
         return Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"connect-bad-fd",
       [] {
         sockaddr_in address = LoopbackOf(-1);
         return Rc(Connect(9999, &address, sizeof address));
       }},
      {"connect-not-a-socket",
       [] {
         int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY | O_CLOEXEC));
         sockaddr_in address = LoopbackOf(-1);
         std::string text = Rc(Connect(fd, &address, sizeof address));
         ::close(fd);
         return text;
       }},
      {"connect-already-connected",
       [] {
         Socket server(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_STREAM));
         Socket client(AF_INET, SOCK_STREAM);
         std::string text = Rc(Connect(client.fd(), &address, sizeof address));
         return text + " again " + Rc(Connect(client.fd(), &address, sizeof address));
       }},
      {"sendto-udp-loopback",
       [] {
         Socket server(AF_INET, SOCK_DGRAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_DGRAM));
         Socket client(AF_INET, SOCK_DGRAM);
         std::string text = Rc(Sendto(client.fd(), "udp", &address, sizeof address));
         return text + " " + Received(server.fd());
       }},
      {"sendto-udp-short-address",
       [] {
         Socket client(AF_INET, SOCK_DGRAM);
         sockaddr_in address = LoopbackOf(-1);
         return Rc(Sendto(client.fd(), "x", &address, 4));
       }},
      {"sendto-udp-efault-buffer",
       [] {
         Socket server(AF_INET, SOCK_DGRAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_DGRAM));
         Socket client(AF_INET, SOCK_DGRAM);
         return Rc(
             ::syscall(SYS_sendto, client.fd(), kBadPointer, 16, 0, &address, sizeof address));
       }},
      {"sendto-tcp-with-address",
       [] {
         // A connected stream socket ignores the address it is given.
         Socket server(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_STREAM));
         Socket client(AF_INET, SOCK_STREAM);
         if (Connect(client.fd(), &address, sizeof address) < 0) return "setup " + Rc(-1);
         int accepted = Accept(server.fd());
         std::string text = Rc(Sendto(client.fd(), "addr", &address, sizeof address));
         text += " " + Received(accepted);
         ::close(accepted);
         return text;
       }},
      {"sendto-tcp-unconnected",
       [] {
         Socket client(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(-1);
         return Rc(Sendto(client.fd(), "x", &address, sizeof address));
       }},
      {"sendmsg-udp-loopback",
       [] {
         Socket server(AF_INET, SOCK_DGRAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_DGRAM));
         Socket client(AF_INET, SOCK_DGRAM);
         std::string text = Rc(Sendmsg(client.fd(), &address, sizeof address, "udpmsg"));
         return text + " " + Received(server.fd());
       }},
      {"sendmsg-udp-no-address",
       [] {
         Socket client(AF_INET, SOCK_DGRAM);
         return Rc(Sendmsg(client.fd(), nullptr, 0, "x"));
       }},
      {"sendmsg-tcp-connected",
       [] {
         Socket server(AF_INET, SOCK_STREAM);
         sockaddr_in address = LoopbackOf(BoundLoopback(server, SOCK_STREAM));
         Socket client(AF_INET, SOCK_STREAM);
         if (Connect(client.fd(), &address, sizeof address) < 0) return "setup " + Rc(-1);
         int accepted = Accept(server.fd());
         std::string text = Rc(Sendmsg(client.fd(), nullptr, 0, "stream"));
         text += " " + Received(accepted);
         ::close(accepted);
         return text;
       }},
      {"sendmsg-efault",
       [] {
         Socket client(AF_INET, SOCK_DGRAM);
         return Rc(::syscall(SYS_sendmsg, client.fd(), kBadPointer, 0));
       }},
      {"sendmsg-scm-rights",
       [] {
         int pair[2];
         if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
           return "setup " + Rc(-1);
         int passed =
             static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "file", O_RDONLY | O_CLOEXEC));
         char control[CMSG_SPACE(sizeof(int))] = {};
         char byte = 'x';
         iovec iov{.iov_base = &byte, .iov_len = 1};
         msghdr message{};
         message.msg_iov = &iov;
         message.msg_iovlen = 1;
         message.msg_control = control;
         message.msg_controllen = sizeof control;
         cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
         cmsg->cmsg_level = SOL_SOCKET;
         cmsg->cmsg_type = SCM_RIGHTS;
         cmsg->cmsg_len = CMSG_LEN(sizeof(int));
         std::memcpy(CMSG_DATA(cmsg), &passed, sizeof passed);
         std::string text = Rc(::syscall(SYS_sendmsg, pair[0], &message, 0));
         // Receive it and read through the descriptor that arrived.
         char back[CMSG_SPACE(sizeof(int))] = {};
         msghdr in{};
         in.msg_iov = &iov;
         in.msg_iovlen = 1;
         in.msg_control = back;
         in.msg_controllen = sizeof back;
         if (::recvmsg(pair[1], &in, MSG_CMSG_CLOEXEC) < 0) return text + " recvmsg " + Rc(-1);
         cmsghdr* got = CMSG_FIRSTHDR(&in);
         if (got == nullptr || got->cmsg_type != SCM_RIGHTS) return text + " no descriptor";
         int fd;
         std::memcpy(&fd, CMSG_DATA(got), sizeof fd);
         char buffer[8] = {};
         ssize_t n = ::read(fd, buffer, 5);
         ::close(fd);
         ::close(passed);
         ::close(pair[0]);
         ::close(pair[1]);
         return text + " read " + std::string(buffer, n > 0 ? n : 0);
       }},
  };
  for (Case& c : BindCases()) cases.push_back(std::move(c));
  return cases;
}

}  // namespace vigil::syscall_suite
