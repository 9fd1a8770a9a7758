// One sandbox of `vigil serve`: a container made by the vigil binary from a
// template, whose only process is the kernel (kernel.py), and the socket
// the service talks to that kernel over (its standard input and output).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "service/runtime.h"
#include "service/template.h"

namespace vigil::service {

// The most the service takes from a kernel (whose process runs the
// sandbox's code, which may write anything to the service): one reply
// line, and one file's bytes. Past either, the sandbox is ended.
inline constexpr std::size_t kMaxReplyLine = 16u << 20;
inline constexpr std::size_t kMaxReplyFile = 256u << 20;

// Where a call's replies go: each JSON line (without its newline) but the
// last, "end", with its "type"; a "file" reply's bytes go to `data` after
// its line.
struct ReplySink {
  std::function<void(std::string_view type, std::string_view line)> line;
  std::function<void(std::string_view bytes)> data;
};

class Sandbox {
 public:
  // Makes the container `id` of `t` (its bundle in `bundle_dir`), starts
  // it and waits for its kernel to say it is ready. On failure nothing of
  // it is left but its audit (kept where vigil keeps every container's).
  static Result<std::shared_ptr<Sandbox>> Start(const Runtime& runtime, const Template& t,
                                                std::string id, std::string bundle_dir);

  [[nodiscard]] const std::string& id() const { return id_; }
  [[nodiscard]] const Template& config() const { return template_; }
  [[nodiscard]] bool ended() const { return ended_; }
  // Whether its kernel still runs (it may have died of the code it ran,
  // or of the kernel's OOM killer, between calls).
  [[nodiscard]] bool KernelAlive() const;
  // When a call last ended (or the sandbox started).
  [[nodiscard]] std::chrono::steady_clock::time_point last_used() const;

  // Sends `request` (one JSON object, then `payload` bytes) to the kernel
  // and hands its replies to `sink` until its "end". The kernel ends a call
  // at the call's own timeout; one that has not ended it within `limit`
  // (that timeout and some grace) has lost its kernel, and the sandbox is
  // ended. One call at a time: a second waits for the first. A paused
  // sandbox is resumed first.
  Result<void> Call(std::string_view request, std::string_view payload,
                    std::chrono::milliseconds limit, const ReplySink& sink);

  // Pauses it when no call is running and it is not paused already; its
  // memory goes back (the pause-release-memory annotation).
  void PauseIfIdle();

  // Deletes the container and its bundle; its audit stays. Any thread may
  // end it, during a call too (the call fails).
  void End();

 private:
  Sandbox(const Runtime& runtime, const Template& t, std::string id, std::string bundle_dir);
  using Deadline = std::chrono::steady_clock::time_point;
  // One reply line, or `size` bytes, from the kernel by `deadline`.
  Result<std::string> ReadLine(Deadline deadline);
  Result<std::string> ReadBytes(std::size_t size, Deadline deadline);
  // More of what the kernel wrote into pending_.
  Result<void> Fill(Deadline deadline);
  Result<void> WriteAll(std::string_view data);
  Result<void> Exchange(std::string_view request, std::string_view payload, Deadline deadline,
                        const ReplySink& sink);

  const Runtime& runtime_;
  const Template template_;
  const std::string id_;
  const std::string bundle_dir_;
  UniqueFd kernel_;  // the service's end of the kernel's stdin and stdout
  UniqueFd pidfd_;   // the kernel's process: readable once it ended
  std::string pending_;  // read from the kernel, not yet handed on
  std::mutex call_;
  bool paused_ = false;  // under call_
  std::atomic<bool> ended_{false};
  std::atomic<std::int64_t> last_used_;
};

}  // namespace vigil::service
