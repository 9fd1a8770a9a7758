#include "sentry/names/dns_tcp.h"

#include <sys/socket.h>

#include <cerrno>
#include <utility>

namespace vigil::sentry::names {
namespace {

// Enough send buffer for the longest answer (64 KiB and its length), so
// that an answer goes out in one send or not at all.
constexpr int kSendBuffer = 128 * 1024;

}  // namespace

Result<std::unique_ptr<DnsTcpServer>> DnsTcpServer::Start(EventLoop& loop, UniqueFd listening,
                                                          OnQuery on_query) {
  std::unique_ptr<DnsTcpServer> server(
      new DnsTcpServer(loop, std::move(listening), std::move(on_query)));
  DnsTcpServer* self = server.get();
  RETURN_IF_ERROR(loop.Watch(self->listening_.Get(), [self](std::uint32_t) { self->Accept(); }));
  return server;
}

DnsTcpServer::~DnsTcpServer() {
  loop_.Unwatch(listening_.Get());
  for (auto& [id, connection] : connections_) loop_.Unwatch(connection.fd.Get());
}

void DnsTcpServer::Accept() {
  while (true) {
    UniqueFd accepted(::accept4(listening_.Get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!accepted) return;  // EAGAIN: none left (anything else: nothing to do)
    if (connections_.size() >= kMostConnections) continue;  // closed as it goes
    ::setsockopt(accepted.Get(), SOL_SOCKET, SO_SNDBUF, &kSendBuffer, sizeof kSendBuffer);
    const std::uint64_t id = next_id_++;
    const int fd = accepted.Get();
    connections_.emplace(id, Connection{.fd = std::move(accepted)});
    if (!loop_.Watch(fd, [this, id](std::uint32_t) { Receive(id); })) connections_.erase(id);
  }
}

void DnsTcpServer::Receive(std::uint64_t id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& connection = it->second;
  std::uint8_t buffer[4096];
  const ssize_t got = ::recv(connection.fd.Get(), buffer, sizeof buffer, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (got <= 0) {  // the client closed, or the connection failed
    Close(id);
    return;
  }
  std::vector<std::uint8_t>& received = connection.received;
  received.insert(received.end(), buffer, buffer + got);
  // The complete messages first: answering one may close the connection.
  std::vector<std::vector<std::uint8_t>> queries;
  auto next = received.begin();
  while (received.end() - next >= 2) {
    const std::ptrdiff_t length = (std::ptrdiff_t{next[0]} << 8) | next[1];
    if (received.end() - next - 2 < length) break;
    queries.emplace_back(next + 2, next + 2 + length);
    next += 2 + length;
  }
  received.erase(received.begin(), next);
  for (std::vector<std::uint8_t>& query : queries) on_query_(id, std::move(query));
}

void DnsTcpServer::Send(std::uint64_t id, std::span<const std::uint8_t> message) {
  auto it = connections_.find(id);
  if (it == connections_.end() || message.size() > 0xffff) return;
  std::vector<std::uint8_t> framed;
  framed.reserve(message.size() + 2);
  framed.push_back(static_cast<std::uint8_t>(message.size() >> 8));
  framed.push_back(static_cast<std::uint8_t>(message.size() & 0xff));
  framed.insert(framed.end(), message.begin(), message.end());
  const ssize_t sent =
      ::send(it->second.fd.Get(), framed.data(), framed.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent != static_cast<ssize_t>(framed.size())) Close(id);
}

void DnsTcpServer::Close(std::uint64_t id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  loop_.Unwatch(it->second.fd.Get());
  connections_.erase(it);
}

}  // namespace vigil::sentry::names
