#include "sentry/handlers/exec_argv.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "base/strings.h"
#include "sentry/handlers/paths.h"

namespace vigil::sentry {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::string_view kCut = " ...";

// `arg` as a POSIX shell reads it back: bare when it has nothing a shell
// would take apart, else in single quotes.
std::string ShellQuoted(std::string_view arg) {
  const bool bare = !arg.empty() && arg.find_first_not_of(
                                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_./=:,@%+-") == std::string_view::npos;
  if (bare) return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void AuditArgv(HandlerContext& context, std::uint64_t argv) {
  std::string text;
  bool cut = false;
  std::size_t argc = 0;
  std::array<std::uint64_t, 64> pointers{};
  for (bool end = false; !end && argc < kArgvCountLimit;) {
    // Up to the end of the page: an array ending just before an unmapped
    // page is no fault.
    const std::uint64_t address = argv + argc * sizeof(std::uint64_t);
    const std::size_t in_page = (kPage - address % kPage) / sizeof(std::uint64_t);
    const std::size_t want =
        std::max<std::size_t>(1, std::min({pointers.size(), in_page, kArgvCountLimit - argc}));
    if (!context.tracee.Read(address, std::as_writable_bytes(std::span(pointers.data(), want)))) {
      context.AuditArg("argv", "(unreadable)");
      return;
    }
    for (std::size_t i = 0; i < want; ++i) {
      if (pointers[i] == 0) {
        end = true;
        break;
      }
      ++argc;
      if (cut) continue;  // counted only
      const std::size_t room = kArgvAuditBytes - text.size();
      bool complete = false;
      Result<std::string> arg = CopyString(context.tracee, pointers[i], room, complete);
      std::string quoted = arg ? ShellQuoted(*arg) : std::string("(unreadable)");
      const std::size_t space = text.empty() ? 0 : 1;
      if ((arg && !complete) || space + quoted.size() > room) {
        cut = true;
        continue;
      }
      if (space != 0) text += ' ';
      text += quoted;
    }
  }
  if (cut) text += text.empty() ? kCut.substr(1) : kCut;
  context.AuditArg("argv", text);
  if (argc >= kArgvCountLimit) {
    context.AuditArg("argc", StrCat(kArgvCountLimit, "+"));
  } else {
    context.AuditNumber("argc", static_cast<std::int64_t>(argc));
  }
}

}  // namespace vigil::sentry
