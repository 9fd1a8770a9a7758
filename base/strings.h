// Small string helpers: g++ 12 has no std::format, and these cover what
// error messages and paths need.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace vigil {

namespace internal {
inline void AppendPiece(std::string& out, std::string_view piece) { out.append(piece); }
inline void AppendPiece(std::string& out, const char* piece) { out.append(piece); }
inline void AppendPiece(std::string& out, const std::string& piece) { out.append(piece); }
inline void AppendPiece(std::string& out, char c) { out.push_back(c); }
template <std::integral T>
requires(!std::same_as<T, char> && !std::same_as<T, bool>) void AppendPiece(std::string& out,
                                                                            T value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}
}  // namespace internal

// Concatenates strings, characters and integers into one string.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  (internal::AppendPiece(out, pieces), ...);
  return out;
}

// `parts` with `separator` between each two.
template <typename Range>
std::string Join(const Range& parts, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& part : parts) {
    if (!first) out.append(separator);
    first = false;
    internal::AppendPiece(out, part);
  }
  return out;
}

// Renders `text` as a double-quoted JSON-style literal for error messages, so
// that control characters and quotes in user input stay visible on one line.
std::string Quote(std::string_view text);

}  // namespace vigil
