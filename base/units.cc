#include "base/units.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "base/strings.h"

namespace vigil {

// A byte count as runc reads it (go-units' RAMInBytes): "1048576", "512k",
// "1.5g", "64MiB", "2 GB" (multiples of 1024); or -1 for unlimited.
Result<std::int64_t> ParseBytes(std::string_view what, std::string_view text) {
  if (text == "-1") return -1;
  auto invalid = [&] {
    return Fail(
        StrCat(what, ": invalid size ", Quote(text), " (bytes, or a number with k, m, g, t or p)"));
  };
  std::size_t digits = text.find_first_not_of("0123456789.");
  std::string_view number = text.substr(0, digits);
  std::string_view unit = digits == std::string_view::npos ? "" : text.substr(digits);
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      number.find('.') != number.rfind('.')) {
    return invalid();
  }
  if (unit.starts_with(' ')) unit.remove_prefix(1);
  long double multiplier = 1;
  if (!unit.empty()) {
    constexpr std::string_view kUnits = "kmgtp";
    std::size_t power = kUnits.find(static_cast<char>(unit.front() | 0x20));
    if (power != std::string_view::npos) {
      multiplier = std::pow(1024.0L, static_cast<long double>(power + 1));
      unit.remove_prefix(1);
    }
  }
  if (!unit.empty() && (unit.front() | 0x20) == 'i') unit.remove_prefix(1);
  if (!unit.empty() && (unit.front() | 0x20) == 'b') unit.remove_prefix(1);
  if (!unit.empty()) return invalid();
  long double value = std::strtold(std::string(number).c_str(), nullptr) * multiplier;
  if (value >= static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
    return Fail(StrCat(what, ": ", Quote(text), " is too large"));
  }
  return static_cast<std::int64_t>(value);
}

// A duration in Go's time.ParseDuration syntax, which runc's --interval
// takes: "5s", "500ms", "1m30s", "1.5h", "250us"; "0" alone needs no unit.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view what, std::string_view text) {
  auto invalid = [&](std::string_view why) {
    return Fail(StrCat(what, ": invalid duration ", Quote(text), ": ", why));
  };
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return std::chrono::nanoseconds(0);
  if (rest.empty()) return invalid("empty");
  struct Unit {
    std::string_view name;
    long double ns;
  };
  constexpr Unit kUnits[] = {{"ns", 1},   {"us", 1e3}, {"\u00b5s", 1e3}, {"\u03bcs", 1e3},
                             {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},      {"h", 3600e9}};
  long double total = 0;
  while (!rest.empty()) {
    std::size_t end = rest.find_first_not_of("0123456789.");
    std::string_view number = rest.substr(0, end);
    if (number.empty() || number == "." || number.find('.') != number.rfind('.')) {
      return invalid("expected a number");
    }
    if (end == std::string_view::npos) return invalid("missing unit (ns, us, ms, s, m or h)");
    rest.remove_prefix(end);
    // The longest name that matches, so "ms" is not read as "m".
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (rest.starts_with(u.name) && (unit == nullptr || u.name.size() > unit->name.size())) {
        unit = &u;
      }
    }
    if (unit == nullptr) return invalid("unknown unit");
    rest.remove_prefix(unit->name.size());
    total += std::strtold(std::string(number).c_str(), nullptr) * unit->ns;
  }
  if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
    return invalid("too long");
  }
  auto ns = static_cast<std::int64_t>(total);
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

}  // namespace vigil
