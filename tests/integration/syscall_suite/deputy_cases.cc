// The deputy rule (docs/security.md): what the sentry opens or sends for
// the workload must be what the workload itself would get — files whose
// meaning depends on who opens them (its terminal, its network and IPC
// namespaces, its own /proc entries, a new pty) and control messages that
// need a capability. Under audit-only every open here is the sentry's,
// and under a policy that sends for the workload so is every send.
#include <arpa/inet.h>
#include <dirent.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/syscall_suite/suite.h"

namespace vigil::syscall_suite {
namespace {

long OpenAt(const char* path, int flags) {
  return ::syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC);
}

// The directory's entries but . and .., sorted, space-separated.
std::string Listing(const char* path) {
  return WithFd(path, O_RDONLY | O_DIRECTORY, [](int fd) {
    std::vector<std::string> names;
    alignas(8) char buffer[4096];
    for (long n; (n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0;) {
      for (long at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
        at += entry->d_reclen;
      }
    }
    std::sort(names.begin(), names.end());
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
    return text;
  });
}

// A new pty's master, and whether its slave is in the container's devpts.
std::string NewPty() {
  const long fd = OpenAt("/dev/ptmx", O_RDWR | O_NOCTTY);
  if (fd < 0) return Rc(fd);
  unsigned int number = 0;
  std::string text;
  if (::ioctl(static_cast<int>(fd), TIOCGPTN, &number) != 0) {
    text = "TIOCGPTN " + Rc(-1);
  } else {
    struct stat st {};
    const std::string slave = "/dev/pts/" + std::to_string(number);
    text = ::stat(slave.c_str(), &st) == 0 && S_ISCHR(st.st_mode) ? "slave in /dev/pts"
                                                                  : "slave " + Rc(-1);
  }
  ::close(static_cast<int>(fd));
  return text;
}

// Whether a message queue made now is listed in /proc/sysvipc/msg.
std::string OwnQueueListed() {
  constexpr key_t kKey = 0x7375;
  const int queue = ::msgget(kKey, IPC_CREAT | 0600);
  if (queue < 0) return "msgget " + Rc(-1);
  const long fd = OpenAt("/proc/sysvipc/msg", O_RDONLY);
  std::string text;
  if (fd < 0) {
    text = Rc(fd);
  } else {
    std::string contents;
    char buffer[4096];
    for (ssize_t n; (n = ::read(static_cast<int>(fd), buffer, sizeof buffer)) > 0;) {
      contents.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(static_cast<int>(fd));
    text = "not listed";
    std::istringstream lines(contents);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string key;
      if (fields >> key && key == std::to_string(kKey)) text = "listed";
    }
  }
  ::msgctl(queue, IPC_RMID, nullptr);
  return text;
}

// Clears CAP_NET_RAW and CAP_NET_ADMIN from the effective set only: the
// permitted set keeps them, so a sentry that judges by it still sends.
bool DropNetworkCapabilities() {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  data[0].effective &= ~((1U << CAP_NET_RAW) | (1U << CAP_NET_ADMIN));
  return ::syscall(SYS_capset, &header, data) == 0;
}

// One datagram to the loopback with one control message, sent without the
// capabilities it needs (in a child): the kernel's answer.
std::string SendWithControl(int family, int level, int type, const void* option, std::size_t size) {
  return InChild([=] {
    if (!DropNetworkCapabilities()) return "capset " + Rc(-1);
    const int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return "socket " + Rc(-1);
    sockaddr_in v4{
        .sin_family = AF_INET, .sin_port = htons(9), .sin_addr = {htonl(INADDR_LOOPBACK)}};
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(9);
    v6.sin6_addr = in6addr_loopback;
    char payload[] = "suite";
    iovec iov{.iov_base = payload, .iov_len = sizeof payload};
    alignas(cmsghdr) char control[CMSG_SPACE(64)] = {};
    msghdr message{};
    message.msg_name = family == AF_INET ? static_cast<void*>(&v4) : static_cast<void*>(&v6);
    message.msg_namelen = family == AF_INET ? sizeof v4 : sizeof v6;
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(size);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = level;
    header->cmsg_type = type;
    header->cmsg_len = CMSG_LEN(size);
    std::memcpy(CMSG_DATA(header), option, size);
    std::string text = Rc(::syscall(SYS_sendmsg, fd, &message, 0));
    ::close(fd);
    return text;
  });
}

}  // namespace

std::vector<Case> DeputyCases() {
  static const int kMark = 0x7375;
  // An empty hop-by-hop header: next header, length 0, six bytes of PadN.
  static const unsigned char kHopByHop[8] = {0, 0, 1, 4, 0, 0, 0, 0};
  return {
      // The container has no terminal: the sentry's must not stand in.
      {"deputy-dev-tty", [] { return Fd(OpenAt("/dev/tty", O_RDWR | O_NOCTTY)); }},
      {"deputy-ptmx", [] { return NewPty(); }},
      {"deputy-proc-sys-net-conf", [] { return Listing("/proc/sys/net/ipv4/conf"); }},
      {"deputy-proc-sys-hostname", [] { return ContentOf("/proc/sys/kernel/hostname"); }},
      {"deputy-sysvipc-msg", [] { return OwnQueueListed(); }},
      {"deputy-proc-self-comm", [] { return ContentOf("/proc/self/comm"); }},
      {"deputy-proc-thread-self-comm", [] { return ContentOf("/proc/thread-self/comm"); }},
      {"deputy-so-mark-without-capability",
       [] { return SendWithControl(AF_INET, SOL_SOCKET, SO_MARK, &kMark, sizeof kMark); }},
      {"deputy-ipv6-hopopts-without-capability",
       [] {
         return SendWithControl(AF_INET6, IPPROTO_IPV6, IPV6_HOPOPTS, kHopByHop, sizeof kHopByHop);
       }},
  };
}

}  // namespace vigil::syscall_suite
