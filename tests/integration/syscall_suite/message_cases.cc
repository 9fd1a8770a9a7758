// sendmsg's control messages (SCM_RIGHTS, SCM_CREDENTIALS, several in one
// message, malformed ones), what the receiver gets (MSG_CTRUNC when its
// buffer is short), and the calls that block: a large message on a stream
// socket, a connect to a listener whose backlog is full.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

// A unix socket pair that closes itself; the receiving end passes
// credentials (SO_PASSCRED).
class Pair {
 public:
  explicit Pair(int type = SOCK_STREAM) {
    if (::socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, fds_) < 0) fds_[0] = fds_[1] = -1;
    int on = 1;
    ::setsockopt(fds_[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  bool ok() const { return fds_[0] >= 0; }
  int sender() const { return fds_[0]; }
  int receiver() const { return fds_[1]; }

 private:
  int fds_[2];
};

// A message of one byte with `control` as its control data, built by the
// caller with Append.
struct Outgoing {
  char byte = 'x';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[256] = {};
  std::size_t used = 0;

  // Adds a control message of `level`/`type` holding `size` bytes of
  // `data`, with cmsg_len `length` (CMSG_LEN(size) unless given).
  void Append(int level, int type, const void* data, std::size_t size, std::size_t length = 0) {
    auto* header = reinterpret_cast<cmsghdr*>(control + used);
    header->cmsg_level = level;
    header->cmsg_type = type;
    header->cmsg_len = length != 0 ? length : CMSG_LEN(size);
    std::memcpy(CMSG_DATA(header), data, size);
    used += CMSG_SPACE(size);
  }

  long Send(int fd, std::size_t controllen) {
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = controllen != 0 ? control : nullptr;
    message.msg_controllen = controllen;
    return ::syscall(SYS_sendmsg, fd, &message, 0);
  }
  long Send(int fd) { return Send(fd, used); }
};

// What the receiver gets with `space` bytes of control buffer: the control
// messages' kinds (and what each passed descriptor reads, whether the
// credentials are the sender's), and MSG_CTRUNC.
std::string Receive(int fd, std::size_t space, pid_t sender) {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[512] = {};
  msghdr in{};
  in.msg_iov = &iov;
  in.msg_iovlen = 1;
  in.msg_control = space != 0 ? control : nullptr;
  in.msg_controllen = space;
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, 2000) != 1) return "nothing arrived";
  long n = ::recvmsg(fd, &in, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  if (n < 0) return "recvmsg " + Rc(-1);
  std::string text = "got " + std::to_string(n);
  for (cmsghdr* c = CMSG_FIRSTHDR(&in); c != nullptr; c = CMSG_NXTHDR(&in, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      text += " rights=" + std::to_string(count);
      for (std::size_t i = 0; i < count; ++i) {
        int passed;
        std::memcpy(&passed, CMSG_DATA(c) + i * sizeof(int), sizeof passed);
        char data[8] = {};
        long r = ::pread(passed, data, 5, 0);
        text += r > 0 ? ":" + std::string(data, static_cast<std::size_t>(r)) : ":" + Rc(r);
        ::close(passed);
      }
    } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      ucred got{};
      std::memcpy(&got, CMSG_DATA(c), sizeof got);
      text += got.pid == sender ? " creds=sender"
                                : " creds=pid-" + std::string(got.pid == 0 ? "0" : "other");
      text += " uid=" + std::to_string(got.uid) + " gid=" + std::to_string(got.gid);
    } else {
      text += " cmsg=" + std::to_string(c->cmsg_type);
    }
  }
  if (in.msg_flags & MSG_CTRUNC) text += " MSG_CTRUNC";
  return text;
}

int OpenFile(const char* path) {
  return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
}

// Sends one message built by `build` on a fresh pair and describes what
// arrived with `space` bytes of control buffer.
template <typename Build>
std::string SendAndReceive(Build build, std::size_t space = 256, int type = SOCK_STREAM) {
  Pair pair(type);
  if (!pair.ok()) return "socketpair " + Rc(-1);
  Outgoing out;
  std::vector<int> opened;
  long sent = build(out, opened, pair.sender());
  std::string text = Rc(sent);
  for (int fd : opened) ::close(fd);
  if (sent < 0) return text;
  return text + " " + Receive(pair.receiver(), space, ::getpid());
}

long SendRights(Outgoing& out, std::vector<int>& opened, int fd,
                std::initializer_list<const char*> paths) {
  std::vector<int> fds;
  for (const char* path : paths) {
    opened.push_back(OpenFile(path));
    fds.push_back(opened.back());
  }
  out.Append(SOL_SOCKET, SCM_RIGHTS, fds.data(), fds.size() * sizeof(int));
  return out.Send(fd);
}

long SendCredentials(Outgoing& out, int fd, ucred credentials) {
  out.Append(SOL_SOCKET, SCM_CREDENTIALS, &credentials, sizeof credentials);
  return out.Send(fd);
}

ucred Own() { return ucred{::getpid(), ::getuid(), ::getgid()}; }

// Sends `size` bytes in one sendmsg on a blocking stream socket while a
// child reads them slowly: what sendmsg returned and what the child read
// (with the credentials of every part: the sender's).
std::string LargeSend(std::size_t size) {
  Pair pair;
  if (!pair.ok()) return "socketpair " + Rc(-1);
  pid_t reader = ::fork();
  if (reader == 0) {
    std::vector<char> buffer(65536);
    std::size_t total = 0;
    bool others = false;  // credentials other than the sender's on some part
    ::usleep(100'000);    // let the sender fill the socket first
    for (;;) {
      iovec iov{buffer.data(), buffer.size()};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))] = {};
      msghdr in{};
      in.msg_iov = &iov;
      in.msg_iovlen = 1;
      in.msg_control = control;
      in.msg_controllen = sizeof control;
      const long n = ::recvmsg(pair.receiver(), &in, 0);
      if (n <= 0) break;
      total += static_cast<std::size_t>(n);
      const cmsghdr* c = CMSG_FIRSTHDR(&in);
      ucred got{};
      if (c != nullptr && c->cmsg_type == SCM_CREDENTIALS)
        std::memcpy(&got, CMSG_DATA(c), sizeof got);
      others |= got.pid != ::getppid();
    }
    ::_exit(total != size ? 1 : others ? 2 : 0);
  }
  ::close(pair.receiver());
  std::vector<char> data(size, 'd');
  iovec iov{data.data(), data.size()};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  // How much a short write sent depends on the socket's buffer and timing:
  // only whether it was all is printed.
  const long sent = ::syscall(SYS_sendmsg, pair.sender(), &message, 0);
  std::string text = sent < 0                          ? Rc(sent)
                     : sent == static_cast<long>(size) ? "sent all"
                                                       : "sent part";
  ::shutdown(pair.sender(), SHUT_WR);
  int status = 0;
  ::waitpid(reader, &status, 0);
  const int read = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return text + (read == 0   ? " all read"
                 : read == 2 ? " all read, other credentials"
                             : " short read");
}

// A unix listener at `path` whose backlog (0: one pending connection) is
// full, and a child that accepts everything pending after 300 ms: how many
// non-blocking connects fit, then what a blocking connect returns.
std::string ConnectToFullBacklog(const char* path) {
  int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
  ::unlink(path);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 ||
      ::listen(listener, 0) < 0) {
    return "listen " + Rc(-1);
  }
  std::vector<int> fillers;
  std::string text;
  for (int i = 0; i < 4; ++i) {
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    long rc = ::syscall(SYS_connect, s, &address, sizeof address);
    if (rc < 0) {
      text = "filled=" + std::to_string(fillers.size()) + " then " + Rc(rc);
      ::close(s);
      break;
    }
    fillers.push_back(s);
  }
  pid_t acceptor = ::fork();
  if (acceptor == 0) {
    ::usleep(300'000);
    for (int i = 0; i < 8; ++i) {
      pollfd p{.fd = listener, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 1000) != 1) break;
      ::close(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
    }
    ::_exit(0);
  }
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  text += " blocking " + Rc(::syscall(SYS_connect, s, &address, sizeof address));
  ::close(s);
  ::waitpid(acceptor, nullptr, 0);
  for (int fd : fillers) ::close(fd);
  ::close(listener);
  return text;
}

}  // namespace

std::vector<Case> MessageCases() {
  return {
      {"message-fixture", [] { return MakeFixture("message"); }},
      {"scm-rights-one",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           return SendRights(o, fds, fd, {"file"});
         });
       }},
      {"scm-rights-three",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           return SendRights(o, fds, fd, {"file", "dir/inner", "secret"});
         });
       }},
      {"scm-rights-zero",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
           o.Append(SOL_SOCKET, SCM_RIGHTS, nullptr, 0);
           return o.Send(fd);
         });
       }},
      {"scm-rights-bad-descriptor",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
           int bad = 999;
           o.Append(SOL_SOCKET, SCM_RIGHTS, &bad, sizeof bad);
           return o.Send(fd);
         });
       }},
      {"scm-rights-truncated-control",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           fds.push_back(OpenFile("file"));
           o.Append(SOL_SOCKET, SCM_RIGHTS, &fds.back(), sizeof(int));
           return o.Send(fd, CMSG_LEN(sizeof(int)) - 1);
         });
       }},
      {"scm-rights-cmsg-len-past-control",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           fds.push_back(OpenFile("file"));
           o.Append(SOL_SOCKET, SCM_RIGHTS, &fds.back(), sizeof(int), CMSG_LEN(64));
           return o.Send(fd);
         });
       }},
      {"scm-rights-receiver-short-buffer",
       [] {
         return SendAndReceive(
             [](Outgoing& o, std::vector<int>& fds, int fd) {
               return SendRights(o, fds, fd, {"file", "dir/inner"});
             },
             CMSG_SPACE(sizeof(int)));
       }},
      {"scm-rights-receiver-no-buffer",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds,
                                  int fd) { return SendRights(o, fds, fd, {"file"}); },
                               0);
       }},
      {"scm-rights-dgram",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds,
                                  int fd) { return SendRights(o, fds, fd, {"file"}); },
                               256, SOCK_DGRAM);
       }},
      {"scm-credentials-own",
       [] {
         return SendAndReceive(
             [](Outgoing& o, std::vector<int>&, int fd) { return SendCredentials(o, fd, Own()); });
       }},
      {"scm-credentials-none-sent",
       [] {
         return SendAndReceive(
             [](Outgoing& o, std::vector<int>&, int fd) { return o.Send(fd, 0); });
       }},
      {"scm-credentials-other-pid",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
           ucred c = Own();
           c.pid = 1;
           return SendCredentials(o, fd, c);
         });
       }},
      {"scm-credentials-other-uid-as-user",
       [] {
         return AsUser(1000, 1000, 1000, [] {
           return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
             ucred c = Own();
             c.uid = 0;
             return SendCredentials(o, fd, c);
           });
         });
       }},
      {"scm-credentials-own-as-user",
       [] {
         return AsUser(1000, 1000, 1000, [] {
           return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
             return SendCredentials(o, fd, Own());
           });
         });
       }},
      {"scm-credentials-and-rights",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           fds.push_back(OpenFile("file"));
           ucred c = Own();
           o.Append(SOL_SOCKET, SCM_CREDENTIALS, &c, sizeof c);
           o.Append(SOL_SOCKET, SCM_RIGHTS, &fds.back(), sizeof(int));
           return o.Send(fd);
         });
       }},
      {"scm-two-rights-messages",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>& fds, int fd) {
           fds.push_back(OpenFile("file"));
           fds.push_back(OpenFile("dir/inner"));
           o.Append(SOL_SOCKET, SCM_RIGHTS, &fds[0], sizeof(int));
           o.Append(SOL_SOCKET, SCM_RIGHTS, &fds[1], sizeof(int));
           return o.Send(fd);
         });
       }},
      {"scm-unknown-type",
       [] {
         return SendAndReceive([](Outgoing& o, std::vector<int>&, int fd) {
           int value = 1;
           o.Append(SOL_SOCKET, 77, &value, sizeof value);
           return o.Send(fd);
         });
       }},
      {"sendmsg-1mib-blocking-stream", [] { return LargeSend(1 << 20); }},
      {"connect-unix-full-backlog",
       [] { return ConnectToFullBacklog("/tmp/suite/message/full.sock"); }},
  };
}

}  // namespace vigil::syscall_suite
