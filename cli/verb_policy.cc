// vigil policy: the sentry's policies as vigil reads them. `show` prints a
// built-in profile, a policy file or inline JSON in its canonical form —
// every property, defaults written out — which is also what `vigil state`
// shows of a container's policy in force; `list` names the built-in ones.
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"
#include "config/policy/policy.h"

namespace vigil::cli {

Result<int> RunPolicy(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("want \"show NAME|FILE|JSON\" or \"list\"");
  if (args[0] == "list") {
    if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
    for (std::string_view name : config::BuiltinPolicyNames()) {
      std::printf("%.*s\n", static_cast<int>(name.size()), name.data());
    }
    return 0;
  }
  if (args[0] != "show") {
    return Fail(StrCat("unknown policy command ", Quote(args[0]), ": want show or list"));
  }
  if (args.size() != 2) return Fail("show: want one policy: a profile name, a file or JSON");
  ASSIGN_OR_RETURN(config::Policy policy, config::PolicyFromFlag(args[1], "show"));
  std::printf("%s\n", config::DumpPolicy(policy).c_str());
  return 0;
}

}  // namespace vigil::cli
