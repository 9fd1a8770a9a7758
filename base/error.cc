#include <cerrno>
#include <cstring>

#include "base/result.h"
#include "base/strings.h"

namespace vigil {

Error Error::Wrap(std::string_view context) && {
  std::string wrapped = StrCat(context, ": ", message);
  return Error{code, std::move(wrapped)};
}

tl::unexpected<Error> Fail(std::string message) {
  return tl::unexpected(Error{0, std::move(message)});
}

tl::unexpected<Error> FailErrno(int code, std::string_view message) {
  return tl::unexpected(Error{code, StrCat(message, ": ", std::strerror(code))});
}

tl::unexpected<Error> FailErrno(std::string_view message) { return FailErrno(errno, message); }

std::string Quote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace vigil
