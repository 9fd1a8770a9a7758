// What every verb receives, and the entry in the command table that names it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/log.h"
#include "base/result.h"
#include "cli/flags.h"

namespace vigil::cli {

// Global flags, given before the verb with runc's names.
struct GlobalOptions {
  std::string root;         // state directory: --root, or DefaultStateRoot()
  bool root_given = false;  // by --root
  bool debug = false;
  bool systemd_cgroup = false;  // accepted; the cgroupfs driver runs underneath
  std::string rootless = "auto";
  std::string policy;                 // --policy: a profile name, inline JSON or a file
  std::string audit;                  // --audit: the audit log of the containers created
  std::string audit_max_size;         // --audit-max-size (empty: the default)
  std::string audit_max_files;        // --audit-max-files (empty: the default)
  std::string platform;               // --platform: the sentry's backend (unotify, ptrace)
  std::string timeout;                // --timeout: the longest any container created may run
  bool pause_release_memory = false;  // --pause-release-memory: every pause releases
  log::Options log;
};

struct Invocation {
  GlobalOptions global;
  ParsedFlags flags;  // the verb's own flags and positional arguments
};

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `vigil help`
  std::string_view usage;    // arguments after the verb, e.g. "<container-id>"
  std::span<const FlagSpec> flags;
  // Returns the process exit status, or an Error reported as one line.
  Result<int> (*run)(const Invocation& invocation);
  // The exit status of such an Error, as runc's verb exits: 255 for exec,
  // whose own status is the process's, 1 for the rest.
  int error_status = 1;
};

// The command table, sorted by name (a test checks it).
std::span<const Command> Commands();

// The global flag table.
std::span<const FlagSpec> GlobalFlags();

const Command* FindCommand(std::string_view name);

// `vigil help` / `vigil VERB --help` text.
std::string MainHelp();
std::string CommandHelp(const Command& command);
// The error for help on a command that does not exist, in runc's words.
std::string UnknownHelpTopic(std::string_view name);

// "vigil version 0.1.0" with the spec and libseccomp versions.
std::string VersionText();

}  // namespace vigil::cli
