#include "config/policy/cidr.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <string>

namespace vigil::config {
namespace {

std::string CidrError(std::string_view text) {
  Result<Cidr> r = ParseCidr(text);
  return r ? "" : r.error().message;
}

// Whether `address` (text) lies in the block `cidr` (text).
bool Contains(std::string_view cidr, const char* address) {
  Result<Cidr> block = ParseCidr(cidr);
  EXPECT_TRUE(block) << block.error().message;
  std::array<std::uint8_t, 16> bytes{};
  int family = std::string_view(address).find(':') == std::string_view::npos ? AF_INET : AF_INET6;
  EXPECT_EQ(::inet_pton(family, address, bytes.data()), 1) << address;
  return CidrContains(*block, family, bytes.data());
}

TEST(ParseCidrTest, ParsesIpv4Blocks) {
  Result<Cidr> c = ParseCidr("10.0.0.0/8");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->family, AF_INET);
  EXPECT_EQ(c->prefix, 8);
  EXPECT_EQ(c->address[0], 10);
  EXPECT_EQ(FormatCidr(*c), "10.0.0.0/8");
}

TEST(ParseCidrTest, ParsesIpv6Blocks) {
  Result<Cidr> c = ParseCidr("2001:db8::/32");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->family, AF_INET6);
  EXPECT_EQ(c->prefix, 32);
  EXPECT_EQ(FormatCidr(*c), "2001:db8::/32");
}

TEST(ParseCidrTest, ABareAddressIsOneHost) {
  EXPECT_EQ(ParseCidr("192.0.2.7")->prefix, 32);
  EXPECT_EQ(ParseCidr("2001:db8::7")->prefix, 128);
  EXPECT_EQ(FormatCidr(*ParseCidr("192.0.2.7")), "192.0.2.7/32");
}

TEST(ParseCidrTest, RefusesBadAddresses) {
  EXPECT_EQ(CidrError("10.0.0/8"), "invalid IPv4 address \"10.0.0\"");
  EXPECT_EQ(CidrError("256.0.0.0/8"), "invalid IPv4 address \"256.0.0.0\"");
  EXPECT_EQ(CidrError("2001:db8:::/32"), "invalid IPv6 address \"2001:db8:::\"");
  EXPECT_EQ(CidrError(""), "invalid IPv4 address \"\"");
  EXPECT_EQ(CidrError("example.com"), "invalid IPv4 address \"example.com\"");
}

TEST(ParseCidrTest, RefusesPrefixesOutOfRange) {
  EXPECT_EQ(CidrError("10.0.0.0/33"), "invalid prefix length \"33\"; expected 0 to 32");
  EXPECT_EQ(CidrError("::/129"), "invalid prefix length \"129\"; expected 0 to 128");
  EXPECT_EQ(CidrError("10.0.0.0/-1"), "invalid prefix length \"-1\"; expected 0 to 32");
  EXPECT_EQ(CidrError("10.0.0.0/"), "invalid prefix length \"\"; expected 0 to 32");
  EXPECT_EQ(CidrError("10.0.0.0/8x"), "invalid prefix length \"8x\"; expected 0 to 32");
  EXPECT_EQ(CidrError("10.0.0.0/8/8"), "invalid prefix length \"8/8\"; expected 0 to 32");
  EXPECT_EQ(CidrError("0.0.0.0/0"), "");
  EXPECT_EQ(CidrError("::/0"), "");
}

TEST(ParseCidrTest, RefusesBitsBeyondThePrefix) {
  EXPECT_EQ(CidrError("10.1.2.3/8"),
            "\"10.1.2.3/8\" has bits set beyond the /8 prefix; did you mean \"10.0.0.0/8\"?");
  EXPECT_EQ(CidrError("10.0.0.1/31"),
            "\"10.0.0.1/31\" has bits set beyond the /31 prefix; did you mean \"10.0.0.0/31\"?");
  EXPECT_EQ(CidrError("2001:db8::1/64"),
            "\"2001:db8::1/64\" has bits set beyond the /64 prefix; did you mean "
            "\"2001:db8::/64\"?");
  EXPECT_EQ(CidrError("10.0.0.128/25"), "");
}

TEST(ParseCidrTest, RefusesIpv4MappedBlocks) {
  EXPECT_EQ(CidrError("::ffff:10.0.0.0/104"),
            "\"::ffff:10.0.0.0/104\" is an IPv4-mapped IPv6 block; write the IPv4 block instead "
            "(mapped destinations are checked as IPv4)");
  EXPECT_NE(CidrError("::ffff:0:0/96"), "");
  EXPECT_EQ(CidrError("::/64"), "");
}

TEST(CidrContainsTest, Ipv4) {
  EXPECT_TRUE(Contains("10.0.0.0/8", "10.255.1.2"));
  EXPECT_FALSE(Contains("10.0.0.0/8", "11.0.0.0"));
  EXPECT_TRUE(Contains("192.168.1.128/25", "192.168.1.200"));
  EXPECT_FALSE(Contains("192.168.1.128/25", "192.168.1.127"));
  EXPECT_TRUE(Contains("0.0.0.0/0", "203.0.113.9"));
  EXPECT_TRUE(Contains("203.0.113.9/32", "203.0.113.9"));
  EXPECT_FALSE(Contains("203.0.113.9/32", "203.0.113.8"));
}

TEST(CidrContainsTest, Ipv6) {
  EXPECT_TRUE(Contains("2001:db8::/32", "2001:db8:1::1"));
  EXPECT_FALSE(Contains("2001:db8::/32", "2001:db9::1"));
  EXPECT_TRUE(Contains("::/0", "fe80::1"));
  EXPECT_TRUE(Contains("2001:db8::7/128", "2001:db8::7"));
  EXPECT_FALSE(Contains("2001:db8::7/128", "2001:db8::6"));
}

TEST(CidrContainsTest, FamiliesNeverMix) {
  EXPECT_FALSE(Contains("0.0.0.0/0", "::1"));
  EXPECT_FALSE(Contains("::/0", "127.0.0.1"));
}

}  // namespace
}  // namespace vigil::config
