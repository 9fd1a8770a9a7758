#include "config/policy/cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>

#include "base/strings.h"

namespace vigil::config {
namespace {

int AddressBytes(int family) { return family == AF_INET ? 4 : 16; }

// Whether the first `prefix` bits of `a` and `b` agree.
bool PrefixEqual(const std::uint8_t* a, const std::uint8_t* b, int prefix) {
  int whole = prefix / 8;
  for (int i = 0; i < whole; ++i) {
    if (a[i] != b[i]) return false;
  }
  int rest = prefix % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

// A copy of `cidr` with the bits beyond its prefix cleared.
Cidr Masked(Cidr cidr) {
  for (int bit = cidr.prefix; bit < AddressBytes(cidr.family) * 8; ++bit) {
    cidr.address[bit / 8] &= static_cast<std::uint8_t>(~(0x80 >> (bit % 8)));
  }
  return cidr;
}

constexpr std::uint8_t kV4MappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

}  // namespace

Result<Cidr> ParseCidr(std::string_view text) {
  std::size_t slash = text.find('/');
  std::string address(text.substr(0, slash));
  Cidr cidr;
  cidr.family = address.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (::inet_pton(cidr.family, address.c_str(), cidr.address.data()) != 1) {
    return Fail(
        StrCat("invalid ", cidr.family == AF_INET ? "IPv4" : "IPv6", " address ", Quote(address)));
  }
  int max_prefix = AddressBytes(cidr.family) * 8;
  cidr.prefix = max_prefix;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cidr.prefix);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
        cidr.prefix < 0 || cidr.prefix > max_prefix) {
      return Fail(StrCat("invalid prefix length ", Quote(digits), "; expected 0 to ", max_prefix));
    }
  }
  Cidr masked = Masked(cidr);
  if (masked != cidr) {
    return Fail(StrCat(Quote(text), " has bits set beyond the /", cidr.prefix,
                       " prefix; did you mean ", Quote(FormatCidr(masked)), "?"));
  }
  if (cidr.family == AF_INET6 && cidr.prefix >= 96 &&
      PrefixEqual(cidr.address.data(), kV4MappedPrefix, 96)) {
    return Fail(StrCat(Quote(text),
                       " is an IPv4-mapped IPv6 block; write the IPv4 block instead (mapped "
                       "destinations are checked as IPv4)"));
  }
  return cidr;
}

std::string FormatCidr(const Cidr& cidr) {
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(cidr.family, cidr.address.data(), buf, sizeof buf);
  return StrCat(buf, '/', cidr.prefix);
}

bool CidrContains(const Cidr& cidr, int family, const std::uint8_t* address) {
  return family == cidr.family && PrefixEqual(cidr.address.data(), address, cidr.prefix);
}

}  // namespace vigil::config
