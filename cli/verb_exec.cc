// vigil exec: run another process in a running container.
#include <charconv>

#include "base/file.h"
#include "base/strings.h"
#include "cli/verbs.h"
#include "config/oci/config.h"
#include "config/oci/validate.h"
#include "lifecycle/exec.h"

namespace vigil::cli {
namespace {

// A decimal id; `what` names the flag and its form in the error.
Result<std::uint32_t> ParseId(std::string_view part, std::string_view text, std::string_view what) {
  std::uint32_t id = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), id);
  if (ec != std::errc() || end != part.data() + part.size()) {
    return Fail(StrCat(what, ", got ", Quote(text)));
  }
  return id;
}

// "uid" or "uid:gid", as runc's --user takes it.
Result<void> ApplyUser(std::string_view text, config::User& user) {
  constexpr std::string_view kWhat = "--user: expected UID[:GID]";
  std::string_view uid = text.substr(0, text.find(':'));
  ASSIGN_OR_RETURN(user.uid, ParseId(uid, text, kWhat));
  if (uid.size() < text.size()) {
    ASSIGN_OR_RETURN(user.gid, ParseId(text.substr(uid.size() + 1), text, kWhat));
  }
  return {};
}

// The process from --process FILE, or the container's own process with the
// arguments and flags given here applied on top.
Result<config::Process> BuildProcess(const Invocation& invocation, const std::string& id) {
  const ParsedFlags& flags = invocation.flags;
  if (std::optional<std::string> file = flags.Value("process")) {
    ASSIGN_OR_RETURN(std::string text, ReadFileOrPipe(*file, 4 << 20));
    Result<config::Process> process = config::ParseProcess(text);
    if (!process) return tl::unexpected(std::move(process).error().Wrap(*file));
    return process;
  }
  ASSIGN_OR_RETURN(config::Process process,
                   lifecycle::ContainerProcess(invocation.global.root, id));
  process.args.assign(flags.positional.begin() + 1, flags.positional.end());
  for (const std::string& env : flags.Values("env")) process.env.push_back(env);
  if (auto cwd = flags.Value("cwd")) process.cwd = *cwd;
  if (auto user = flags.Value("user")) RETURN_IF_ERROR(ApplyUser(*user, process.user));
  // Added to the configured groups, as runc does.
  for (const std::string& gid : flags.Values("additional-gids")) {
    ASSIGN_OR_RETURN(std::uint32_t id, ParseId(gid, gid, "--additional-gids: expected a GID"));
    process.user.additional_gids.push_back(id);
  }
  process.terminal = flags.IsSet("tty");
  for (const std::string& cap : flags.Values("cap")) {
    if (!process.capabilities) process.capabilities.emplace();
    for (auto* set : {&process.capabilities->bounding, &process.capabilities->effective,
                      &process.capabilities->permitted, &process.capabilities->inheritable}) {
      set->push_back(cap);
    }
  }
  if (flags.IsSet("no-new-privs")) process.no_new_privileges = true;
  RETURN_IF_ERROR(config::ValidateProcess(process, config::JsonPath()));
  return process;
}

// "[CONTROLLER[,...]:]SUB", as runc's exec --cgroup takes it.
lifecycle::ExecOptions::SubCgroup ParseSubCgroup(std::string_view value) {
  lifecycle::ExecOptions::SubCgroup sub;
  const std::size_t colon = value.find(':');
  sub.path = std::string(colon == std::string_view::npos ? value : value.substr(colon + 1));
  if (colon == std::string_view::npos) return sub;
  for (std::string_view rest = value.substr(0, colon); !rest.empty();) {
    const std::size_t comma = rest.find(',');
    if (comma != 0) sub.controllers.emplace_back(rest.substr(0, comma));
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  }
  return sub;
}

}  // namespace

const FlagSpec kExecFlags[14] = {
    {"process", "p", true, "FILE", "the process as JSON (config.json's \"process\")"},
    {"detach", "d", false, "", "return once the process runs"},
    {"pid-file", "", true, "FILE", "write the process's pid to FILE"},
    {"tty", "t", false, "",
     "give the process a terminal (relayed in the foreground; -d needs --console-socket)"},
    {"console-socket", "", true, "PATH", "unix socket to receive the terminal's master fd"},
    {"env", "e", true, "KEY=VALUE", "add an environment variable (repeatable)"},
    {"cwd", "", true, "DIR", "working directory inside the container"},
    {"user", "u", true, "UID[:GID]", "user to run as"},
    {"additional-gids", "g", true, "GID", "an additional group (repeatable)"},
    {"cap", "c", true, "CAP", "add a capability (repeatable)"},
    {"no-new-privs", "", false, "", "set no_new_privs"},
    {"preserve-fds", "", true, "N", "pass N descriptors after stdio through"},
    {"ignore-paused", "", false, "", "exec into a paused container too (it runs once resumed)"},
    {"cgroup", "", true, "[CONTROLLER[,...]:]SUB",
     "put the process in an existing cgroup beneath the container's (repeatable)"},
};

Result<int> RunExec(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  bool has_process_file = invocation.flags.Value("process").has_value();
  if (!has_process_file && args.size() < 2) return Fail("exec needs a command or --process FILE");
  if (has_process_file && args.size() > 1) {
    return Fail(StrCat("unexpected argument ", Quote(args[1]), " with --process"));
  }
  lifecycle::ExecOptions options{
      .root = invocation.global.root,
      .id = args[0],
      .detach = invocation.flags.IsSet("detach"),
      .pid_file = invocation.flags.Value("pid-file").value_or(""),
      .console_socket = invocation.flags.Value("console-socket").value_or(""),
      .ignore_paused = invocation.flags.IsSet("ignore-paused"),
  };
  ASSIGN_OR_RETURN(options.process, BuildProcess(invocation, options.id));
  ASSIGN_OR_RETURN(options.preserve_fds, invocation.flags.Count("preserve-fds"));
  for (const std::string& value : invocation.flags.Values("cgroup")) {
    options.sub_cgroups.push_back(ParseSubCgroup(value));
  }
  return lifecycle::ExecInContainer(options);
}

}  // namespace vigil::cli
