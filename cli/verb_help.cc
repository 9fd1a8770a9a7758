// vigil help [command].
#include <cstdio>

#include "base/strings.h"
#include "cli/verbs.h"

namespace vigil::cli {

Result<int> RunHelp(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) {
    std::fputs(MainHelp().c_str(), stdout);
    return 0;
  }
  const Command* command = FindCommand(args[0]);
  if (command == nullptr) return Fail(UnknownHelpTopic(args[0]));
  std::fputs(CommandHelp(*command).c_str(), stdout);
  return 0;
}

}  // namespace vigil::cli
