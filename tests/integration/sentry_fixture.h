// The fixture of the sentry's integration tests (vigil only: runc has no
// sentry), run on both platforms: user notification and ptrace.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {

class SentryTest : public RuntimeTest {
 protected:
  // Gives the container's process `capability` (bounding, effective and
  // permitted).
  static void Grant(BundleConfig& config, const std::string& capability) {
    for (auto* set : {&config.capabilities->bounding, &config.capabilities->effective,
                      &config.capabilities->permitted}) {
      set->push_back(capability);
    }
  }

  bool OnPtrace() const {
    const auto& flags = GetParam().flags;
    return std::find(flags.begin(), flags.end(), "--platform=ptrace") != flags.end();
  }

  // `run` of `config` with the audit log in the scratch directory: the
  // outcome, and the log's records.
  std::pair<Outcome, std::string> RunAudited(const BundleConfig& config) {
    WriteConfig(config);
    const std::string audit = scratch_ + "/audit.jsonl";
    Outcome run = Runtime({"--audit", audit, "run", "--bundle", bundle_, NewId()});
    return {run, ReadWholeFile(audit)};
  }
};

inline std::vector<RuntimeUnderTest> SentryRuntimes() {
  return {RuntimeUnderTest{"vigil", VIGIL_BINARY},
          RuntimeUnderTest{"vigil_ptrace", VIGIL_BINARY, {"--platform=ptrace"}}};
}

}  // namespace vigil::integration
