#include "sentry/core/platform.h"

#include "base/strings.h"

namespace vigil::sentry {

std::string_view PlatformName(Platform platform) {
  return platform == Platform::kPtrace ? "ptrace" : "unotify";
}

Result<Platform> ParsePlatform(std::string_view what, std::string_view name) {
  if (name == "unotify") return Platform::kUnotify;
  if (name == "ptrace") return Platform::kPtrace;
  return Fail(StrCat(what, ": expected \"unotify\" or \"ptrace\", got ", Quote(name)));
}

}  // namespace vigil::sentry
