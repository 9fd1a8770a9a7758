// vigil check: parse and validate a bundle's config.json without creating
// anything, and print what the runtime understood, in canonical form.
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"
#include "config/oci/config.h"

namespace vigil::cli {

const FlagSpec kCheckFlags[1] = {
    {"bundle", "b", true, "DIR", "bundle directory holding config.json (default: .)"},
};

Result<int> RunCheck(const Invocation& invocation) {
  if (!invocation.flags.positional.empty()) {
    return Fail(StrCat("check takes no arguments, got ", Quote(invocation.flags.positional[0])));
  }
  ASSIGN_OR_RETURN(config::Spec spec,
                   config::LoadBundle(invocation.flags.Value("bundle").value_or(".")));
  std::fputs(config::DumpSpec(spec).c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
