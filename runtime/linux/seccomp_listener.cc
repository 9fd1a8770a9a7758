#include "runtime/linux/seccomp_listener.h"

#include <sys/socket.h>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "base/unique_fd.h"
#include "base/unix_socket.h"

namespace vigil::runtime {
std::string ContainerProcessState(int pid, std::string_view metadata, const config::State& state) {
  json::Writer w;
  w.BeginObject();
  w.Key("ociVersion");
  w.String(state.oci_version);
  w.Key("fds");
  w.BeginArray();
  w.String("seccompFd");
  w.EndArray();
  w.Key("pid");
  w.Int(pid);
  if (!metadata.empty()) {
    w.Key("metadata");
    w.String(metadata);
  }
  w.EndObject();
  std::string out = w.Take();
  // json::Writer cannot embed a finished document, so the state object, in
  // DumpState's one encoding, goes in before the closing brace.
  out.pop_back();
  out += ",\"state\":";
  out += config::DumpState(state);
  out += '}';
  return out;
}

Result<void> SendSeccompListener(const std::string& listener_path, int listener_fd,
                                 std::string_view process_state_json) {
  // ConnectUnix's errors name the path; the others here say it once.
  const std::string context = "seccomp listener";
  // At least one byte must go with the fd, or nothing carries it.
  if (process_state_json.empty()) return Fail(StrCat(context, ": empty container process state"));
  Result<UniqueFd> sock = ConnectUnix(listener_path, SOCK_STREAM);
  if (!sock) return tl::unexpected(std::move(sock).error().Wrap(context));
  RETURN_IF_ERROR_WRAP(SendWithFd(sock->Get(), process_state_json, listener_fd),
                       StrCat(context, " ", Quote(listener_path)));
  // One state per connection, then close (UniqueFd does).
  return {};
}

}  // namespace vigil::runtime
