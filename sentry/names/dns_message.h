// DNS messages as the sandbox's resolver (docs/policy.md, "Egress by
// name") meets them: the one question of a query the workload sends, the
// answer that refuses it, and the addresses an upstream answer carries,
// with their time to live. Names and records are read by c-ares; the
// sentry writes nothing but the header bits of a refusal.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace vigil::sentry::names {

// RFC 1035 4.1.1 and RFC 3596: what the resolver tells apart.
inline constexpr std::uint16_t kTypeA = 1;
inline constexpr std::uint16_t kTypeAaaa = 28;
inline constexpr std::uint16_t kClassIn = 1;

enum class Rcode : std::uint8_t { kNoError = 0, kServerFailure = 2, kNameError = 3, kRefused = 5 };

// "A", "AAAA", "CNAME", ... for the audit; the number for others.
std::string TypeName(std::uint16_t type);
// "NOERROR", "SERVFAIL", "NXDOMAIN", "REFUSED"; the number for others.
std::string RcodeName(Rcode rcode);

struct Question {
  std::uint16_t id = 0;
  std::string name;  // lower case, without the root's trailing dot
  std::uint16_t type = 0;
  std::uint16_t klass = 0;
};

// The question of `query`: a standard query (QR 0, opcode QUERY) with
// exactly one question. Errors name what is wrong with the message; the
// resolver answers those FORMERR-free, by dropping them (a client retries).
Result<Question> ParseQuery(std::span<const std::uint8_t> query);

// The answer to `query` (ParseQuery accepted it) that carries `rcode` and
// no records: its header and question, QR and RA set.
std::vector<std::uint8_t> AnswerWithout(std::span<const std::uint8_t> query, Rcode rcode);

struct LearnedAddress {
  int family = 0;                          // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> address{};  // IPv4 in the first 4 bytes
  std::chrono::seconds ttl{0};
  bool operator==(const LearnedAddress&) const = default;
};

// The addresses an upstream `answer` to a question of `type` (kTypeA or
// kTypeAaaa) gives, following its CNAME chain, each with the TTL of its
// record (the chain's shortest: c-ares's). Any other type, and an answer
// with an error code, gives none.
std::vector<LearnedAddress> AddressesIn(std::span<const std::uint8_t> answer, std::uint16_t type);

}  // namespace vigil::sentry::names
