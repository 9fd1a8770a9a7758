#include "sentry/audit/repeats.h"

#include <functional>
#include <string_view>
#include <utility>

namespace vigil::sentry::audit {
namespace {

void Mix(std::uint64_t& hash, std::uint64_t value) {
  // boost::hash_combine's mixing, widened to 64 bits.
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
}

std::uint64_t KindHash(const Record& r) {
  std::hash<std::string_view> text;
  std::uint64_t hash = 0;
  Mix(hash, text(r.exe));
  Mix(hash, text(r.syscall));
  Mix(hash, text(r.event));
  for (const Arg& arg : r.args) {
    Mix(hash, text(arg.name));
    Mix(hash, text(arg.value));
  }
  Mix(hash, static_cast<std::uint64_t>(r.decision));
  Mix(hash, static_cast<std::uint64_t>(r.error));
  return hash;
}

}  // namespace

bool SameKind(const Record& a, const Record& b) {
  return a.exe == b.exe && a.syscall == b.syscall && a.args == b.args && a.decision == b.decision &&
         a.error == b.error && a.container_id == b.container_id;
}

RepeatLimiter::RepeatLimiter(Limits limits)
    : limits_(limits), kinds_(limits.kinds ? limits.kinds : 1) {}

void RepeatLimiter::Release(Kind& kind, const std::string& time) {
  if (kind.suppressed == 0) return;
  Record& summary = due_.emplace_back(std::move(kind.exemplar));
  summary.time = time;
  summary.suppressed = kind.suppressed;
  kind.suppressed = 0;
}

bool RepeatLimiter::Admit(const Record& record, Clock::time_point now) {
  const std::uint64_t hash = KindHash(record);
  Kind& kind = kinds_[hash % kinds_.size()];
  if (!kind.used || kind.hash != hash || now - kind.window_start >= limits_.window) {
    Release(kind, record.time);
    kind.used = true;
    kind.hash = hash;
    kind.window_start = now;
    kind.written = 1;
    return true;
  }
  if (kind.written < limits_.burst) {
    ++kind.written;
    return true;
  }
  if (kind.suppressed == 0) {
    kind.exemplar = record;
  } else if (!SameKind(kind.exemplar, record)) {
    return true;  // another kind with the same hash: never counted as this one
  }
  ++kind.suppressed;
  ++suppressed_total_;
  return false;
}

void RepeatLimiter::Sweep(Clock::time_point now, const std::string& time, bool all) {
  for (Kind& kind : kinds_) {
    if (kind.suppressed == 0) continue;
    if (all || now - kind.window_start >= limits_.window) Release(kind, time);
  }
}

}  // namespace vigil::sentry::audit
