// DNS over TCP as the sandbox's resolver serves it (RFC 1035 4.2.2,
// RFC 7766): each message preceded by its length in two bytes, several
// queries on one connection and their answers in any order. Clients use it
// for an answer too long for UDP, and always under resolv.conf's use-vc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/loop/event_loop.h"

namespace vigil::sentry::names {

class DnsTcpServer {
 public:
  // One query as it arrived on the connection numbered `connection`.
  using OnQuery = std::function<void(std::uint64_t connection, std::vector<std::uint8_t> query)>;

  // Accepts connections on `listening` (a listening TCP socket,
  // non-blocking) on `loop`, which outlives the server.
  static Result<std::unique_ptr<DnsTcpServer>> Start(EventLoop& loop, UniqueFd listening,
                                                     OnQuery on_query);
  DnsTcpServer(const DnsTcpServer&) = delete;
  DnsTcpServer& operator=(const DnsTcpServer&) = delete;
  ~DnsTcpServer();

  // Sends `message` on `connection` if it is still open. One that cannot
  // take the whole answer at once is closed: the client asks again.
  void Send(std::uint64_t connection, std::span<const std::uint8_t> message);

  // Connections open at once; past it, a new one is closed at once. They
  // are the workload's own: holding them all starves only its own lookups.
  static constexpr std::size_t kMostConnections = 32;

 private:
  struct Connection {
    UniqueFd fd;
    std::vector<std::uint8_t> received;  // an incomplete message so far
  };
  DnsTcpServer(EventLoop& loop, UniqueFd listening, OnQuery on_query)
      : loop_(loop), listening_(std::move(listening)), on_query_(std::move(on_query)) {}
  void Accept();
  void Receive(std::uint64_t id);
  void Close(std::uint64_t id);

  EventLoop& loop_;
  UniqueFd listening_;
  OnQuery on_query_;
  std::map<std::uint64_t, Connection> connections_;
  std::uint64_t next_id_ = 1;
};

}  // namespace vigil::sentry::names
