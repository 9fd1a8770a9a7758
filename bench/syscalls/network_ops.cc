#include "bench/syscalls/network_ops.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vigil::bench {
namespace {

// A query for BENCH_NAME's A records, written into `query`; its length,
// or 0 when there is no name.
std::size_t WriteQuery(std::uint8_t* query, std::size_t size, std::uint16_t id) {
  const char* name = std::getenv("BENCH_NAME");
  if (name == nullptr || std::strlen(name) + 18 > size) return 0;
  const std::uint8_t header[12] = {static_cast<std::uint8_t>(id >> 8),
                                   static_cast<std::uint8_t>(id & 0xff),
                                   0x01,
                                   0x00,
                                   0,
                                   1,
                                   0,
                                   0,
                                   0,
                                   0,
                                   0,
                                   0};
  std::memcpy(query, header, sizeof header);
  std::size_t at = sizeof header;
  for (const char* label = name; *label != '\0';) {
    const char* dot = std::strchr(label, '.');
    const std::size_t length = dot ? static_cast<std::size_t>(dot - label) : std::strlen(label);
    query[at++] = static_cast<std::uint8_t>(length);
    std::memcpy(query + at, label, length);
    at += length;
    label += length + (dot ? 1 : 0);
  }
  query[at++] = 0;
  const std::uint8_t type_class[4] = {0, 1, 0, 1};  // A, IN
  std::memcpy(query + at, type_class, sizeof type_class);
  return at + sizeof type_class;
}

// The first nameserver of /etc/resolv.conf, port 53.
bool Nameserver(sockaddr_in& server) {
  std::FILE* conf = std::fopen("/etc/resolv.conf", "re");
  if (conf == nullptr) return false;
  char line[256];
  char address[64];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, conf) != nullptr) {
    found = std::sscanf(line, " nameserver %63s", address) == 1;
  }
  std::fclose(conf);
  server = {.sin_family = AF_INET, .sin_port = htons(53)};
  return found && ::inet_pton(AF_INET, address, &server.sin_addr) == 1;
}

// A UDP socket connected to the nameserver, as glibc's resolver makes one,
// with a timeout so that a lost answer fails the op instead of hanging it.
bool ResolverSocket(OpContext& c) {
  sockaddr_in server{};
  if (!Nameserver(server)) return false;
  c.sock = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const timeval wait{.tv_sec = 2, .tv_usec = 0};
  return c.sock >= 0 && ::setsockopt(c.sock, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == 0 &&
         ::connect(c.sock, reinterpret_cast<const sockaddr*>(&server), sizeof server) == 0;
}

// One query there and its answer in `answer`; the answer's length, or 0.
std::size_t Ask(OpContext& c, std::uint16_t id, std::uint8_t* answer, std::size_t size) {
  std::uint8_t query[300];
  const std::size_t length = WriteQuery(query, sizeof query, id);
  if (length == 0 || ::send(c.sock, query, length, 0) != static_cast<ssize_t>(length)) return 0;
  const ssize_t got = ::recv(c.sock, answer, size, 0);
  return got >= 12 && answer[0] == query[0] && answer[1] == query[1] ? static_cast<std::size_t>(got)
                                                                     : 0;
}

// The address of the first A record of `answer` (the one question of
// ours, then records whose names are compressed pointers or labels).
bool FirstAddress(const std::uint8_t* answer, std::size_t length, in_addr& address) {
  auto skip_name = [&](std::size_t at) -> std::size_t {
    while (at < length) {
      if ((answer[at] & 0xc0) == 0xc0) return at + 2;
      if (answer[at] == 0) return at + 1;
      at += 1 + answer[at];
    }
    return length;
  };
  const int answers = (answer[6] << 8) | answer[7];
  std::size_t at = skip_name(12) + 4;
  for (int i = 0; i < answers && at + 10 <= length; ++i) {
    at = skip_name(at);
    if (at + 10 > length) return false;
    const int type = (answer[at] << 8) | answer[at + 1];
    const std::size_t data = (std::size_t{answer[at + 8]} << 8) | answer[at + 9];
    at += 10;
    if (type == 1 && data == 4 && at + 4 <= length) {
      std::memcpy(&address, answer + at, 4);
      return true;
    }
    at += data;
  }
  return false;
}

bool DnsSetup(OpContext& c) { return ResolverSocket(c); }

void DnsQuery(OpContext& c, std::uint64_t n) {
  std::uint8_t answer[1500];
  for (std::uint64_t i = 0; i < n; ++i) {
    if (Ask(c, static_cast<std::uint16_t>(i), answer, sizeof answer) == 0) std::abort();
  }
}

// Resolves BENCH_NAME once, as a client would before it connects: under an
// allow-list by name, that answer is what lets the connect through.
bool ConnectSetup(OpContext& c) {
  std::uint8_t answer[1500];
  const char* port = std::getenv("BENCH_PORT");
  if (port == nullptr || !ResolverSocket(c)) return false;
  const std::size_t length = Ask(c, 1, answer, sizeof answer);
  c.target = {.sin_family = AF_INET,
              .sin_port = htons(static_cast<std::uint16_t>(std::atoi(port)))};
  const bool found = length != 0 && FirstAddress(answer, length, c.target.sin_addr);
  ::close(c.sock);
  c.sock = -1;
  return found;
}

void TcpConnect(OpContext& c, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&c.target), sizeof c.target) != 0) {
      std::abort();
    }
    ::close(fd);
  }
}

void CloseSocket(OpContext& c) {
  if (c.sock >= 0) ::close(c.sock);
  c.sock = -1;
}

constexpr Op kNetworkOps[] = {
    {"dns_query", "an A query and its answer, to the resolv.conf nameserver over connected UDP",
     DnsSetup, DnsQuery, CloseSocket},
    {"tcp_connect", "socket + connect to BENCH_NAME's address (resolved once) + close",
     ConnectSetup, TcpConnect, CloseSocket},
};

}  // namespace

const Op* NetworkOps(std::size_t& count) {
  count = sizeof kNetworkOps / sizeof kNetworkOps[0];
  return kNetworkOps;
}

}  // namespace vigil::bench
