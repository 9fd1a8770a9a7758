#include "lifecycle/host_sandbox.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>

#include "base/directory.h"
#include "base/file.h"
#include "base/strings.h"
#include "config/oci/default_spec.h"
#include "config/oci/vigil_annotations.h"
#include "config/policy/cidr.h"
#include "config/policy/glob.h"
#include "lifecycle/lifetime.h"

namespace vigil::lifecycle {
namespace {

// Top-level directories the sandbox gets its own of (or none): the host's
// processes, devices, runtime sockets (Docker's, D-Bus), temporary files
// and root's home never show through.
constexpr std::string_view kNotFromHost[] = {"proc", "sys",  "dev",       "run",
                                             "tmp",  "root", "lost+found"};

bool Within(std::string_view path, std::string_view dir) { return config::IsBeneath(path, dir); }

bool Passed(std::string_view assignment, std::span<const std::string> asked) {
  const std::string_view name = assignment.substr(0, assignment.find('='));
  if (name.starts_with("LC_")) return true;
  if (std::find(std::begin(kPassedEnvironment), std::end(kPassedEnvironment), name) !=
      std::end(kPassedEnvironment)) {
    return true;
  }
  return std::find(asked.begin(), asked.end(), name) != asked.end();
}

// The caller's variables that pass (kPassedEnvironment, LC_*, --env NAME),
// then --env NAME=VALUE.
std::vector<std::string> SandboxEnvironment(const DoRequest& request) {
  std::vector<std::string> names;
  std::vector<std::string> set;
  for (const std::string& entry : request.pass_env) {
    (entry.find('=') == std::string::npos ? names : set).push_back(entry);
  }
  std::vector<std::string> env;
  for (const std::string& entry : request.env) {
    if (entry.find('=') != std::string::npos && Passed(entry, names)) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  if (std::none_of(env.begin(), env.end(),
                   [](const std::string& e) { return e.starts_with("PATH="); })) {
    env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  }
  return env;
}

config::Mount Bind(const std::string& path, bool writable) {
  return config::Mount{.destination = path,
                       .type = "bind",
                       .source = path,
                       .options = {"rbind", writable ? "rw" : "ro", "nosuid", "nodev"}};
}

// Adds to `mounts` the host's `path` without any of `hidden`: bound
// read-only as it is when none lies beneath it; else a tmpfs of the
// sandbox's at `path`, with each of its entries handled the same way but
// those `hidden` names and links that lead into one (or nowhere).
void ExposeAllBut(const std::string& path, const std::vector<std::string>& hidden,
                  ListHostDirectory list, std::vector<config::Mount>& mounts) {
  const bool holds_one = std::any_of(hidden.begin(), hidden.end(), [&](const std::string& secret) {
    return secret != path && Within(secret, path);
  });
  if (!holds_one) {
    mounts.push_back(Bind(path, /*writable=*/false));
    return;
  }
  mounts.push_back(config::Mount{.destination = path,
                                 .type = "tmpfs",
                                 .source = "tmpfs",
                                 .options = {"nosuid", "nodev", "mode=755"}});
  auto is_hidden = [&](const std::string& p) {
    return std::any_of(hidden.begin(), hidden.end(),
                       [&](const std::string& secret) { return Within(p, secret); });
  };
  for (const HostEntry& entry : list(path)) {
    const std::string child = StrCat(path, "/", entry.name);
    if (is_hidden(child)) continue;
    if (entry.symlink) {
      if (entry.target.empty() || is_hidden(entry.target)) continue;
      mounts.push_back(Bind(child, /*writable=*/false));  // the bind follows it on the host
      continue;
    }
    ExposeAllBut(child, hidden, list, mounts);
  }
}

// "HOST:PORT" or "HOST:FIRST-LAST"; HOST an address ([...] for IPv6) or a name.
Result<config::EgressRule> ParseAllowEntry(std::string_view entry) {
  const std::string where = StrCat("--net allow=", entry);
  const std::size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == entry.size()) {
    return Fail(StrCat(where, ": wanted HOST:PORT"));
  }
  std::string_view host = entry.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string_view ports = entry.substr(colon + 1);
  const std::size_t dash = ports.find('-');
  auto port = [&](std::string_view text) -> Result<std::uint16_t> {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
      return Fail(StrCat(where, ": ", Quote(text), " is not a port (1-65535)"));
    }
    return static_cast<std::uint16_t>(value);
  };
  config::PortRange range;
  ASSIGN_OR_RETURN(range.first, port(ports.substr(0, dash)));
  range.last = range.first;
  if (dash != std::string_view::npos) {
    ASSIGN_OR_RETURN(range.last, port(ports.substr(dash + 1)));
  }
  if (range.last < range.first) return Fail(StrCat(where, ": the range ends before it starts"));
  config::EgressRule rule{.ports = {range}};
  const bool v6 = host.find(':') != std::string_view::npos;
  if (Result<config::Cidr> address = config::ParseCidr(StrCat(host, v6 ? "/128" : "/32"))) {
    rule.cidr = *address;
  } else if (v6) {
    return Fail(StrCat(where, ": ", Quote(host), " is not an IPv6 address"));
  } else {
    // A name, resolved at create (lifecycle/egress_hosts.h).
    rule.cidr.family = AF_UNSPEC;
    rule.host = std::string(host);
  }
  return rule;
}

}  // namespace

Result<std::vector<HostRootEntry>> ReadHostRoot() {
  ASSIGN_OR_RETURN(std::vector<DirectoryEntry> listed, ListDirectory("/"));
  std::vector<HostRootEntry> entries;
  for (const DirectoryEntry& entry : listed) {
    HostRootEntry host{.name = entry.name, .directory = entry.IsDirectory()};
    if (entry.IsSymlink()) {
      Result<std::string> target = ReadLink(StrCat("/", entry.name));
      if (!target || target->empty()) continue;
      host.symlink = std::move(*target);
    }
    entries.push_back(std::move(host));
  }
  return entries;
}

bool HostPathExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

Result<void> MakeHostRootLinks(const std::string& rootfs,
                               std::span<const HostRootEntry> host_root) {
  for (const HostRootEntry& entry : host_root) {
    if (entry.symlink.empty()) continue;
    const std::string link = StrCat(rootfs, "/", entry.name);
    if (::symlink(entry.symlink.c_str(), link.c_str()) != 0)
      return FailErrno(StrCat("symlink ", link));
  }
  return {};
}

std::vector<HostEntry> ReadHostDirectory(const std::string& path) {
  std::vector<HostEntry> entries;
  Result<std::vector<DirectoryEntry>> listed = ListDirectory(path);
  if (!listed) return entries;
  for (const DirectoryEntry& entry : *listed) {
    HostEntry host{.name = entry.name, .symlink = entry.IsSymlink()};
    if (host.symlink) {
      char resolved[PATH_MAX];
      if (::realpath(StrCat(path, "/", entry.name).c_str(), resolved) != nullptr)
        host.target = resolved;
    }
    entries.push_back(std::move(host));
  }
  return entries;
}

namespace {

// Every path the sandbox hides unless --show names it, in HiddenPaths's order.
std::vector<std::string> HiddenByDefault(const DoRequest& request) {
  std::vector<std::string> hidden;
  if (!request.home.empty()) {
    for (std::string_view name : kHiddenInHome) hidden.push_back(StrCat(request.home, "/", name));
  }
  hidden.insert(hidden.end(), request.hide.begin(), request.hide.end());
  hidden.insert(hidden.end(), std::begin(kHiddenOnHost), std::end(kHiddenOnHost));
  return hidden;
}

}  // namespace

std::vector<std::string> HiddenPaths(const DoRequest& request) {
  std::vector<std::string> hidden = HiddenByDefault(request);
  std::erase_if(hidden, [&](const std::string& path) {
    return std::find(request.show.begin(), request.show.end(), path) != request.show.end();
  });
  return hidden;
}

Result<config::Spec> HostSandboxSpec(const DoRequest& request,
                                     std::span<const HostRootEntry> host_root,
                                     const std::string& rootfs,
                                     bool (*exists)(const std::string& path),
                                     ListHostDirectory list) {
  const bool as_user = request.uid != 0;
  config::Spec spec =
      as_user ? config::RootlessSpec(request.uid, request.gid) : config::DefaultSpec();
  config::Linux& linux_spec = *spec.linux_spec;
  spec.root = config::Root{.path = rootfs, .readonly = true};

  // Secrets first: the working directory and --rw paths may not lie in
  // one, nor make a host secret writable (a home's are masked over it).
  const std::vector<std::string> by_default = HiddenByDefault(request);
  for (const std::string& path : request.show) {
    if (std::find(by_default.begin(), by_default.end(), path) == by_default.end()) {
      return Fail(StrCat("--show ", Quote(path), " is none of the paths the sandbox hides"));
    }
  }
  const std::vector<std::string> hidden = HiddenPaths(request);
  // The home's (and --hide's) are built out; the host's are masked.
  std::vector<std::string> built_out;
  for (const std::string& path : hidden) {
    if (std::find(std::begin(kHiddenOnHost), std::end(kHiddenOnHost), path) ==
        std::end(kHiddenOnHost)) {
      built_out.push_back(path);
    }
  }
  std::vector<std::string> writable = {request.cwd};
  writable.insert(writable.end(), request.writable.begin(), request.writable.end());
  for (const std::string& path : writable) {
    const std::string what =
        StrCat(path == request.cwd ? "the working directory " : "--rw ", Quote(path));
    if (path.empty() || path.front() != '/') return Fail(StrCat(what, " is not absolute"));
    for (const std::string& secret : hidden) {
      if (Within(path, secret)) {
        return Fail(StrCat(what, " lies in ", Quote(secret), ", which the sandbox hides"));
      }
    }
    for (std::string_view secret : kHiddenOnHost) {
      if (Within(secret, path)) {
        return Fail(StrCat(what, " holds ", Quote(secret), ", which the sandbox hides"));
      }
    }
  }

  config::Process& process = *spec.process;
  process.terminal = request.terminal;
  process.args = request.command;
  process.cwd = request.cwd;
  process.env = SandboxEnvironment(request);
  // As a user: that user inside too, so that what it writes is the user's.
  process.user = config::User{.uid = request.uid, .gid = request.gid};
  if (as_user) {
    linux_spec.uid_mappings = {
        config::IdMapping{.container_id = request.uid, .host_id = request.uid, .size = 1}};
    linux_spec.gid_mappings = {
        config::IdMapping{.container_id = request.gid, .host_id = request.gid, .size = 1}};
    // Capabilities in its own user namespace only, and none it needs.
    process.capabilities = config::Capabilities{};
  }
  // --net host: the host's network namespace. Otherwise one of its own:
  // empty (none), or reaching the host's network through slirp4netns
  // (allow=, supervisor/supervisor_user_network.cc).
  if (request.network == DoNetwork::kHost) {
    std::erase_if(linux_spec.namespaces, [](const config::Namespace& ns) {
      return ns.type == config::NamespaceType::kNetwork;
    });
  } else if (!linux_spec.FindNamespace(config::NamespaceType::kNetwork)) {
    linux_spec.namespaces.push_back(config::Namespace{.type = config::NamespaceType::kNetwork});
  }

  // The host's root, directory by directory; its symbolic links are in the
  // root already (MakeHostRootLinks). A directory on the way to a secret
  // of built_out's is built of its entries instead (ExposeAllBut).
  std::vector<config::Mount> mounts;
  for (const HostRootEntry& entry : host_root) {
    if (!entry.directory || !entry.symlink.empty()) continue;
    if (std::find(std::begin(kNotFromHost), std::end(kNotFromHost), entry.name) !=
        std::end(kNotFromHost)) {
      continue;
    }
    ExposeAllBut("/" + entry.name, built_out, list, mounts);
  }
  // Then the sandbox's own: /proc, /dev and /sys from the default config
  // (no cgroup mount), a private /tmp and an empty /run.
  for (const config::Mount& m : spec.mounts) {
    if (m.destination != "/sys/fs/cgroup") mounts.push_back(m);
  }
  for (std::string_view dir : {"/tmp", "/run"}) {
    mounts.push_back(config::Mount{.destination = std::string(dir),
                                   .type = "tmpfs",
                                   .source = "tmpfs",
                                   .options = {"nosuid", "nodev", "mode=1777"}});
  }
  // Last, so that they show over the rest: what the command may write.
  for (const std::string& path : writable) mounts.push_back(Bind(path, /*writable=*/true));
  spec.mounts = std::move(mounts);

  for (const std::string& secret : hidden) {
    if (exists(secret)) linux_spec.masked_paths.push_back(secret);
  }
  // Ctrl-C or a timeout: TERM, then KILL soon after (a person waits).
  spec.annotations[std::string(config::kTimeoutGraceAnnotation)] = "2s";
  return spec;
}

Result<void> ApplyNetworkFlag(DoNetwork network, std::span<const std::string> allow,
                              config::Policy& policy) {
  if (network == DoNetwork::kNone) return {};
  // No longer the profile it was: a built-in's name on it would not parse.
  policy.name += "+net";
  switch (network) {
    case DoNetwork::kNone:
      return {};
    case DoNetwork::kHost:
      policy.egress_default_deny = false;
      policy.egress.clear();
      return {};
    case DoNetwork::kAllow:
      policy.egress_default_deny = true;
      policy.egress.clear();
      for (const std::string& entry : allow) {
        ASSIGN_OR_RETURN(config::EgressRule rule, ParseAllowEntry(entry));
        policy.egress.push_back(std::move(rule));
      }
      return {};
  }
  return {};
}

void ProtectHost(const DoRequest& request, config::Policy& policy) {
  std::vector<std::string> writable = {request.cwd};
  writable.insert(writable.end(), request.writable.begin(), request.writable.end());
  // An --rw path beneath a writable directory names what it holds.
  auto named = [&](const std::string& path, const std::string& dir) {
    return std::any_of(request.writable.begin(), request.writable.end(), [&](const std::string& w) {
      return w != dir && Within(w, dir) && Within(path, w);
    });
  };
  // "PATH/**" is PATH and all beneath it.
  std::vector<config::FileRule> leading;
  for (const std::string& secret : HiddenPaths(request)) {
    leading.push_back(
        {.pattern = config::EscapeGlob(secret) + "/**", .access = config::FileAccess::kHidden});
  }
  auto protect = [&](const std::string& dir, std::string_view name) {
    const std::string path = StrCat(dir == "/" ? "" : dir, "/", name);
    if (named(path, dir)) return;
    leading.push_back(
        {.pattern = config::EscapeGlob(path) + "/**", .access = config::FileAccess::kRead});
  };
  for (const std::string& dir : writable) {
    for (std::string_view name : kRunByTheHost) protect(dir, name);
    if (!request.home.empty() && Within(request.home, dir)) {
      for (std::string_view name : kRunByTheHostInHome) protect(request.home, name);
    }
  }
  policy.files.insert(policy.files.begin(), leading.begin(), leading.end());
  policy.unix_paths.assign(std::begin(kSandboxSockets), std::end(kSandboxSockets));
  for (const std::string& socket : request.sockets) {
    policy.unix_paths.push_back(config::EscapeGlob(socket));
  }
  policy.name += "+do";
}

}  // namespace vigil::lifecycle
