// vigil create and vigil run.
#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "base/strings.h"
#include "cli/run_foreground.h"
#include "cli/verbs.h"
#include "config/oci/config.h"
#include "lifecycle/create.h"

namespace vigil::cli {
namespace {

Result<lifecycle::CreateOptions> ReadCreateOptions(const Invocation& invocation) {
  const auto& args = invocation.flags.positional;
  if (args.empty()) return Fail("container id required");
  if (args.size() > 1) return Fail(StrCat("unexpected argument ", Quote(args[1])));
  lifecycle::CreateOptions options{
      .root = invocation.global.root,
      .id = args[0],
      .bundle = invocation.flags.Value("bundle").value_or("."),
      .pid_file = invocation.flags.Value("pid-file").value_or(""),
      .console_socket = invocation.flags.Value("console-socket").value_or(""),
      .no_pivot = invocation.flags.IsSet("no-pivot"),
      .systemd_cgroup = invocation.global.systemd_cgroup,
      .policy = invocation.global.policy,
      .audit_path = invocation.global.audit,
      .audit_max_size = invocation.global.audit_max_size,
      .audit_max_files = invocation.global.audit_max_files,
      .platform = invocation.global.platform,
      .timeout = invocation.flags.Value("timeout").value_or(""),
      .global_timeout = invocation.global.timeout,
      .user_network = invocation.flags.IsSet("user-network"),
  };
  ASSIGN_OR_RETURN(options.preserve_fds, invocation.flags.Count("preserve-fds"));
  // systemd socket activation: LISTEN_FDS descriptors pass through too.
  if (const char* listen = std::getenv("LISTEN_FDS")) {
    int n = 0;
    std::from_chars(listen, listen + std::char_traits<char>::length(listen), n);
    if (n > 0) options.preserve_fds += n;
  }
  return options;
}

// `run` in the foreground of a terminal container without a console
// socket: vigil is the console socket's other end itself, as runc is. The
// bundle it loads to know is the one create then uses (`options.spec`).
bool RelaysTerminal(const Invocation& invocation, lifecycle::CreateOptions& options) {
  if (invocation.flags.IsSet("detach") || !options.console_socket.empty()) return false;
  // A bundle that does not load is create's to report.
  Result<config::Spec> spec = config::LoadBundle(options.bundle);
  if (!spec) return false;
  options.spec = std::move(*spec);
  return options.spec->process && options.spec->process->terminal;
}

}  // namespace

const FlagSpec kCreateFlags[8] = {
    {"bundle", "b", true, "DIR", "bundle directory (default: .)"},
    {"pid-file", "", true, "FILE", "write the container's pid (its init's) to FILE"},
    {"console-socket", "", true, "PATH", "unix socket to receive the terminal's master fd"},
    {"no-pivot", "", false, "", "chroot instead of pivot_root (for a ramdisk root)"},
    {"no-new-keyring", "", false, "", "accepted: vigil never creates a session keyring"},
    {"preserve-fds", "", true, "N", "pass N descriptors after stdio (3 ... 3+N-1) through"},
    {"timeout", "", true, "DURATION",
     "end the container this long after its start (30s, 10m): TERM to every process, then KILL "
     "after dev.vigil.timeout-grace (10s); dev.vigil.timeout may shorten it"},
    {"user-network", "", false, "",
     "the container's own network namespace reaches the host's network through slirp4netns "
     "(as rootless podman's); the policy's egress still decides every connect and send"},
};

const FlagSpec kRunFlags[11] = {
    kCreateFlags[0],
    kCreateFlags[1],
    kCreateFlags[2],
    kCreateFlags[3],
    kCreateFlags[4],
    kCreateFlags[5],
    kCreateFlags[6],
    kCreateFlags[7],
    {"detach", "d", false, "", "return once the container runs instead of waiting for it"},
    {"keep", "", false, "", "do not delete the container once it exits"},
    {"no-subreaper", "", false, "", "do not become the subreaper of the container's init"},
};

Result<int> RunCreate(const Invocation& invocation) {
  ASSIGN_OR_RETURN(lifecycle::CreateOptions options, ReadCreateOptions(invocation));
  RETURN_IF_ERROR(lifecycle::CreateContainer(options));
  return 0;
}

Result<int> RunRun(const Invocation& invocation) {
  ASSIGN_OR_RETURN(lifecycle::CreateOptions options, ReadCreateOptions(invocation));
  const RunMode mode{.detach = invocation.flags.IsSet("detach"),
                     .keep = invocation.flags.IsSet("keep"),
                     .subreaper = !invocation.flags.IsSet("no-subreaper"),
                     .relay_terminal = RelaysTerminal(invocation, options)};
  return RunContainer(std::move(options), mode);
}

}  // namespace vigil::cli
