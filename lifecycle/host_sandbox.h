// The sandbox `vigil do` runs a command in, as an OCI config: the host's
// own filesystem read-only (its top-level directories bound in one by one,
// never /proc, /sys, /dev, /run or /tmp), the caller's working directory
// and --rw paths writable, a private /tmp and /run, /proc and /dev of its
// own, and the host's secrets hidden (kHiddenInHome, kHiddenOnHost). As
// root the command runs as root; as a user, as that user in a user
// namespace that maps only its own ids. docs/do.md says what a user sees.
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/oci/spec.h"
#include "config/policy/policy.h"

namespace vigil::lifecycle {

// Paths under the caller's home that hold credentials (tokens, keys,
// passwords, and the shell histories commands typed them into): hidden for
// the whole run, whatever happens to them on the host meanwhile (the home
// is built from what else it held at the start: HostSandboxSpec). One
// entry per tool; add one here for a store this misses.
inline constexpr std::string_view kHiddenInHome[] = {".ssh",
                                                     ".aws",
                                                     ".gnupg",
                                                     ".kube",
                                                     ".docker",
                                                     ".config/gcloud",
                                                     ".azure",
                                                     ".netrc",
                                                     ".git-credentials",
                                                     ".config/git/credentials",
                                                     ".pypirc",
                                                     ".npmrc",
                                                     ".yarnrc.yml",
                                                     ".password-store",
                                                     ".config/gh",
                                                     ".config/hub",
                                                     ".local/share/keyrings",
                                                     ".pgpass",
                                                     ".my.cnf",
                                                     ".cargo/credentials",
                                                     ".cargo/credentials.toml",
                                                     ".config/containers/auth.json",
                                                     ".vault-token",
                                                     ".terraform.d/credentials.tfrc.json",
                                                     ".s3cfg",
                                                     ".boto",
                                                     ".m2/settings.xml",
                                                     ".m2/settings-security.xml",
                                                     ".gradle/gradle.properties",
                                                     ".config/rclone/rclone.conf",
                                                     ".gem/credentials",
                                                     ".composer/auth.json",
                                                     ".nuget/NuGet/NuGet.Config",
                                                     ".config/op",
                                                     ".dbt/profiles.yml",
                                                     ".bash_history",
                                                     ".zsh_history",
                                                     ".python_history",
                                                     ".psql_history",
                                                     ".mysql_history",
                                                     ".node_repl_history",
                                                     ".sqlite_history",
                                                     ".local/share/fish/fish_history"};
// Host paths that hold secrets or the host's own identity: masked (root's
// home, /root, is not bound in at all).
inline constexpr std::string_view kHiddenOnHost[] = {"/etc/shadow", "/etc/gshadow", "/etc/sudoers",
                                                     "/etc/ssh"};

// Files beneath a writable directory that the host later runs or loads as
// configuration (a repository's hooks and config, direnv's .envrc, editor
// settings that run tasks): read-only in the sandbox, whatever the
// directory allows, unless --rw names them (a "delayed escape": the
// user's next `git status` or `cd` would run what the sandbox wrote).
inline constexpr std::string_view kRunByTheHost[] = {".git/hooks", ".git/config", ".envrc",
                                                     ".vscode",    ".idea",       ".devcontainer"};
// The same in a writable home: shell and tool start-up files.
inline constexpr std::string_view kRunByTheHostInHome[] = {
    ".bashrc",    ".bash_profile", ".bash_login",       ".bash_logout",    ".profile",
    ".zshrc",     ".zprofile",     ".zshenv",           ".zlogin",         ".config/fish",
    ".gitconfig", ".config/git",   ".config/autostart", ".config/systemd", ".pam_environment"};
// Where the sandbox's own unix sockets live (its private /tmp and /run):
// the only ones a connect or send may reach unless --allow-socket names
// another. A daemon's socket the host shows through (Docker's, Incus's
// under /var/lib, one under the home) is a way out of any sandbox.
inline constexpr std::string_view kSandboxSockets[] = {"/tmp/**", "/run/**"};

// The variables of the caller's environment that pass into the sandbox
// (others may hold tokens): these names, and LC_*.
inline constexpr std::string_view kPassedEnvironment[] = {
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "TZ"};

// One entry of the host's root directory.
struct HostRootEntry {
  std::string name;
  bool directory = false;
  std::string symlink;  // the link's target, for a symbolic link
};

// Whether `path` exists on the host (a dangling symlink does): what
// HostSandboxSpec's `exists` asks, for the secrets it masks.
bool HostPathExists(const std::string& path);

// The host's root directory, as HostSandboxSpec takes it.
Result<std::vector<HostRootEntry>> ReadHostRoot();

enum class DoNetwork { kNone, kHost, kAllow };

struct DoRequest {
  std::vector<std::string> command;
  std::string cwd;                    // absolute: the caller's working directory
  std::vector<std::string> writable;  // --rw, absolute
  DoNetwork network = DoNetwork::kNone;
  bool terminal = false;
  uid_t uid = 0;  // the caller's
  gid_t gid = 0;
  std::string home;                   // the caller's home, "" for none
  std::vector<std::string> env;       // the caller's, as NAME=VALUE
  std::vector<std::string> pass_env;  // --env NAME or NAME=VALUE
  std::vector<std::string> sockets;   // --allow-socket, absolute
  std::vector<std::string> hide;      // --hide, absolute: hidden as kHiddenInHome's
  std::vector<std::string> show;      // --show, absolute: of the hidden, shown read-only
};

// One entry of a host directory, for building the sandbox's home: its
// name, and where it leads when it is a symbolic link (resolved on the
// host, "" if it leads nowhere), or "" when it is not one.
struct HostEntry {
  std::string name;
  bool symlink = false;
  std::string target;  // resolved, for a symlink
};
using ListHostDirectory = std::vector<HostEntry> (*)(const std::string& dir);

// The host directory `dir`'s entries (none if it cannot be read).
std::vector<HostEntry> ReadHostDirectory(const std::string& dir);

// What the sandbox hides from `request`'s command: the home's credential
// stores (kHiddenInHome), --hide's paths, then kHiddenOnHost; less what
// --show names.
std::vector<std::string> HiddenPaths(const DoRequest& request);

// Makes the host root's symbolic links (a merged /usr's /bin -> usr/bin)
// in `rootfs`, an empty directory that becomes the sandbox's root.
Result<void> MakeHostRootLinks(const std::string& rootfs, std::span<const HostRootEntry> host_root);

// The config for `request`, with `rootfs` (MakeHostRootLinks's) as its
// root. `exists` says whether a host path exists: only existing secrets
// are masked. Fails for a working directory or --rw path inside a hidden
// one, or holding a hidden host path (/, /etc), and for a --show path
// that is none of the hidden ones.
//
// The home's secrets stay hidden for the whole run: each directory on the
// way to one (/home, the home, .config, ...) is a tmpfs of the sandbox's
// holding a read-only bind of each entry `list` found there at the start
// but the hidden ones (and links leading into one), so a credential the
// host writes, replaces by rename, or creates meanwhile never shows. What
// else appears there during the run does not show either. A working
// directory or --rw path that holds the home (the home itself) is bound
// over that, with the secrets masked by mounts over what existed at start.
Result<config::Spec> HostSandboxSpec(const DoRequest& request,
                                     std::span<const HostRootEntry> host_root,
                                     const std::string& rootfs,
                                     bool (*exists)(const std::string& path),
                                     ListHostDirectory list);

// `policy` with its network set as --net asks: kNone keeps the policy's
// egress (the sandbox has a network namespace of its own), kHost allows
// every destination, kAllow allows `allow` ("HOST:PORT", "HOST:FIRST-LAST",
// HOST an address or a DNS name) and refuses the rest; a changed policy's
// name gets "+net". Errors name the entry.
Result<void> ApplyNetworkFlag(DoNetwork network, std::span<const std::string> allow,
                              config::Policy& policy);

// `policy` with what protects the host from the sandbox whatever the
// profile, first among the file rules so that they beat the writable
// directories' write grants:
// - HiddenPaths hidden: the mounts hide them already, but only the sentry
//   sees a lookup of what is not there, so each attempt is a refusal in
//   the audit and --summary; and it keeps hiding a host file the host
//   replaces by rename meanwhile (which detaches a mask mounted on it);
// - kRunByTheHost beneath each writable directory (and
//   kRunByTheHostInHome in a writable home) read-only, except beneath an
//   --rw path that names them.
// Unix connects and sends reach only kSandboxSockets and
// `request.sockets`. The name gets "+do".
void ProtectHost(const DoRequest& request, config::Policy& policy);

}  // namespace vigil::lifecycle
