// DNS messages written out by hand, as a client or a server would send
// them, for the resolver's tests.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sentry/names/dns_message.h"

namespace vigil::sentry::names::test {

class Message {
 public:
  Message(std::uint16_t id, std::uint16_t flags, std::uint16_t questions, std::uint16_t answers) {
    for (std::uint16_t word : {id, flags, questions, answers, std::uint16_t{0}, std::uint16_t{0}}) {
      Word(word);
    }
  }
  Message& Name(const std::string& dotted) {
    std::size_t start = 0;
    while (start < dotted.size()) {
      std::size_t end = dotted.find('.', start);
      if (end == std::string::npos) end = dotted.size();
      bytes_.push_back(static_cast<std::uint8_t>(end - start));
      bytes_.insert(bytes_.end(), dotted.begin() + static_cast<long>(start),
                    dotted.begin() + static_cast<long>(end));
      start = end + 1;
    }
    bytes_.push_back(0);
    return *this;
  }
  Message& Word(std::uint16_t word) {
    bytes_.push_back(static_cast<std::uint8_t>(word >> 8));
    bytes_.push_back(static_cast<std::uint8_t>(word));
    return *this;
  }
  Message& Question(const std::string& name, std::uint16_t type) {
    return Name(name).Word(type).Word(kClassIn);
  }
  // A record with `data` as its RDATA.
  Message& Record(const std::string& owner, std::uint16_t type, std::uint32_t ttl,
                  const std::vector<std::uint8_t>& data) {
    Name(owner).Word(type).Word(kClassIn).Word(static_cast<std::uint16_t>(ttl >> 16));
    Word(static_cast<std::uint16_t>(ttl)).Word(static_cast<std::uint16_t>(data.size()));
    bytes_.insert(bytes_.end(), data.begin(), data.end());
    return *this;
  }
  Message& Cname(const std::string& owner, std::uint32_t ttl, const std::string& target) {
    Message data(0, 0, 0, 0);
    data.bytes_.clear();
    data.Name(target);
    return Record(owner, 5, ttl, data.bytes_);
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

inline std::vector<std::uint8_t> Ipv4(const char* text) {
  std::vector<std::uint8_t> bytes(4);
  EXPECT_EQ(inet_pton(AF_INET, text, bytes.data()), 1);
  return bytes;
}

}  // namespace vigil::sentry::names::test
