// The confused deputy: something of the runtime's acting for the workload
// with more than the workload has — the operator's terminal, the
// supervisor's namespaces or capabilities, the supervisor's control socket
// (docs/security.md, "The deputy rule"). Each attack asks for what the
// workload itself would be refused, by a route that makes the runtime do
// it (the harness sets the policy that routes the call through vigil's
// sentry; other runtimes make the call natively and must refuse it too).
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attack.h"

namespace vigil::security {
namespace {

// What TIOCSTI pushes: a comment line, harmless if a shell reads it.
constexpr char kInjected[] = "#vsec-injected\n";

// Pushes kInjected into the input of the terminal `fd` is; true if any
// byte went in.
bool Inject(int fd) {
  bool any = false;
  for (const char* c = kInjected; *c != '\0'; ++c) {
    if (::ioctl(fd, TIOCSTI, c) == 0) any = true;
  }
  return any;
}

// `vigil exec ID /attack exec-tty-inject` typed in the operator's shell
// (the harness gives the exec a terminal of its own as its controlling
// one and its stdin): a process left in the operator's session reaches
// that terminal through /dev/tty and through the descriptor it inherited.
Outcome ExecTtyInject(const Context&) {
  std::string detail;
  bool escaped = false;
  if (Inject(0)) {
    escaped = true;
    detail = "TIOCSTI on stdin pushed input into the operator's terminal; ";
  } else {
    detail = "TIOCSTI on stdin: " + ErrnoText(errno) + "; ";
  }
  const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty < 0)
    return escaped ? Escaped(detail + "/dev/tty: " + ErrnoText(errno))
                   : Contained(detail + "/dev/tty: " + ErrnoText(errno));
  detail += "/dev/tty opened (a controlling terminal of the host's)";
  if (Inject(tty)) detail += ", TIOCSTI on it pushed input";
  ::close(tty);
  return Escaped(detail);
}

// A container without a terminal opens /dev/tty under a policy whose file
// rules have the runtime open it (the harness starts the runtime with a
// controlling terminal, as an operator's shell would): natively ENXIO.
Outcome DeputyDevTty(const Context&) {
  const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty < 0) return Contained("open(/dev/tty): " + ErrnoText(errno));
  std::string detail = "open(/dev/tty) gave a terminal the container does not have";
  if (Inject(tty)) detail += ", and TIOCSTI pushed input into it";
  ::close(tty);
  return Escaped(detail);
}

// /dev/net/tun opened through the runtime by a container holding
// CAP_NET_ADMIN over its own network: the interface it makes must be in
// that network, not in the namespace of whoever opened the device.
Outcome DeputyTunNetns(const Context&) {
  const int tun = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (tun < 0) return Contained("open(/dev/net/tun): " + ErrnoText(errno));
  ifreq request{};
  std::strncpy(request.ifr_name, "vsectun0", IFNAMSIZ - 1);
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  if (::ioctl(tun, TUNSETIFF, &request) != 0) {
    const int error = errno;
    ::close(tun);
    return Contained("TUNSETIFF: " + ErrnoText(error));
  }
  const unsigned int index = ::if_nametoindex(request.ifr_name);
  const int error = errno;
  ::close(tun);
  if (index != 0) return Contained("the tun interface is in the container's own network");
  return Escaped(
      std::string("TUNSETIFF made ") + request.ifr_name +
      " in a network namespace not the container's (if_nametoindex: " + ErrnoText(error) + ")");
}

// The names in directory `path` but . and ..; false if it cannot be read.
bool ListDirectory(const std::string& path, std::set<std::string>& names, std::string& why) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    why = path + ": " + ErrnoText(errno);
    return false;
  }
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.insert(name);
  }
  ::closedir(dir);
  return true;
}

// /proc/sys/net looked up through the runtime: a new network namespace
// has only its loopback, so any other interface there is someone else's.
Outcome DeputyProcSysNet(const Context&) {
  std::set<std::string> names;
  std::string why;
  if (!ListDirectory("/proc/sys/net/ipv4/conf", names, why)) return Contained(why);
  std::string others;
  for (const std::string& name : names) {
    if (name != "all" && name != "default" && name != "lo") others += " " + name;
  }
  if (others.empty()) return Contained("/proc/sys/net/ipv4/conf lists only the container's lo");
  return Escaped("/proc/sys/net/ipv4/conf lists interfaces of another network:" + others);
}

// /proc/sysvipc/msg opened through the runtime must list the container's
// own IPC namespace: a message queue made here must be in it.
Outcome DeputySysvIpc(const Context&) {
  constexpr key_t kKey = 0x76736563;  // "vsec"
  const int queue = ::msgget(kKey, IPC_CREAT | 0600);
  if (queue < 0) return Contained("msgget: " + ErrnoText(errno));
  const int fd = ::open("/proc/sysvipc/msg", O_RDONLY | O_CLOEXEC);
  std::string text;
  int error = errno;
  if (fd >= 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
      text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
  }
  ::msgctl(queue, IPC_RMID, nullptr);
  if (fd < 0) return Contained("/proc/sysvipc/msg: " + ErrnoText(error));
  // Each line after the header starts with a queue's key, padded.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string key;
    if (fields >> key && key == std::to_string(kKey)) {
      return Contained("/proc/sysvipc/msg lists the container's own queue");
    }
  }
  return Escaped(
      "/proc/sysvipc/msg shows another IPC namespace (the container's queue is missing)");
}

// Lowers the effective set to the permitted set without `dropped`.
bool DropEffective(std::uint64_t dropped) {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  data[0].effective &= ~static_cast<std::uint32_t>(dropped);
  data[1].effective &= ~static_cast<std::uint32_t>(dropped >> 32);
  return ::syscall(SYS_capset, &header, data) == 0;
}

// Sends one datagram with the control message `type` at `level` (an int
// or raw `option` bytes) to `address`; the errno, 0 if it went.
int SendWithControl(const sockaddr* address, socklen_t length, int level, int type,
                    const void* option, std::size_t option_size) {
  const int fd = ::socket(address->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  alignas(cmsghdr) char control[CMSG_SPACE(64)] = {};
  char payload[] = "vsec";
  iovec iov{.iov_base = payload, .iov_len = sizeof payload};
  msghdr message{};
  message.msg_name = const_cast<sockaddr*>(address);
  message.msg_namelen = length;
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = CMSG_SPACE(option_size);
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = level;
  header->cmsg_type = type;
  header->cmsg_len = CMSG_LEN(option_size);
  std::memcpy(CMSG_DATA(header), option, option_size);
  const int error = ::sendmsg(fd, &message, 0) < 0 ? errno : 0;
  ::close(fd);
  return error;
}

// With CAP_NET_RAW and CAP_NET_ADMIN out of its effective set, the
// workload sends control messages that need one of them, under an egress
// policy that has the runtime send: SO_MARK, an IPv6 hop-by-hop header.
// The kernel refuses both (EPERM) before it routes anything; any other
// answer means the capability check passed.
Outcome DeputyControlMessages(const Context&) {
  if (!DropEffective((1ULL << CAP_NET_RAW) | (1ULL << CAP_NET_ADMIN))) {
    return Contained("capset: " + ErrnoText(errno) + " (could not set up the attack)");
  }
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_port = htons(9);
  v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int mark = 0x7653;
  const int mark_error = SendWithControl(reinterpret_cast<sockaddr*>(&v4), sizeof v4, SOL_SOCKET,
                                         SO_MARK, &mark, sizeof mark);
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(9);
  v6.sin6_addr = in6addr_loopback;
  // An empty hop-by-hop header: next header, length 0, six bytes of PadN.
  const unsigned char hop_by_hop[8] = {0, 0, 1, 4, 0, 0, 0, 0};
  const int hop_error = SendWithControl(reinterpret_cast<sockaddr*>(&v6), sizeof v6, IPPROTO_IPV6,
                                        IPV6_HOPOPTS, hop_by_hop, sizeof hop_by_hop);
  auto said = [](int error) { return error == 0 ? std::string("sent") : ErrnoText(error); };
  const std::string detail =
      "SO_MARK to 127.0.0.1: " + said(mark_error) + "; IPV6_HOPOPTS to ::1: " + said(hop_error);
  return mark_error == EPERM && hop_error == EPERM ? Contained(detail) : Escaped(detail);
}

// The runtime's state root, bound into the container by the harness (as
// when `--root` or a user's TMPDIR lies where the sandbox can read): a
// supervisor control socket there must take no orders from the container.
// "paused" would stop its own timeout's clock.
Outcome ControlSocketOrders(const Context&) {
  constexpr char kRoot[] = "/vsec-root";
  std::set<std::string> containers;
  std::string why;
  if (!ListDirectory(kRoot, containers, why)) return Contained(why);
  // Containers are named by their ids, which hold the harness's token:
  // never printed.
  std::string detail;
  int found = 0;
  for (const std::string& id : containers) {
    const std::string path = std::string(kRoot) + "/" + id + "/control.sock";
    if (::access(path.c_str(), F_OK) != 0) continue;
    ++found;
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      detail += "connect: " + ErrnoText(errno) + "; ";
      ::close(fd);
      continue;
    }
    char reply[256] = {};
    // A supervisor that refuses may answer before the request is sent.
    (void)::send(fd, "paused", 6, MSG_NOSIGNAL);
    const ssize_t n = ::recv(fd, reply, sizeof reply - 1, 0);
    ::close(fd);
    const std::string answer = n > 0 ? std::string(reply, static_cast<std::size_t>(n)) : "no reply";
    if (answer == "ok") return Escaped("a supervisor obeyed \"paused\" from the container");
    detail += "a supervisor answered: " + answer + "; ";
  }
  if (found == 0) return Contained("no control socket in the state root");
  return Contained(detail);
}

// Connects a stream socket to the unix socket at `path`; the errno, 0 if
// it connected.
int ConnectUnix(const char* path, int type = SOCK_STREAM) {
  const int fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
  const int error =
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ? 0 : errno;
  ::close(fd);
  return error;
}

// A host daemon's sockets bound into the container at /run/vsec (a
// stream one, as docker.sock, and a datagram one), under a policy that
// hides the directory: stat says it is not there, so no route may reach
// the daemons — by absolute path, relative path, from inside the
// directory, through a symlink, or by sendto.
Outcome HiddenSocketConnect(const Context&) {
  std::string detail;
  bool escaped = false;
  auto tried = [&](const std::string& how, int error) {
    detail += how + ": " + (error == 0 ? std::string("reached") : ErrnoText(error)) + "; ";
    if (error == 0) escaped = true;
  };
  struct stat st {};
  detail += std::string("stat: ") +
            (::stat("/run/vsec/stream.sock", &st) == 0 ? "found" : ErrnoText(errno)) + "; ";
  tried("absolute", ConnectUnix("/run/vsec/stream.sock"));
  if (::chdir("/run") == 0) tried("relative", ConnectUnix("vsec/stream.sock"));
  if (::chdir("/run/vsec") == 0) tried("inside", ConnectUnix("stream.sock"));
  (void)::chdir("/");
  ::unlink("/tmp/vsec-link");
  if (::symlink("/run/vsec/stream.sock", "/tmp/vsec-link") == 0) {
    tried("symlink", ConnectUnix("/tmp/vsec-link"));
  }
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, "/run/vsec/dgram.sock", sizeof address.sun_path - 1);
  const bool sent =
      ::sendto(fd, "vsec", 4, 0, reinterpret_cast<sockaddr*>(&address), sizeof address) == 4;
  tried("sendto", sent ? 0 : errno);
  ::close(fd);
  return escaped ? Escaped(detail) : Contained(detail);
}

// An IPv4 loose source route through 192.0.2.1 (TEST-NET-1, refused by
// the allow-list), padded with IPOPT_END to a multiple of 4 bytes.
constexpr unsigned char kLooseSourceRoute[8] = {0x83, 7, 4, 192, 0, 2, 1, 0};

// An IPv6 segment routing header (type 4) whose first segment is
// 2001:db8::1 (documentation space, refused) and last ::1 (allowed).
std::vector<unsigned char> SegmentRoutingHeader() {
  std::vector<unsigned char> header = {0, 4, 4, 1,
                                       1, 0, 0, 0};  // nexthdr, hdrlen, type, left, first
  in6_addr last = in6addr_loopback;
  in6_addr first{};
  ::inet_pton(AF_INET6, "2001:db8::1", &first);
  for (const in6_addr* segment : {&last, &first}) {
    header.insert(header.end(), segment->s6_addr, segment->s6_addr + 16);
  }
  return header;
}

// Under an egress allow-list of the loopback, options and control messages
// that send the packet to a refused address first: IP_OPTIONS with a
// source route and an IPv6 routing header, by setsockopt and per message
// (IP_RETOPTS, IPV6_RTHDR). Natively the kernel takes them without any
// capability; anything but a refusal means the allow-list was passed by.
Outcome EgressRouteOptions(const Context&) {
  std::string detail;
  bool escaped = false;
  auto judged = [&](const std::string& what, int error) {
    detail += what + ": " + (error == 0 ? std::string("taken") : ErrnoText(error)) + "; ";
    if (!IsRefusal(error)) escaped = true;
  };
  const std::vector<unsigned char> srh = SegmentRoutingHeader();
  const int v4 = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  judged("setsockopt IP_OPTIONS",
         ::setsockopt(v4, IPPROTO_IP, IP_OPTIONS, kLooseSourceRoute, sizeof kLooseSourceRoute) == 0
             ? 0
             : errno);
  ::close(v4);
  const int v6 = ::socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  judged("setsockopt IPV6_RTHDR", ::setsockopt(v6, IPPROTO_IPV6, IPV6_RTHDR, srh.data(),
                                               static_cast<socklen_t>(srh.size())) == 0
                                      ? 0
                                      : errno);
  ::close(v6);
  sockaddr_in to4{};
  to4.sin_family = AF_INET;
  to4.sin_port = htons(9);
  to4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  judged("sendmsg IP_RETOPTS",
         SendWithControl(reinterpret_cast<sockaddr*>(&to4), sizeof to4, IPPROTO_IP, IP_RETOPTS,
                         kLooseSourceRoute, sizeof kLooseSourceRoute));
  sockaddr_in6 to6{};
  to6.sin6_family = AF_INET6;
  to6.sin6_port = htons(9);
  to6.sin6_addr = in6addr_loopback;
  judged("sendmsg IPV6_RTHDR", SendWithControl(reinterpret_cast<sockaddr*>(&to6), sizeof to6,
                                               IPPROTO_IPV6, IPV6_RTHDR, srh.data(), srh.size()));
  return escaped ? Escaped(detail) : Contained(detail);
}

// Threads held in calls the sentry waits in for the workload (opens of a
// FIFO nobody writes to), more than it has fibers up front; meanwhile
// another process's stat must be answered, and the operator's `vigil
// exec` (the harness runs one once READY is printed, while the threads
// wait for the next 12 s: the runner judges that part). The threads are
// never released: the process's end ends them.
constexpr int kWaitingThreads = 120;

Outcome FifoStarvation(const Context&) {
  constexpr char kFifo[] = "/tmp/vsec-fifo";
  ::unlink(kFifo);
  if (::mkfifo(kFifo, 0600) != 0) return Contained("mkfifo: " + ErrnoText(errno));
  int started = 0;
  for (int i = 0; i < kWaitingThreads; ++i) {
    std::thread([&] { (void)::open(kFifo, O_RDONLY | O_CLOEXEC); }).detach();
    ++started;
  }
  ::usleep(500 * 1000);
  (void)!::write(1, "READY\n", 6);
  ChildResult stat = InChild(
      [] {
        struct stat st {};
        return static_cast<long>(::stat("/etc/passwd", &st));
      },
      3000);
  const std::string detail = std::to_string(started) +
                             " threads in FIFO opens; another process's stat: " + stat.Describe();
  ::sleep(12);  // still waiting while the harness execs
  return stat.exited && stat.ret == 0 ? Contained(detail) : Escaped(detail);
}

// Run by an unprivileged user (rootless, as `vigil do` runs), under an
// egress policy that has the sentry make unix connects and sends: a unix
// server and client in /tmp, stream and datagram. The supervisor must
// neither end (its audit of everything before would be lost, and every
// later mediated call fail) nor refuse what the kernel allows.
Outcome RootlessUnixIpc(const Context&) {
  constexpr char kStream[] = "/tmp/vsec-ipc.sock";
  constexpr char kDatagram[] = "/tmp/vsec-ipc.dgram";
  ::unlink(kStream);
  ::unlink(kDatagram);
  auto bound = [](const char* path, int type) {
    const int fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return -1;
    return fd;
  };
  const int server = bound(kStream, SOCK_STREAM);
  const int receiver = bound(kDatagram, SOCK_DGRAM);
  if (server < 0 || receiver < 0 || ::listen(server, 1) != 0) {
    return Contained("could not set up the servers: " + ErrnoText(errno));
  }
  std::string detail;
  const int connected = ConnectUnix(kStream);
  detail += "connect: " + (connected == 0 ? std::string("done") : ErrnoText(connected)) + "; ";
  const int sender = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  std::strncpy(to.sun_path, kDatagram, sizeof to.sun_path - 1);
  const bool sent =
      ::sendto(sender, "vsec", 4, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) == 4;
  detail += std::string("sendto: ") + (sent ? "done" : ErrnoText(errno)) + "; ";
  char got[8] = {};
  const bool received = sent && ::recv(receiver, got, sizeof got, MSG_DONTWAIT) == 4;
  // The sentry still answers: a mediated call after them.
  struct stat st {};
  const bool answering = ::stat("/tmp", &st) == 0;
  detail += std::string("then stat: ") + (answering ? "answered" : ErrnoText(errno));
  const bool fine = connected == 0 && received && answering;
  return fine ? Contained(detail) : Escaped(detail);
}

}  // namespace

const std::vector<Attack>& DeputyAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"exec-tty-inject", ExecTtyInject,
       "an exec'd process pushes a line into the operator's terminal (TIOCSTI, /dev/tty)"},
      {"deputy-dev-tty", DeputyDevTty,
       "/dev/tty of a container without a terminal, via the runtime"},
      {"deputy-tun-netns", DeputyTunNetns,
       "a tun interface made through the runtime lands outside the container's network"},
      {"deputy-proc-sys-net", DeputyProcSysNet,
       "/proc/sys/net via the runtime shows another network"},
      {"deputy-sysvipc", DeputySysvIpc,
       "/proc/sysvipc via the runtime shows another IPC namespace"},
      {"deputy-control-messages", DeputyControlMessages,
       "SO_MARK and IPV6_HOPOPTS without the capabilities, sent by the runtime"},
      {"control-socket-orders", ControlSocketOrders,
       "the supervisor's control socket obeys a process of the container"},
      {"egress-route-options", EgressRouteOptions,
       "IPv4 source routes and IPv6 routing headers through a refused address"},
      {"fifo-starvation", FifoStarvation,
       "120 threads wait in FIFO opens; another process's stat and an exec must be answered"},
      {"rootless-unix-ipc", RootlessUnixIpc,
       "as an unprivileged user: unix IPC that the runtime makes must not end its supervisor"},
      {"hidden-socket-connect", HiddenSocketConnect,
       "a host daemon's socket in a hidden directory, by path, relative, inside, link, sendto"},
  };
  return kAttacks;
}

}  // namespace vigil::security
