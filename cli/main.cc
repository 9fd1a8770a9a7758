// vigil's entry point: global flags, logging, then the verb from the table.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/strings.h"
#include "cli/command.h"
#include "runtime/container/state_dir.h"

namespace vigil::cli {
namespace {

Result<GlobalOptions> ReadGlobalOptions(const ParsedFlags& flags) {
  GlobalOptions global;
  std::optional<std::string> root = flags.Value("root");
  global.root = root ? *root : runtime::DefaultStateRoot();
  global.root_given = root.has_value();
  if (auto file = flags.Value("log")) global.log.file = *file;
  if (auto format = flags.Value("log-format")) {
    ASSIGN_OR_RETURN(global.log.format, log::ParseFormat(*format));
  }
  if (auto rootless = flags.Value("rootless")) global.rootless = *rootless;
  if (auto policy = flags.Value("policy")) global.policy = *policy;
  if (auto audit = flags.Value("audit")) global.audit = *audit;
  if (auto size = flags.Value("audit-max-size")) global.audit_max_size = *size;
  if (auto files = flags.Value("audit-max-files")) global.audit_max_files = *files;
  if (auto platform = flags.Value("platform")) global.platform = *platform;
  if (auto timeout = flags.Value("timeout")) global.timeout = *timeout;
  global.debug = flags.IsSet("debug");
  global.systemd_cgroup = flags.IsSet("systemd-cgroup");
  global.pause_release_memory = flags.IsSet("pause-release-memory");
  global.log.min_level = global.debug ? log::Level::kDebug : log::Level::kWarning;
  return global;
}

// Runs the command line; returns the exit status. Every failure ends here as
// one line on standard error, and in the log file when one is given (JSON for
// containerd and podman to read back).
int Main(const std::vector<std::string>& args) {
  std::size_t consumed = 0;
  Result<ParsedFlags> global_flags = ParseFlags(GlobalFlags(), args, &consumed);
  Result<GlobalOptions> global =
      global_flags ? ReadGlobalOptions(*global_flags) : tl::unexpected(global_flags.error());
  if (global) {
    if (Result<void> configured = log::Configure(global->log); !configured) {
      global = tl::unexpected(configured.error());
    }
  }
  if (!global) {
    std::fprintf(stderr, "vigil: %s\n", global.error().message.c_str());
    return 1;
  }
  if (global_flags->IsSet("version")) {
    std::fputs(VersionText().c_str(), stdout);
    return 0;
  }
  std::span<const std::string> rest = std::span(args).subspan(consumed);
  if (global_flags->IsSet("help") || rest.empty()) {
    std::fputs(MainHelp().c_str(), rest.empty() && !global_flags->IsSet("help") ? stderr : stdout);
    return rest.empty() && !global_flags->IsSet("help") ? 1 : 0;
  }

  const Command* command = FindCommand(rest[0]);
  bool ran = false;
  Result<int> status = [&]() -> Result<int> {
    if (command == nullptr) {
      // `vigil foo -h` answers in runc's words, which scripts match.
      const bool help = std::any_of(rest.begin() + 1, rest.end(), [](const std::string& arg) {
        return arg == "-h" || arg == "--help";
      });
      if (help) return Fail(UnknownHelpTopic(rest[0]));
      return Fail(StrCat("unknown command ", Quote(rest[0]), "; run 'vigil help' for the list"));
    }
    std::vector<FlagSpec> flags(command->flags.begin(), command->flags.end());
    flags.push_back({"help", "h", false, "", "show help"});
    // A verb whose one argument is the container id takes its flags after
    // the id too, as runc's do; the others' arguments may look like flags.
    const Positionals positionals =
        command->usage == "<container-id>" ? Positionals::kMixWithFlags : Positionals::kEndFlags;
    ASSIGN_OR_RETURN(ParsedFlags parsed, ParseFlags(flags, rest.subspan(1), nullptr, positionals));
    if (parsed.IsSet("help")) {
      std::fputs(CommandHelp(*command).c_str(), stdout);
      return 0;
    }
    ran = true;
    std::string words;
    for (std::string_view word : rest) words += StrCat(" ", word);
    log::Debug(StrCat("vigil", words));
    Result<int> result = command->run(Invocation{*global, std::move(parsed)});
    if (!result) return tl::unexpected(std::move(result).error().Wrap(command->name));
    return result;
  }();
  if (status) return *status;
  // A person reads standard error; containerd and podman read the log file.
  if (!log::LogsToStderr()) log::Error(status.error().message);
  std::fprintf(stderr, "vigil: %s\n", status.error().message.c_str());
  return ran ? command->error_status : 1;
}

}  // namespace
}  // namespace vigil::cli

int main(int argc, char** argv) {
  return vigil::cli::Main(std::vector<std::string>(argv + 1, argv + argc));
}
