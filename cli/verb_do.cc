// vigil do: one command in a fresh sandbox of the host's own filesystem,
// without a bundle, as root or as a user (lifecycle/host_sandbox.h).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/file.h"
#include "base/random.h"
#include "base/scope_guard.h"
#include "base/strings.h"
#include "cli/run_foreground.h"
#include "cli/verbs.h"
#include "config/oci/config.h"
#include "config/policy/policy.h"
#include "lifecycle/host_sandbox.h"
#include "sentry/audit/reader.h"

extern char** environ;

namespace vigil::cli {
namespace {

// Where `do` keeps a sandbox's bundle while it runs: ROOT/.do/ID (a name
// under the root that no container id takes, runtime/container/state_dir.h).
constexpr std::string_view kDoDir = ".do";

Result<std::string> NewId() {
  ASSIGN_OR_RETURN(std::string random, RandomHex(6));
  return StrCat("do-", ::getpid(), "-", random);
}

Result<lifecycle::DoNetwork> ParseNetwork(const std::string& value,
                                          std::vector<std::string>* allow) {
  if (value == "none") return lifecycle::DoNetwork::kNone;
  if (value == "host") return lifecycle::DoNetwork::kHost;
  if (value.starts_with("allow=")) {
    std::string_view rest = std::string_view(value).substr(6);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      allow->emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    if (allow->empty()) return Fail("--net allow= names no HOST:PORT");
    return lifecycle::DoNetwork::kAllow;
  }
  return Fail(StrCat("--net ", Quote(value), ": wanted none, host or allow=HOST:PORT,..."));
}

Result<std::string> Absolute(const std::string& path, std::string_view flag) {
  std::error_code ec;
  std::filesystem::path resolved = std::filesystem::canonical(path, ec);
  if (ec) return FailErrno(ec.value(), StrCat(flag, " ", Quote(path)));
  return resolved.string();
}

Result<lifecycle::DoRequest> ReadRequest(const Invocation& invocation) {
  lifecycle::DoRequest request;
  request.command = invocation.flags.positional;
  if (request.command.empty()) return Fail("no command: vigil do [flags] -- CMD [ARGS...]");
  ASSIGN_OR_RETURN(request.cwd, Absolute(".", "the working directory"));
  for (const std::string& path : invocation.flags.Values("rw")) {
    ASSIGN_OR_RETURN(std::string absolute, Absolute(path, "--rw"));
    request.writable.push_back(std::move(absolute));
  }
  request.terminal = ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  request.uid = ::geteuid();
  request.gid = ::getegid();
  if (const char* home = std::getenv("HOME")) request.home = home;
  for (char** e = environ; *e != nullptr; ++e) request.env.emplace_back(*e);
  request.pass_env = invocation.flags.Values("env");
  // Not canonical: a path that does not exist yet may be hidden too, and
  // a store is shown by the name the sandbox hides it by.
  for (std::string_view flag : {"hide", "show"}) {
    for (const std::string& path : invocation.flags.Values(flag)) {
      if (path.empty()) return Fail(StrCat("--", flag, " names no path"));
      std::error_code ec;
      std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
      if (ec) return FailErrno(ec.value(), StrCat("--", flag, " ", Quote(path)));
      if (absolute.size() > 1 && absolute.ends_with('/')) absolute.pop_back();
      (flag == "hide" ? request.hide : request.show).push_back(std::move(absolute));
    }
  }
  for (const std::string& path : invocation.flags.Values("allow-socket")) {
    ASSIGN_OR_RETURN(std::string absolute, Absolute(path, "--allow-socket"));
    request.sockets.push_back(std::move(absolute));
  }
  return request;
}

// --summary: what was refused, one line each, then the counts.
void PrintSummary(const std::string& audit_path) {
  std::uint64_t dropped = 0;
  Result<std::vector<sentry::audit::Record>> records =
      sentry::audit::ReadAuditFile(audit_path, &dropped);
  if (!records) {
    std::fprintf(stderr, "vigil do: no audit summary: %s\n", records.error().message.c_str());
    return;
  }
  std::string out = "vigil do: refused:\n";
  std::size_t refused = 0;
  for (const sentry::audit::Record& record : *records) {
    if (record.decision != sentry::audit::Decision::kDeny &&
        record.decision != sentry::audit::Decision::kKill) {
      continue;
    }
    out += "  " + sentry::audit::FormatRecord(record) + "\n";
    ++refused;
  }
  if (refused == 0) out += "  nothing\n";
  out += sentry::audit::FormatSummary(sentry::audit::Summarize(*records, dropped));
  std::fputs(out.c_str(), stderr);
}

// Why the sandbox was ended, when the supervisor or the kernel ended it
// (its timeout, its memory limit, held by its cgroup or by the supervisor
// without one): one line, so that exit status 137 is not all the user sees.
void SayWhyEnded(const std::string& audit_path) {
  std::uint64_t dropped = 0;
  Result<std::vector<sentry::audit::Record>> records =
      sentry::audit::ReadAuditFile(audit_path, &dropped);
  if (!records) return;
  auto arg = [](const sentry::audit::Record& record, std::string_view name) {
    for (const sentry::audit::Arg& a : record.args) {
      if (a.name == name) return a.value;
    }
    return std::string("?");
  };
  for (const sentry::audit::Record& record : *records) {
    if (record.event == "timeout") {
      std::fprintf(stderr, "vigil do: ended: it ran past its timeout (%s ms)\n",
                   arg(record, "afterMs").c_str());
      return;
    }
    if (record.event == "memory-limit") {
      std::fprintf(stderr,
                   "vigil do: ended: it held %s bytes of memory, past its memory limit of %s\n",
                   arg(record, "heldBytes").c_str(), arg(record, "limitBytes").c_str());
      return;
    }
    if (record.event == "oom-kill") {
      std::fprintf(stderr,
                   "vigil do: ended: it reached its memory limit, and the kernel killed %s of "
                   "its processes\n",
                   arg(record, "processes").c_str());
      return;
    }
  }
}

}  // namespace

const FlagSpec kDoFlags[10] = {
    {"policy", "", true, "POLICY",
     "the sentry's policy: a profile (default: agent), inline JSON or a file"},
    {"net", "", true, "NET",
     "none (default: a network of its own, connections refused), host, or "
     "allow=HOST:PORT,... (the host's network, only those destinations)"},
    {"rw", "", true, "PATH", "also writable (repeatable); the working directory always is"},
    {"env", "", true, "NAME[=VALUE]",
     "pass a variable of the caller's, or set one (repeatable); only PATH, HOME, USER, "
     "LOGNAME, SHELL, TERM, COLORTERM, LANG, LANGUAGE, TZ and LC_* pass otherwise"},
    {"timeout", "", true, "DURATION", "end it after it ran this long (30s, 10m)"},
    {"audit", "", true, "FILE", "append the sentry's audit records to FILE (default: none kept)"},
    {"summary", "", false, "", "print what was refused, and counts, when it ends"},
    {"hide", "", true, "PATH",
     "also hidden for the whole run (repeatable), as the home's credential stores are"},
    {"show", "", true, "PATH",
     "one of the hidden paths (~/.npmrc, ...) the command may read after all (repeatable)"},
    {"allow-socket", "", true, "PATH",
     "a host unix socket the command may connect to (repeatable); others are refused"},
};

Result<int> RunDo(const Invocation& invocation) {
  ASSIGN_OR_RETURN(lifecycle::DoRequest request, ReadRequest(invocation));
  std::vector<std::string> allow;
  ASSIGN_OR_RETURN(request.network,
                   ParseNetwork(invocation.flags.Value("net").value_or("none"), &allow));
  ASSIGN_OR_RETURN(config::Policy policy,
                   config::PolicyFromFlag(invocation.flags.Value("policy").value_or(
                       invocation.global.policy.empty() ? "agent" : invocation.global.policy)));
  RETURN_IF_ERROR(lifecycle::ApplyNetworkFlag(request.network, allow, policy));
  lifecycle::ProtectHost(request, policy);

  const std::string& root = invocation.global.root;
  ASSIGN_OR_RETURN(const std::string id, NewId());
  const std::string bundle = StrCat(root, "/", kDoDir, "/", id);
  std::error_code ec;
  std::filesystem::create_directories(bundle + "/rootfs", ec);
  if (ec) return FailErrno(ec.value(), StrCat("create ", bundle));
  ScopeGuard remove_bundle([&] { std::filesystem::remove_all(bundle, ec); });
  ASSIGN_OR_RETURN(std::vector<lifecycle::HostRootEntry> host_root, lifecycle::ReadHostRoot());
  RETURN_IF_ERROR(lifecycle::MakeHostRootLinks(bundle + "/rootfs", host_root));
  ASSIGN_OR_RETURN(config::Spec spec, lifecycle::HostSandboxSpec(
                                          request, host_root, bundle + "/rootfs",
                                          lifecycle::HostPathExists, lifecycle::ReadHostDirectory));
  RETURN_IF_ERROR(WriteFileAtomic(bundle + "/config.json", config::DumpSpec(spec), 0600,
                                  /*overwrite=*/false));

  const bool summary = invocation.flags.IsSet("summary");
  std::string audit = invocation.flags.Value("audit").value_or(invocation.global.audit);
  if (audit.empty()) audit = bundle + "/audit.jsonl";  // gone with the bundle
  lifecycle::CreateOptions options{
      .root = root,
      .id = id,
      .bundle = bundle,
      .policy = config::DumpPolicy(policy),
      .audit_path = audit,
      .platform = invocation.global.platform,
      .timeout = invocation.flags.Value("timeout").value_or(""),
      .global_timeout = invocation.global.timeout,
      .interrupt_ends = true,
      .user_network = request.network == lifecycle::DoNetwork::kAllow,
  };
  Result<int> status =
      RunContainer(std::move(options), RunMode{.relay_terminal = request.terminal});
  if (status && *status == 128 + SIGKILL) SayWhyEnded(audit);
  if (summary && status) PrintSummary(audit);
  return status;
}

}  // namespace vigil::cli
