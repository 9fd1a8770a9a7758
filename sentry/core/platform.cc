#include "sentry/core/platform.h"

#include "base/strings.h"

namespace vigil::sentry {

std::string_view PlatformName(Platform platform) { return config::NameOf(platform); }

Result<Platform> ParsePlatform(std::string_view what, std::string_view name) {
  std::string choices;
  for (const auto& [known, platform] : config::NameTable<Platform>::kEntries) {
    if (known == name) return platform;
    choices += StrCat(choices.empty() ? "" : " or ", Quote(known));
  }
  return Fail(StrCat(what, ": expected ", choices, ", got ", Quote(name)));
}

}  // namespace vigil::sentry
