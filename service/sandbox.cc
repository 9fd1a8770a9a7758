#include "service/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "config/oci/config.h"
#include "service/sandbox_spec.h"

namespace vigil::service {
namespace {

using Clock = std::chrono::steady_clock;

// How long a kernel may take to say it is ready (Python's start under the
// sentry takes a fraction of this).
constexpr std::chrono::seconds kStartLimit{30};

std::int64_t Ticks(Clock::time_point t) { return t.time_since_epoch().count(); }

}  // namespace
Sandbox::Sandbox(const Runtime& runtime, const Template& t, std::string id,
                 std::string bundle_dir)
    : runtime_(runtime),
      template_(t),
      id_(std::move(id)),
      bundle_dir_(std::move(bundle_dir)),
      last_used_(Ticks(Clock::now())) {}

Result<std::shared_ptr<Sandbox>> Sandbox::Start(const Runtime& runtime, const Template& t,
                                                std::string id, std::string bundle_dir) {
  std::shared_ptr<Sandbox> sandbox(new Sandbox(runtime, t, std::move(id), std::move(bundle_dir)));
  Result<void> started = [&]() -> Result<void> {
    std::error_code ec;
    std::filesystem::create_directories(sandbox->bundle_dir_, ec);
    if (ec) return FailErrno(ec.value(), StrCat("create ", sandbox->bundle_dir_));
    ASSIGN_OR_RETURN(config::Spec spec, SandboxSpec(t, sandbox->bundle_dir_));
    RETURN_IF_ERROR(WriteFileAtomic(sandbox->bundle_dir_ + "/config.json",
                                    config::DumpSpec(spec), 0600, /*overwrite=*/false));
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      return FailErrno("socketpair");
    }
    sandbox->kernel_.Reset(pair[0]);
    UniqueFd kernel_end(pair[1]);
    const std::string pid_file = sandbox->bundle_dir_ + "/pid";
    // The kernel's standard error stays in the bundle: what Python said
    // before the kernel took its descriptors over (a missing module).
    std::vector<std::string> create = {"create", "--bundle", sandbox->bundle_dir_,
                                       "--pid-file", pid_file, sandbox->id_};
    if (!t.egress.empty()) create.insert(create.begin() + 1, "--user-network");
    RETURN_IF_ERROR(runtime.RunAttached(create,
                                        kernel_end.Get(), sandbox->bundle_dir_ + "/stderr.log"));
    kernel_end.Reset();
    // Before start, the pid is surely the kernel's: it waits for start.
    ASSIGN_OR_RETURN(std::string pid_text, ReadFile(pid_file, 64));
    pid_t pid = 0;
    std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
    if (pid <= 0) return Fail(StrCat("create wrote no pid to ", pid_file));
    ASSIGN_OR_RETURN(sandbox->pidfd_, PidfdOpen(pid));
    RETURN_IF_ERROR(runtime.Run({"start", sandbox->id_}));
    return sandbox->Exchange("", "", Clock::now() + kStartLimit, ReplySink{});
  }();
  if (!started) {
    sandbox->End();
    return Fail(StrCat("sandbox of template ", Quote(t.name), ": ", started.error().message));
  }
  return sandbox;
}

bool Sandbox::KernelAlive() const {
  pollfd ended{.fd = pidfd_.Get(), .events = POLLIN};
  return !ended_ && pidfd_ && ::poll(&ended, 1, 0) == 0;
}

Clock::time_point Sandbox::last_used() const {
  return Clock::time_point(Clock::duration(last_used_.load()));
}

Result<void> Sandbox::Call(std::string_view request, std::string_view payload,
                           std::chrono::milliseconds limit, const ReplySink& sink) {
  std::lock_guard lock(call_);
  if (ended_) return Fail("the sandbox has ended");
  if (paused_) {
    RETURN_IF_ERROR(runtime_.Run({"resume", id_}));
    paused_ = false;
  }
  Result<void> done = Exchange(request, payload, Clock::now() + limit, sink);
  last_used_ = Ticks(Clock::now());
  if (!done && !ended_) {
    // Out of step with its kernel (which did not end the call, or ended):
    // nothing more can be asked of it.
    End();
  }
  return done;
}

Result<void> Sandbox::Exchange(std::string_view request, std::string_view payload,
                               Deadline deadline, const ReplySink& sink) {
  if (!request.empty()) {
    RETURN_IF_ERROR(WriteAll(StrCat(request, "\n")));
    RETURN_IF_ERROR(WriteAll(payload));
  }
  while (true) {
    ASSIGN_OR_RETURN(std::string line, ReadLine(deadline));
    ASSIGN_OR_RETURN(json::Document reply, json::Document::Parse(line));
    std::optional<json::Value> type = reply.root().Find("type");
    std::optional<std::string_view> kind = type ? type->AsString() : std::nullopt;
    if (!kind) return Fail("the kernel sent a reply without a type");
    if (*kind == "end") return {};
    if (sink.line) sink.line(*kind, line);
    if (*kind == "file") {
      std::optional<json::Value> size = reply.root().Find("size");
      std::optional<std::string_view> text = size ? size->NumberText() : std::nullopt;
      std::size_t bytes = 0;
      if (!text ||
          std::from_chars(text->data(), text->data() + text->size(), bytes).ptr !=
              text->data() + text->size()) {
        return Fail("the kernel sent a file without its size");
      }
      ASSIGN_OR_RETURN(std::string data, ReadBytes(bytes, deadline));
      if (sink.data) sink.data(data);
    }
  }
}

Result<std::string> Sandbox::ReadLine(Deadline deadline) {
  std::size_t newline;
  while ((newline = pending_.find('\n')) == std::string::npos) {
    if (pending_.size() > kMaxReplyLine) return Fail("the sandbox's kernel sent an endless line");
    RETURN_IF_ERROR(Fill(deadline));
  }
  std::string line = pending_.substr(0, newline);
  pending_.erase(0, newline + 1);
  return line;
}

Result<std::string> Sandbox::ReadBytes(std::size_t size, Deadline deadline) {
  if (size > kMaxReplyFile) return Fail("the sandbox's kernel sent a file over the limit");
  while (pending_.size() < size) RETURN_IF_ERROR(Fill(deadline));
  std::string bytes = pending_.substr(0, size);
  pending_.erase(0, size);
  return bytes;
}

Result<void> Sandbox::Fill(Deadline deadline) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Fail("the sandbox's kernel did not answer in time");
    pollfd fds[2] = {{.fd = kernel_.Get(), .events = POLLIN},
                     {.fd = pidfd_.Get(), .events = POLLIN}};
    const int ready = ::poll(fds, pidfd_ ? 2 : 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return FailErrno("poll");
    if (ready == 0) continue;
    if (fds[0].revents != 0) {
      char buf[65536];
      const ssize_t n = ::read(kernel_.Get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return FailErrno("read from the sandbox's kernel");
      if (n == 0) return Fail("the sandbox's kernel ended");
      pending_.append(buf, static_cast<std::size_t>(n));
      return {};
    }
    return Fail("the sandbox's kernel ended");
  }
}

Result<void> Sandbox::WriteAll(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(kernel_.Get(), data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("write to the sandbox's kernel");
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

void Sandbox::PauseIfIdle() {
  std::unique_lock lock(call_, std::try_to_lock);
  if (!lock.owns_lock() || paused_ || ended_) return;
  if (runtime_.Run({"pause", id_})) paused_ = true;
}

void Sandbox::End() {
  if (ended_.exchange(true)) return;
  (void)runtime_.Run({"delete", "--force", id_});
  std::error_code ec;
  std::filesystem::remove_all(bundle_dir_, ec);
}

}  // namespace vigil::service
