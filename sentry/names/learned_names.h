// What the sandbox learned from the answers its resolver gave it: each
// address by the allowed names it was an answer for, until the answer's
// time to live and a grace period have passed. A connect to an address is
// decided by these names (docs/policy.md, "Egress by name"), so an API
// whose addresses rotate stays reachable, and an address the sandbox
// learned elsewhere than from an allowed name's answer is not.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sentry/names/dns_message.h"

namespace vigil::sentry::names {

class LearnedNames {
 public:
  using Clock = std::chrono::steady_clock;

  // `grace`: how long past its TTL an answer still counts (clients cache
  // beyond it, and a TTL of 0 is common). `most`: how many addresses are
  // kept; past it, the ones whose time is up go first, then the oldest.
  explicit LearnedNames(std::chrono::seconds grace, std::size_t most = 4096)
      : grace_(grace), most_(most) {}

  // `address` was an answer for `name` at `now`.
  void Learn(std::string_view name, const LearnedAddress& address, Clock::time_point now);

  // The names `address` (4 bytes for AF_INET, 16 for AF_INET6) still
  // stands for at `now`, in order.
  std::vector<std::string> NamesOf(int family, const std::uint8_t* address,
                                   Clock::time_point now) const;

  std::size_t size() const { return by_address_.size(); }

 private:
  using Key = std::pair<int, std::array<std::uint8_t, 16>>;
  // A name's hold on an address: until when, and since when (for eviction).
  struct Hold {
    Clock::time_point until;
    Clock::time_point learned;
  };
  static Key KeyOf(int family, const std::uint8_t* address);
  void MakeRoom(Clock::time_point now);

  std::chrono::seconds grace_;
  std::size_t most_;
  std::map<Key, std::map<std::string, Hold, std::less<>>> by_address_;
};

}  // namespace vigil::sentry::names
