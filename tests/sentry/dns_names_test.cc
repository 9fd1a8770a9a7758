// The sandbox resolver's parts that need no network: reading a query's
// question, the answer that refuses it, the addresses an upstream answer
// carries, and what the sandbox learned by name.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sentry/names/dns_message.h"
#include "sentry/names/learned_names.h"
#include "tests/sentry/dns_message_builder.h"

namespace vigil::sentry::names {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;
using test::Ipv4;
using test::Message;

TEST(ParseQueryTest, ReadsTheQuestionInLowerCase) {
  Message query(0x1234, 0x0100, 1, 0);
  query.Question("API.Example.COM", kTypeAaaa);
  Result<Question> question = ParseQuery(query.bytes());
  ASSERT_TRUE(question) << question.error().message;
  EXPECT_EQ(question->id, 0x1234);
  EXPECT_EQ(question->name, "api.example.com");
  EXPECT_EQ(question->type, kTypeAaaa);
  EXPECT_EQ(question->klass, kClassIn);
}

TEST(ParseQueryTest, RefusesWhatIsNotOneStandardQuestion) {
  Message response(1, 0x8180, 1, 0);
  response.Question("example.com", kTypeA);
  EXPECT_THAT(ParseQuery(response.bytes()).error().message, HasSubstr("a response"));
  Message update(1, 5 << 11, 1, 0);
  update.Question("example.com", kTypeA);
  EXPECT_THAT(ParseQuery(update.bytes()).error().message, HasSubstr("opcode 5"));
  Message two(1, 0x0100, 2, 0);
  two.Question("a.example.com", kTypeA).Question("b.example.com", kTypeA);
  EXPECT_THAT(ParseQuery(two.bytes()).error().message, HasSubstr("2 questions"));
  Message cut(1, 0x0100, 1, 0);
  cut.Name("example.com").Word(kTypeA);
  EXPECT_THAT(ParseQuery(cut.bytes()).error().message, HasSubstr("cut short"));
  std::vector<std::uint8_t> header_only = Message(1, 0x0100, 1, 0).bytes();
  EXPECT_FALSE(ParseQuery(header_only));
  EXPECT_FALSE(ParseQuery(std::vector<std::uint8_t>(5, 0)));
  // A name pointing at itself: c-ares stops it.
  Message loop(1, 0x0100, 1, 0);
  loop.Word(0xc00c).Word(kTypeA).Word(kClassIn);
  EXPECT_FALSE(ParseQuery(loop.bytes()));
}

TEST(AnswerWithoutTest, KeepsTheIdAndQuestionAndSetsTheCode) {
  Message query(0xbeef, 0x0100, 1, 0);
  query.Question("leak.attacker.example", kTypeA);
  // An EDNS record after the question is dropped with the rest.
  query.Word(0).Word(41).Word(1232).Word(0).Word(0).Word(0);
  const std::vector<std::uint8_t> answer = AnswerWithout(query.bytes(), Rcode::kRefused);
  Message expected(0xbeef, 0x8185, 1, 0);
  expected.Question("leak.attacker.example", kTypeA);
  EXPECT_EQ(answer, expected.bytes());
  EXPECT_THAT(AddressesIn(answer, kTypeA), IsEmpty());
}

TEST(AddressesInTest, FollowsTheCnameChainWithEachRecordsTtl) {
  Message answer(7, 0x8180, 1, 3);
  answer.Question("api.example.com", kTypeA)
      .Cname("api.example.com", 300, "edge.cdn.example.net")
      .Record("edge.cdn.example.net", kTypeA, 20, Ipv4("192.0.2.10"))
      .Record("edge.cdn.example.net", kTypeA, 60, Ipv4("192.0.2.11"));
  const std::vector<LearnedAddress> learned = AddressesIn(answer.bytes(), kTypeA);
  ASSERT_EQ(learned.size(), 2u);
  EXPECT_EQ(learned[0].family, AF_INET);
  EXPECT_EQ(std::vector<std::uint8_t>(learned[0].address.begin(), learned[0].address.begin() + 4),
            Ipv4("192.0.2.10"));
  // c-ares gives each address the shorter of its own TTL and the chain's.
  EXPECT_EQ(learned[0].ttl, 20s);
  EXPECT_EQ(learned[1].ttl, 60s);
}

TEST(AddressesInTest, AnErrorOrAnotherTypeGivesNone) {
  Message nxdomain(7, 0x8183, 1, 0);
  nxdomain.Question("nothing.example.com", kTypeA);
  EXPECT_THAT(AddressesIn(nxdomain.bytes(), kTypeA), IsEmpty());
  Message txt(7, 0x8180, 1, 1);
  txt.Question("example.com", 16).Record("example.com", 16, 60, {3, 'a', 'b', 'c'});
  EXPECT_THAT(AddressesIn(txt.bytes(), 16), IsEmpty());
  EXPECT_THAT(AddressesIn(std::vector<std::uint8_t>(3, 0), kTypeA), IsEmpty());
}

LearnedAddress V4(const char* text, std::chrono::seconds ttl) {
  LearnedAddress address{.family = AF_INET, .ttl = ttl};
  EXPECT_EQ(inet_pton(AF_INET, text, address.address.data()), 1);
  return address;
}

TEST(LearnedNamesTest, AnAddressStandsForItsNamesUntilTtlAndGrace) {
  LearnedNames learned(30s);
  const auto start = LearnedNames::Clock::time_point{} + 1000s;
  const LearnedAddress address = V4("192.0.2.10", 20s);
  learned.Learn("api.example.com", address, start);
  learned.Learn("static.example.com", address, start);
  EXPECT_THAT(learned.NamesOf(AF_INET, address.address.data(), start + 50s),
              ElementsAre("api.example.com", "static.example.com"));
  EXPECT_THAT(learned.NamesOf(AF_INET, address.address.data(), start + 51s), IsEmpty());
  // Another family's address with the same first bytes is another address.
  EXPECT_THAT(learned.NamesOf(AF_INET6, address.address.data(), start), IsEmpty());
}

TEST(LearnedNamesTest, AFreshAnswerRenewsAndAShorterTtlNeverCuts) {
  LearnedNames learned(0s);
  const auto start = LearnedNames::Clock::time_point{} + 1000s;
  learned.Learn("api.example.com", V4("192.0.2.10", 60s), start);
  learned.Learn("api.example.com", V4("192.0.2.10", 5s), start + 10s);
  const LearnedAddress address = V4("192.0.2.10", 0s);
  EXPECT_THAT(learned.NamesOf(AF_INET, address.address.data(), start + 60s),
              ElementsAre("api.example.com"));
  learned.Learn("api.example.com", V4("192.0.2.10", 60s), start + 50s);
  EXPECT_THAT(learned.NamesOf(AF_INET, address.address.data(), start + 110s),
              ElementsAre("api.example.com"));
}

TEST(LearnedNamesTest, KeepsAtMostItsLimitDroppingExpiredThenOldest) {
  LearnedNames learned(0s, /*most=*/2);
  const auto start = LearnedNames::Clock::time_point{} + 1000s;
  learned.Learn("a.example.com", V4("192.0.2.1", 10s), start);
  learned.Learn("b.example.com", V4("192.0.2.2", 100s), start + 1s);
  // At +20 s the first has expired: it goes, the second stays.
  learned.Learn("c.example.com", V4("192.0.2.3", 100s), start + 20s);
  EXPECT_EQ(learned.size(), 2u);
  EXPECT_THAT(learned.NamesOf(AF_INET, V4("192.0.2.2", 0s).address.data(), start + 20s),
              ElementsAre("b.example.com"));
  // Nothing expired: the oldest (b) goes.
  learned.Learn("d.example.com", V4("192.0.2.4", 100s), start + 30s);
  EXPECT_EQ(learned.size(), 2u);
  EXPECT_THAT(learned.NamesOf(AF_INET, V4("192.0.2.2", 0s).address.data(), start + 30s), IsEmpty());
  EXPECT_THAT(learned.NamesOf(AF_INET, V4("192.0.2.3", 0s).address.data(), start + 30s),
              ElementsAre("c.example.com"));
}

}  // namespace
}  // namespace vigil::sentry::names
