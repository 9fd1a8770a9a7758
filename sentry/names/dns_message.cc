#include "sentry/names/dns_message.h"

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <utility>

#include "base/strings.h"

namespace vigil::sentry::names {
namespace {

constexpr std::size_t kHeaderSize = 12;
// Enough for the answers a client asks one question for; more are cut.
constexpr int kMostAddresses = 64;

std::uint16_t Word(std::span<const std::uint8_t> message, std::size_t at) {
  return static_cast<std::uint16_t>(message[at] << 8 | message[at + 1]);
}

void PutWord(std::vector<std::uint8_t>& message, std::size_t at, std::uint16_t value) {
  message[at] = static_cast<std::uint8_t>(value >> 8);
  message[at + 1] = static_cast<std::uint8_t>(value);
}

// The question's name: where it ends (its encoded length) and its text.
struct EncodedName {
  std::string text;
  std::size_t length = 0;
};

Result<EncodedName> ExpandName(std::span<const std::uint8_t> message, std::size_t at) {
  char* name = nullptr;
  long length = 0;
  if (ares_expand_name(message.data() + at, message.data(), static_cast<int>(message.size()), &name,
                       &length) != ARES_SUCCESS) {
    return Fail("the question's name is malformed");
  }
  EncodedName expanded{.text = name, .length = static_cast<std::size_t>(length)};
  ares_free_string(name);
  std::transform(expanded.text.begin(), expanded.text.end(), expanded.text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return expanded;
}

const void* AddressOf(const ares_addrttl& found) { return &found.ipaddr; }
const void* AddressOf(const ares_addr6ttl& found) { return &found.ip6addr; }

// The addresses and TTLs `parse` (c-ares's parser for `Found`, IPv4's or
// IPv6's) reads in `answer`.
template <typename Found, typename Parse>
std::vector<LearnedAddress> Parsed(std::span<const std::uint8_t> answer, int family, Parse parse) {
  Found found[kMostAddresses];
  int count = kMostAddresses;
  std::vector<LearnedAddress> learned;
  if (parse(answer.data(), static_cast<int>(answer.size()), nullptr, found, &count) !=
      ARES_SUCCESS) {
    return learned;
  }
  for (int i = 0; i < count; ++i) {
    LearnedAddress address{.family = family, .ttl = std::chrono::seconds(found[i].ttl)};
    std::memcpy(address.address.data(), AddressOf(found[i]), family == AF_INET ? 4 : 16);
    learned.push_back(address);
  }
  return learned;
}

// The name `value` has in `table`, or its number.
template <typename T, std::size_t N>
std::string NameIn(const std::pair<T, std::string_view> (&table)[N], T value) {
  for (const auto& [known, name] : table) {
    if (known == value) return std::string(name);
  }
  return std::to_string(static_cast<unsigned>(value));
}

}  // namespace

std::string TypeName(std::uint16_t type) {
  // ares_dns_rec_type_tostr is newer than Debian 12's c-ares.
  static constexpr std::pair<std::uint16_t, std::string_view> kTypes[] = {
      {kTypeA, "A"}, {kTypeAaaa, "AAAA"}, {5, "CNAME"}, {12, "PTR"},   {15, "MX"},
      {16, "TXT"},   {33, "SRV"},         {64, "SVCB"}, {65, "HTTPS"},
  };
  return NameIn(kTypes, type);
}

std::string RcodeName(Rcode rcode) {
  static constexpr std::pair<Rcode, std::string_view> kRcodes[] = {
      {Rcode::kNoError, "NOERROR"},
      {Rcode::kServerFailure, "SERVFAIL"},
      {Rcode::kNameError, "NXDOMAIN"},
      {Rcode::kRefused, "REFUSED"},
  };
  return NameIn(kRcodes, rcode);
}

Result<Question> ParseQuery(std::span<const std::uint8_t> query) {
  if (query.size() < kHeaderSize) return Fail(StrCat("a message of ", query.size(), " bytes"));
  const std::uint16_t flags = Word(query, 2);
  if ((flags & 0x8000) != 0) return Fail("a response, not a query");
  if (((flags >> 11) & 0xf) != 0) return Fail(StrCat("opcode ", (flags >> 11) & 0xf));
  if (Word(query, 4) != 1) return Fail(StrCat(Word(query, 4), " questions, not one"));
  ASSIGN_OR_RETURN(EncodedName name, ExpandName(query, kHeaderSize));
  const std::size_t fixed = kHeaderSize + name.length;
  if (query.size() < fixed + 4) return Fail("the question is cut short");
  return Question{.id = Word(query, 0),
                  .name = std::move(name.text),
                  .type = Word(query, fixed),
                  .klass = Word(query, fixed + 2)};
}

std::vector<std::uint8_t> AnswerWithout(std::span<const std::uint8_t> query, Rcode rcode) {
  char* ignored = nullptr;
  long name_length = 0;
  (void)ares_expand_name(query.data() + kHeaderSize, query.data(), static_cast<int>(query.size()),
                         &ignored, &name_length);
  ares_free_string(ignored);
  std::vector<std::uint8_t> answer(query.begin(), query.begin() + kHeaderSize + name_length + 4);
  // QR, the query's opcode and RD, RA, and the code.
  const std::uint16_t flags = Word(query, 2);
  PutWord(answer, 2,
          static_cast<std::uint16_t>(0x8000 | (flags & 0x7900) | 0x0080 |
                                     static_cast<std::uint16_t>(rcode)));
  PutWord(answer, 6, 0);   // ANCOUNT
  PutWord(answer, 8, 0);   // NSCOUNT
  PutWord(answer, 10, 0);  // ARCOUNT
  return answer;
}

std::vector<LearnedAddress> AddressesIn(std::span<const std::uint8_t> answer, std::uint16_t type) {
  if (answer.size() < kHeaderSize || (Word(answer, 2) & 0xf) != 0) return {};
  if (type == kTypeA) return Parsed<ares_addrttl>(answer, AF_INET, ares_parse_a_reply);
  if (type == kTypeAaaa) return Parsed<ares_addr6ttl>(answer, AF_INET6, ares_parse_aaaa_reply);
  return {};
}

}  // namespace vigil::sentry::names
