// vigil serve: the code-execution service (service/): sandboxes from
// templates behind an HTTP API on a unix socket and, with a token, a TCP
// port, until SIGTERM or SIGINT ends them all.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <thread>

#include "base/file.h"
#include "base/strings.h"
#include "base/units.h"
#include "cli/verbs.h"
#include "service/api.h"
#include "service/http_server.h"
#include "service/service.h"

namespace vigil::cli {
namespace {

// Where the service keeps its sandboxes' bundles and audits, under the
// state root: a name no container id takes (runtime/container/state_dir.h).
constexpr std::string_view kServeDir = ".serve";

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop = true; }

Result<std::string> ReadToken(const std::string& path) {
  ASSIGN_OR_RETURN(std::string token, ReadFile(path, 4096));
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.size() < 16) return Fail(StrCat("--token-file ", Quote(path), ": under 16 characters"));
  return token;
}

}  // namespace

const FlagSpec kServeFlags[8] = {
    {"socket", "", true, "PATH", "the unix socket to serve on (default: ROOT/serve.sock)"},
    {"listen", "", true, "ADDRESS:PORT",
     "also serve on this TCP address (needs --token-file; other than loopback, TLS too)"},
    {"token-file", "", true, "FILE", "clients must send this token (Authorization: Bearer)"},
    {"tls-cert", "", true, "FILE", "the TCP port's TLS certificate chain (PEM)"},
    {"tls-key", "", true, "FILE", "its private key (PEM)"},
    {"config", "", true, "FILE", "templates, as docs/serve.md shows (default: python only)"},
    {"max-upload", "", true, "SIZE", "the largest request body (default: 64M)"},
    {"runtime", "", true, "PATH",
     "the runtime that makes the sandboxes (default: this vigil); runc's command line, to "
     "compare: no sentry, no policy, no audit"},
};

Result<int> RunServe(const Invocation& invocation) {
  if (!invocation.flags.positional.empty()) {
    return Fail(StrCat("unexpected argument ", Quote(invocation.flags.positional[0])));
  }
  const std::string& root = invocation.global.root;
  std::vector<service::Template> templates = service::DefaultTemplates();
  if (std::optional<std::string> path = invocation.flags.Value("config")) {
    ASSIGN_OR_RETURN(std::string text, ReadFile(*path, 1 << 20));
    Result<std::vector<service::Template>> parsed = service::ParseTemplates(text);
    if (!parsed) return tl::unexpected(std::move(parsed).error().Wrap(*path));
    templates = std::move(*parsed);
  }
  service::HttpOptions http{
      .unix_path = invocation.flags.Value("socket").value_or(StrCat(root, "/serve.sock")),
      .tcp = invocation.flags.Value("listen").value_or(""),
      .tls_cert = invocation.flags.Value("tls-cert").value_or(""),
      .tls_key = invocation.flags.Value("tls-key").value_or(""),
  };
  if (std::optional<std::string> path = invocation.flags.Value("token-file")) {
    ASSIGN_OR_RETURN(http.token, ReadToken(*path));
  }
  if (std::optional<std::string> size = invocation.flags.Value("max-upload")) {
    ASSIGN_OR_RETURN(std::int64_t bytes, ParseBytes("--max-upload", *size));
    if (bytes <= 0) return Fail("--max-upload: must be a positive size");
    http.body_limit = static_cast<std::size_t>(bytes);
  }

  // The state root as create makes it: its user's alone (runc's is too).
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return FailErrno(StrCat("create ", root));
  }
  service::Runtime runtime{.root = root};
  if (std::optional<std::string> path = invocation.flags.Value("runtime")) runtime.binary = *path;
  service::Service sandboxes(std::move(runtime), std::move(templates),
                             StrCat(root, "/", kServeDir));
  RETURN_IF_ERROR(sandboxes.Open());
  struct sigaction stop {};
  stop.sa_handler = OnStopSignal;
  ::sigaction(SIGTERM, &stop, nullptr);
  ::sigaction(SIGINT, &stop, nullptr);
  // Ends the sandboxes as soon as the service is told to stop, so that the
  // calls still running end with them and their connections close.
  std::thread closer([&] {
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sandboxes.Close();
  });
  auto listening = [&] {
    std::fprintf(stderr, "vigil serve: listening on unix:%s%s%s\n", http.unix_path.c_str(),
                 http.tcp.empty()        ? ""
                 : http.tls_cert.empty() ? " and http://"
                                         : " and https://",
                 http.tcp.c_str());
  };
  Result<void> served = service::ServeHttp(http, service::ApiHandler(sandboxes), listening, g_stop);
  g_stop = true;
  closer.join();
  if (!http.unix_path.empty()) ::unlink(http.unix_path.c_str());
  RETURN_IF_ERROR(served);
  return 0;
}

}  // namespace vigil::cli
