// vigil spec: write a default config.json, like `runc spec`.
#include <unistd.h>

#include "base/file.h"
#include "base/strings.h"
#include "cli/verbs.h"
#include "config/oci/config.h"
#include "config/oci/default_spec.h"

namespace vigil::cli {

const FlagSpec kSpecFlags[2] = {
    {"bundle", "b", true, "DIR", "bundle directory to write config.json into (default: .)"},
    {"rootless", "", false, "", "a config for an unprivileged user (user namespace)"},
};

Result<int> RunSpec(const Invocation& invocation) {
  if (!invocation.flags.positional.empty()) {
    return Fail(StrCat("spec takes no arguments, got ", Quote(invocation.flags.positional[0])));
  }
  std::string bundle = invocation.flags.Value("bundle").value_or(".");
  config::Spec spec = invocation.flags.IsSet("rootless")
                          ? config::RootlessSpec(::geteuid(), ::getegid())
                          : config::DefaultSpec();
  std::string path = StrCat(bundle, "/config.json");
  // Refuse to overwrite: a user's hand-edited config is worth more than ours.
  RETURN_IF_ERROR(WriteFileAtomic(path, config::DumpSpec(spec), 0644, /*overwrite=*/false));
  return 0;
}

}  // namespace vigil::cli
