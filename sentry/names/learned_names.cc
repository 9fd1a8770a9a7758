#include "sentry/names/learned_names.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace vigil::sentry::names {

LearnedNames::Key LearnedNames::KeyOf(int family, const std::uint8_t* address) {
  Key key{family, {}};
  std::memcpy(key.second.data(), address, family == AF_INET ? 4 : 16);
  return key;
}

void LearnedNames::Learn(std::string_view name, const LearnedAddress& address,
                         Clock::time_point now) {
  const Key key = KeyOf(address.family, address.address.data());
  if (!by_address_.contains(key)) MakeRoom(now);
  auto& names = by_address_[key];
  const Clock::time_point until = now + address.ttl + grace_;
  auto held = names.find(name);
  if (held == names.end()) {
    names.emplace(std::string(name), Hold{.until = until, .learned = now});
  } else {
    // A fresh answer renews the hold; a shorter TTL never cuts it.
    held->second.until = std::max(held->second.until, until);
    held->second.learned = now;
  }
}

std::vector<std::string> LearnedNames::NamesOf(int family, const std::uint8_t* address,
                                               Clock::time_point now) const {
  std::vector<std::string> names;
  const auto found = by_address_.find(KeyOf(family, address));
  if (found == by_address_.end()) return names;
  for (const auto& [name, hold] : found->second) {
    if (now <= hold.until) names.push_back(name);
  }
  return names;
}

void LearnedNames::MakeRoom(Clock::time_point now) {
  if (by_address_.size() < most_) return;
  // First what no name holds any more.
  for (auto it = by_address_.begin(); it != by_address_.end();) {
    std::erase_if(it->second, [&](const auto& entry) { return entry.second.until < now; });
    it = it->second.empty() ? by_address_.erase(it) : std::next(it);
  }
  if (by_address_.size() < most_) return;
  // Then the address learned longest ago.
  auto oldest = by_address_.end();
  Clock::time_point oldest_time = Clock::time_point::max();
  for (auto it = by_address_.begin(); it != by_address_.end(); ++it) {
    for (const auto& [name, hold] : it->second) {
      if (hold.learned < oldest_time) {
        oldest_time = hold.learned;
        oldest = it;
      }
    }
  }
  if (oldest != by_address_.end()) by_address_.erase(oldest);
}

}  // namespace vigil::sentry::names
