// vigil features: the OCI features document containerd reads at start-up.
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"
#include "config/oci/features.h"

namespace vigil::cli {

Result<int> RunFeatures(const Invocation& invocation) {
  if (!invocation.flags.positional.empty()) {
    return Fail(StrCat("features takes no arguments, got ", Quote(invocation.flags.positional[0])));
  }
  std::fputs(config::FeaturesJson().c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
