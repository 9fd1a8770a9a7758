#include "sentry/names/resolver.h"

#include <ares.h>
#include <poll.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "base/strings.h"

namespace vigil::sentry::names {
namespace {

// The largest datagram a query can be (EDNS clients ask for at most this).
constexpr std::size_t kMostQuery = 65535;

// A c-ares channel with `settings`, asking `upstream` (c-ares's CSV) or,
// if empty, the nameservers of the resolv.conf the settings name.
Result<void> InitChannel(ares_channel& channel, ares_options& settings, int mask,
                         const std::string& upstream) {
  if (int status = ares_init_options(&channel, &settings, mask); status != ARES_SUCCESS) {
    return Fail(StrCat("c-ares: ", ares_strerror(status)));
  }
  if (upstream.empty()) return {};
  if (int status = ares_set_servers_ports_csv(channel, upstream.c_str()); status != ARES_SUCCESS) {
    return Fail(StrCat("upstream nameservers ", Quote(upstream), ": ", ares_strerror(status)));
  }
  return {};
}

}  // namespace

// c-ares's channels — UDP for the workload's UDP queries, TCP for its TCP
// ones (it asked over TCP because the UDP answer was truncated) — the
// upstream sockets they asked the loop to watch and those with a write
// waiting (a TCP query), and whether the resolver is going (its queries
// end with ARES_EDESTRUCTION).
struct Resolver::Channel {
  ares_channel udp = nullptr;
  ares_channel tcp = nullptr;
  std::set<int> watched;
  std::set<int> writing;
  bool ending = false;
  ~Channel() {
    for (ares_channel channel : {udp, tcp}) {
      if (channel != nullptr) ares_destroy(channel);
    }
  }
  // c-ares reads (or writes) `fd` if it is one of this channel's; the
  // other's ignores it.
  void Process(int read_fd, int write_fd) const {
    for (ares_channel channel : {udp, tcp}) {
      if (channel != nullptr) ares_process_fd(channel, read_fd, write_fd);
    }
  }
};

// A query sent upstream: who asked (a UDP client's address, or a TCP
// connection), and the question, to answer and learn.
struct Resolver::Pending {
  Resolver* resolver;
  sockaddr_storage client{};
  socklen_t client_length = 0;
  std::uint64_t connection = 0;  // DnsTcpServer's; 0 for UDP
  std::vector<std::uint8_t> query;
  Question question;
};

Resolver::Resolver(EventLoop& loop, UniqueFd socket, LearnedNames& learned, ResolverOptions options)
    : loop_(loop),
      socket_(std::move(socket)),
      learned_(learned),
      options_(std::move(options)),
      channel_(std::make_unique<Channel>()) {}

Resolver::~Resolver() {
  loop_.Unwatch(socket_.Get());
  tcp_.reset();
  if (timer_) loop_.Unwatch(timer_.Get());
  for (int fd : channel_->watched) loop_.Unwatch(fd);
  channel_->watched.clear();
  // ares_destroy ends each pending query (ARES_EDESTRUCTION, unanswered)
  // and tells of each socket it closes: both find the channel ending.
  channel_->ending = true;
  for (ares_channel* channel : {&channel_->udp, &channel_->tcp}) {
    ares_destroy(*channel);
    *channel = nullptr;
  }
}

Result<std::unique_ptr<Resolver>> Resolver::Start(EventLoop& loop, ResolverSockets sockets,
                                                  LearnedNames& learned, ResolverOptions options) {
  static const int library = ares_library_init(ARES_LIB_INIT_ALL);
  if (library != ARES_SUCCESS) return Fail(StrCat("c-ares: ", ares_strerror(library)));
  std::unique_ptr<Resolver> resolver(
      new Resolver(loop, std::move(sockets.udp), learned, std::move(options)));
  Resolver* self = resolver.get();
  ares_options settings{};
  settings.sock_state_cb = [](void* data, ares_socket_t fd, int readable, int writable) {
    static_cast<Resolver*>(data)->OnUpstreamSocket(fd, readable != 0, writable != 0);
  };
  settings.sock_state_cb_data = self;
  int mask = ARES_OPT_FLAGS | ARES_OPT_SOCK_STATE_CB;
  if (!self->options_.resolv_conf.empty()) {
    settings.resolvconf_path = self->options_.resolv_conf.data();
    mask |= ARES_OPT_RESOLVCONF;
  }
  // A truncated UDP answer goes back as it is: the client asks again over
  // TCP, and that query goes upstream over TCP.
  settings.flags = ARES_FLAG_IGNTC;
  RETURN_IF_ERROR(InitChannel(self->channel_->udp, settings, mask, self->options_.upstream));
  settings.flags = ARES_FLAG_USEVC;
  RETURN_IF_ERROR(InitChannel(self->channel_->tcp, settings, mask, self->options_.upstream));
  self->timer_.Reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!self->timer_) return FailErrno("timerfd_create for the resolver");
  RETURN_IF_ERROR(loop.Watch(self->timer_.Get(), [self](std::uint32_t) {
    std::uint64_t expirations = 0;
    (void)!::read(self->timer_.Get(), &expirations, sizeof expirations);
    self->channel_->Process(ARES_SOCKET_BAD, ARES_SOCKET_BAD);
    self->FlushWrites();
    self->ArmTimer();
  }));
  RETURN_IF_ERROR(loop.Watch(self->socket_.Get(), [self](std::uint32_t) { self->OnDatagrams(); }));
  if (sockets.tcp) {
    ASSIGN_OR_RETURN(self->tcp_, DnsTcpServer::Start(loop, std::move(sockets.tcp),
                                                     [self](std::uint64_t connection,
                                                            std::vector<std::uint8_t> query) {
                                                       auto pending = std::make_unique<Pending>();
                                                       pending->resolver = self;
                                                       pending->connection = connection;
                                                       pending->query = std::move(query);
                                                       self->Decide(std::move(pending));
                                                       self->ArmTimer();
                                                     }));
  }
  return resolver;
}

std::vector<config::Cidr> Resolver::Upstreams() const {
  std::vector<config::Cidr> upstreams;
  ares_addr_port_node* servers = nullptr;
  if (ares_get_servers_ports(channel_->udp, &servers) != ARES_SUCCESS) return upstreams;
  for (const ares_addr_port_node* server = servers; server != nullptr; server = server->next) {
    config::Cidr block{.family = server->family};
    if (server->family == AF_INET) {
      std::memcpy(block.address.data(), &server->addr.addr4, 4);
      block.prefix = 32;
    } else if (server->family == AF_INET6) {
      std::memcpy(block.address.data(), &server->addr.addr6, 16);
      block.prefix = 128;
    } else {
      continue;
    }
    upstreams.push_back(block);
  }
  ares_free_data(servers);
  return upstreams;
}

void Resolver::OnUpstreamSocket(int fd, bool readable, bool writable) {
  if (channel_->ending) return;
  if (writable) {
    channel_->writing.insert(fd);
  } else {
    channel_->writing.erase(fd);
  }
  if (!readable && !writable) {
    if (channel_->watched.erase(fd) != 0) loop_.Unwatch(fd);
    return;
  }
  if (!channel_->watched.insert(fd).second) return;
  // The loop watches reads; writes (a TCP query, while its connection is
  // made) are tried as the timer comes round (FlushWrites).
  if (!loop_.Watch(fd, [this, fd](std::uint32_t) {
        channel_->Process(fd, ARES_SOCKET_BAD);
        FlushWrites();
        ArmTimer();
      })) {
    channel_->watched.erase(fd);
  }
}

void Resolver::FlushWrites() {
  const std::set<int> writing = channel_->writing;  // Process may change it
  for (int fd : writing) {
    pollfd ready{.fd = fd, .events = POLLOUT, .revents = 0};
    if (::poll(&ready, 1, 0) == 1) channel_->Process(ARES_SOCKET_BAD, fd);
  }
}

void Resolver::ArmTimer() {
  timeval soonest{};
  timeval* due = nullptr;
  for (ares_channel channel : {channel_->udp, channel_->tcp}) {
    timeval wait{};
    if (timeval* next = ares_timeout(channel, due, &wait); next != nullptr) {
      soonest = *next;
      due = &soonest;
    }
  }
  // A write waiting is tried again soon.
  constexpr timeval kWriteRetry{.tv_sec = 0, .tv_usec = 5000};
  if (!channel_->writing.empty() && (due == nullptr || timercmp(&kWriteRetry, due, <))) {
    soonest = kWriteRetry;
    due = &soonest;
  }
  itimerspec next{};
  if (due != nullptr) {
    next.it_value.tv_sec = due->tv_sec;
    next.it_value.tv_nsec = due->tv_usec * 1000;
    // Zero would disarm the timer: a timeout due now fires at once.
    if (next.it_value.tv_sec == 0 && next.it_value.tv_nsec == 0) next.it_value.tv_nsec = 1;
  }
  ::timerfd_settime(timer_.Get(), 0, &next, nullptr);
}

void Resolver::Answer(const Pending& pending, const std::vector<std::uint8_t>& reply) {
  if (pending.connection != 0) {
    if (tcp_) tcp_->Send(pending.connection, reply);
    return;
  }
  // A client gone or a full buffer loses the answer; it asks again.
  (void)::sendto(socket_.Get(), reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                 reinterpret_cast<const sockaddr*>(&pending.client), pending.client_length);
}

void Resolver::OnDatagrams() {
  std::vector<std::uint8_t> buffer(kMostQuery);
  while (true) {
    auto pending = std::make_unique<Pending>();
    pending->resolver = this;
    pending->client_length = sizeof pending->client;
    const ssize_t got =
        ::recvfrom(socket_.Get(), buffer.data(), buffer.size(), MSG_DONTWAIT,
                   reinterpret_cast<sockaddr*>(&pending->client), &pending->client_length);
    if (got < 0) break;  // EAGAIN: all read (anything else: nothing to do)
    pending->query.assign(buffer.begin(), buffer.begin() + got);
    Decide(std::move(pending));
  }
  ArmTimer();
}

void Resolver::Decide(std::unique_ptr<Pending> pending) {
  Result<Question> question = ParseQuery(pending->query);
  // Not a query: dropped, as a server drops what it cannot read.
  if (!question) return;
  pending->question = std::move(*question);
  const bool allowed =
      pending->question.klass == kClassIn && options_.allowed(pending->question.name);
  if (!allowed) {
    Answer(*pending, AnswerWithout(pending->query, Rcode::kNameError));
    options_.record({.name = pending->question.name,
                     .type = pending->question.type,
                     .allowed = false,
                     .rcode = Rcode::kNameError});
    return;
  }
  ares_channel channel = pending->connection != 0 ? channel_->tcp : channel_->udp;
  Pending* sent = pending.release();
  ares_send(channel, sent->query.data(), static_cast<int>(sent->query.size()), &Resolver::Answered,
            sent);
}

void Resolver::Answered(void* arg, int status, int /*timeouts*/, unsigned char* answer,
                        int length) {
  std::unique_ptr<Pending> pending(static_cast<Pending*>(arg));
  if (status == ARES_EDESTRUCTION) return;  // the resolver is going
  Resolver& self = *pending->resolver;
  Resolution resolution{
      .name = pending->question.name, .type = pending->question.type, .allowed = true};
  std::vector<std::uint8_t> reply;
  if (status == ARES_SUCCESS && answer != nullptr && length >= 4) {
    reply.assign(answer, answer + length);
    // c-ares sent it with an id of its own: the client's goes back.
    reply[0] = pending->query[0];
    reply[1] = pending->query[1];
    resolution.rcode = static_cast<Rcode>(reply[3] & 0xf);
    resolution.addresses = AddressesIn(reply, pending->question.type);
    const LearnedNames::Clock::time_point now = LearnedNames::Clock::now();
    for (const LearnedAddress& address : resolution.addresses) {
      self.learned_.Learn(pending->question.name, address, now);
    }
  } else {
    // Every upstream failed or refused: the client hears it as a failure.
    resolution.rcode = Rcode::kServerFailure;
    reply = AnswerWithout(pending->query, Rcode::kServerFailure);
  }
  // Learned before the client can connect.
  self.Answer(*pending, reply);
  self.options_.record(resolution);
}

}  // namespace vigil::sentry::names
