// vigil syscalls: what the sentry does with every x86_64 system call.
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"
#include "sentry/table/listing.h"

namespace vigil::cli {

const FlagSpec kSyscallsFlags[2] = {
    {"format", "f", true, "FORMAT", "\"text\" (default) or \"json\""},
    {"tier", "", true, "TIER", "only syscalls of this tier: fast, mediated, traced or denied"},
};

Result<int> RunSyscalls(const Invocation& invocation) {
  const ParsedFlags& flags = invocation.flags;
  if (!flags.positional.empty()) {
    return Fail(StrCat("syscalls takes no arguments, got ", Quote(flags.positional[0])));
  }
  std::optional<sentry::Tier> tier;
  if (auto name = flags.Value("tier")) {
    tier = sentry::ParseTier(*name);
    if (!tier) {
      return Fail(StrCat("--tier: unknown tier ", Quote(*name),
                         " (want fast, mediated, traced or denied)"));
    }
  }
  std::string format = flags.Value("format").value_or("text");
  if (format != "text" && format != "json") {
    return Fail(StrCat("--format: unknown format ", Quote(format), " (want text or json)"));
  }
  std::string listing =
      format == "json" ? sentry::SyscallListingJson(tier) : sentry::SyscallListingText(tier);
  std::fputs(listing.c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
