// CIDR address blocks for the egress allow-list.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/policy/policy.h"

namespace vigil::config {

// Parses "10.0.0.0/8", "2001:db8::/32", or a bare address (a single host: /32
// or /128). Refused, with a bare message for the caller to prefix: bad
// addresses (inet_pton's syntax), prefixes out of range, bits set beyond the
// prefix ("10.1.0.0/8": write what you mean), and IPv4-mapped IPv6 blocks
// (::ffff:0:0/96 and inside it), which would never match because mapped
// destinations are checked as IPv4.
[[nodiscard]] Result<Cidr> ParseCidr(std::string_view text);

// "10.0.0.0/8", "2001:db8::/32": the form ParseCidr reads back.
std::string FormatCidr(const Cidr& cidr);

// Whether the address of `family` (4 or 16 bytes at `address`) lies in `cidr`.
bool CidrContains(const Cidr& cidr, int family, const std::uint8_t* address);

}  // namespace vigil::config
