// The command table: the only list of verbs; help and dispatch derive from it.
#include <seccomp.h>

#include <algorithm>

#include "base/strings.h"
#include "cli/command.h"
#include "cli/verbs.h"
#include "config/oci/spec.h"

namespace vigil::cli {
namespace {

constexpr FlagSpec kGlobalFlags[] = {
    {"root", "", true, "DIR",
     "directory for container state (default \"/run/vigil\"; for a user, "
     "\"$XDG_RUNTIME_DIR/vigil\")"},
    {"log", "", true, "FILE", "append log messages to FILE (default: standard error)"},
    {"log-format", "", true, "FORMAT", "log format: \"text\" (default) or \"json\""},
    {"debug", "", false, "", "log debug messages"},
    {"systemd-cgroup", "", false, "", "accepted for compatibility; cgroupfs is used"},
    {"rootless", "", true, "BOOL", "accepted for compatibility: true, false or auto"},
    {"policy", "", true, "POLICY",
     "the sentry's policy: a profile (default, agent, audit-only), inline JSON or a file; "
     "the annotation dev.vigil.policy may only repeat it (without this flag, it chooses)"},
    {"audit", "", true, "FILE",
     "append the sentry's audit records to FILE (default: "
     "ROOT/.audit/ID.jsonl, kept after delete until audit --prune); the annotation "
     "dev.vigil.audit overrides it with a file in /var/log/vigil"},
    {"audit-max-size", "", true, "SIZE",
     "rotate the audit log when it would pass SIZE (default 10m; -1: never); the annotation "
     "dev.vigil.audit-max-size may lower it"},
    {"audit-max-files", "", true, "N",
     "audit log files kept, the current one included (default 3); the annotation "
     "dev.vigil.audit-max-files may lower it"},
    {"platform", "", true, "PLATFORM",
     "how the sentry sees the workload's syscalls: \"unotify\" (seccomp user notification, the "
     "default) or \"ptrace\"; the annotation dev.vigil.platform overrides it"},
    {"timeout", "", true, "DURATION",
     "the longest any container created may run (30s, 10m), for Docker's runtimeArgs or a "
     "handler's wrapper: as run/create --timeout, the shorter one holds when both are given"},
    {"pause-release-memory", "", false, "",
     "every pause also pushes the container's memory out to swap, as pause --release-memory "
     "(for Docker's runtimeArgs, whose pause passes no flags)"},
    {"help", "h", false, "", "show help"},
    {"version", "v", false, "", "print the version"},
};

constexpr Command kCommands[] = {
    {"audit", "print the sentry's audit records for a container (--follow: as they come)",
     "[<container-id>]", kAuditFlags, RunAudit},
    {"check", "validate a bundle's config.json and print it in canonical form", "", kCheckFlags,
     RunCheck},
    {"create", "create a container from a bundle; it waits for start", "<container-id>",
     kCreateFlags, RunCreate},
    {"delete", "delete a stopped container (--force: any container)", "<container-id>",
     kDeleteFlags, RunDelete},
    {"do",
     "run a command in a fresh sandbox of this host's files, read-only but the working "
     "directory, under the agent profile; no bundle, as root or a user",
     "[-- ] <command> [args...]", kDoFlags, RunDo},
    {"events", "print the container's cgroup usage as JSON lines (--stats: once)", "<container-id>",
     kEventsFlags, RunEvents},
    {"exec", "run another process in a running container", "<container-id> [command...]",
     kExecFlags, RunExec, /*error_status=*/255},
    {"features",
     "print the OCI features document (what this runtime supports)",
     "",
     {},
     RunFeatures},
    {"help", "show the commands, or one command's flags", "[command]", {}, RunHelp},
    {"install",
     "register vigil as a runtime with Docker, containerd or podman (edits their config)",
     "[-- runtime-args...]", kInstallFlags, RunInstall},
    {"kill", "send a signal (default SIGTERM) to the container", "<container-id> [signal]",
     kKillFlags, RunKill},
    {"list", "list the containers", "", kListFlags, RunList},
    {"pause", "freeze every process of a running container", "<container-id>", kPauseFlags,
     RunPause},
    {"policy",
     "print a sentry policy in canonical JSON (show NAME|FILE|JSON), what it compiles to "
     "(show --compiled), or the profiles",
     "[--compiled [--bundle DIR]] show <policy> | list", kPolicyFlags, RunPolicy},
    {"ps", "list the container's processes (ps(1) output, or --format json: the pids)",
     "<container-id> [ps-args...]", kPsFlags, RunPs},
    {"resume", "thaw a paused container", "<container-id>", {}, RunResume},
    {"run", "create and start a container, wait for it, then delete it", "<container-id>",
     kRunFlags, RunRun},
    {"serve",
     "serve sandboxes that run code over an HTTP API (a unix socket, or a TCP port with a "
     "token), from templates with warm pools",
     "", kServeFlags, RunServe},
    {"spec", "write a default config.json into the bundle", "", kSpecFlags, RunSpec},
    {"start", "start a created container", "<container-id>", {}, RunStart},
    {"state", "print the container's state as JSON", "<container-id>", {}, RunState},
    {"syscalls", "list what the sentry does with every x86_64 system call", "", kSyscallsFlags,
     RunSyscalls},
    {"uninstall", "remove what vigil install added to Docker's, containerd's or podman's config",
     "", kUninstallFlags, RunUninstall},
    {"update", "change a running container's cgroup limits", "<container-id>", kUpdateFlags,
     RunUpdate},
};

}  // namespace

std::span<const Command> Commands() { return kCommands; }
std::span<const FlagSpec> GlobalFlags() { return kGlobalFlags; }

const Command* FindCommand(std::string_view name) {
  for (const Command& command : kCommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

// Help text in runc's layout (urfave/cli's NAME, USAGE, OPTIONS sections), which
// scripts and people used to runc read.
std::string MainHelp() {
  std::string out = StrCat(
      "NAME:\n   vigil - an OCI container runtime whose containers run under a syscall "
      "supervisor\n\nUSAGE:\n   vigil [global options] command [command options] "
      "[arguments...]\n\nVERSION:\n   ",
      VersionText().substr(std::string_view("vigil version ").size()), "\nCOMMANDS:\n");
  size_t width = 0;
  for (const Command& command : kCommands) width = std::max(width, command.name.size());
  for (const Command& command : kCommands) {
    out += StrCat("   ", command.name, std::string(width + 2 - command.name.size(), ' '),
                  command.summary, "\n");
  }
  out += "\nGLOBAL OPTIONS:\n" + FlagHelp(kGlobalFlags);
  return out;
}

std::string UnknownHelpTopic(std::string_view name) {
  return StrCat("No help topic for '", name, "': run 'vigil help' for the list of commands");
}

std::string CommandHelp(const Command& command) {
  std::string out =
      StrCat("NAME:\n   vigil ", command.name, " - ", command.summary, "\n\nUSAGE:\n   vigil ",
             command.name, command.flags.empty() ? "" : " [command options]",
             command.usage.empty() ? "" : " ", command.usage, "\n");
  if (!command.flags.empty()) out += "\nOPTIONS:\n" + FlagHelp(command.flags);
  return out;
}

std::string VersionText() {
  const scmp_version* seccomp = seccomp_version();
  return StrCat("vigil version ", VIGIL_VERSION, "\nspec: ", config::kOciVersion,
                "\nlibseccomp: ", seccomp->major, '.', seccomp->minor, '.', seccomp->micro, "\n");
}

}  // namespace vigil::cli
