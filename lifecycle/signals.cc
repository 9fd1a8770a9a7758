#include "lifecycle/signals.h"

#include <signal.h>
#include <string.h>

#include <cctype>
#include <charconv>
#include <string>
#include <tuple>

#include "base/strings.h"

namespace vigil::lifecycle {

Result<int> ParseSignal(std::string_view text) {
  int number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size()) {
    // 0 checks that the container's init is there, as kill(2) does.
    if (number >= 0 && number < NSIG) return number;
    return Fail(StrCat("invalid signal number ", number));
  }
  std::string name(text);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.starts_with("SIG")) name.erase(0, 3);
  for (int sig = 1; sig < NSIG; ++sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    if (abbrev != nullptr && name == abbrev) return sig;
  }
  // Real-time signals: RTMIN, RTMIN+N, RTMAX, RTMAX-N.
  for (auto [prefix, base, direction] :
       {std::tuple{"RTMIN", SIGRTMIN, 1}, std::tuple{"RTMAX", SIGRTMAX, -1}}) {
    std::string_view rest(name);
    if (!rest.starts_with(prefix)) continue;
    rest.remove_prefix(5);
    int offset = 0;
    if (!rest.empty()) {
      if (rest[0] != (direction > 0 ? '+' : '-')) break;
      auto [end_ptr, err] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), offset);
      if (err != std::errc() || end_ptr != rest.data() + rest.size()) break;
    }
    int sig = base + direction * offset;
    if (sig >= SIGRTMIN && sig <= SIGRTMAX) return sig;
  }
  return Fail(StrCat("unknown signal ", Quote(text)));
}

}  // namespace vigil::lifecycle
