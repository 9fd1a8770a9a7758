// Channel: one end of a SOCK_SEQPACKET socketpair carrying small typed
// messages between `create`, the supervisor and the container init.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::runtime {

enum class MessageType : std::uint32_t {
  kProceed = 1,     // supervisor -> init: go on (after the maps; after the hooks, with the state)
  kMounted,         // init -> supervisor: rootfs mounted, not yet entered: run the hooks
  kReady,           // init -> supervisor: set up, waiting for start
  kStart,           // supervisor -> init: exec the process
  kError,           // either way: text is the one-line cause
  kCreated,         // supervisor -> create: the container is created
  kSentryListener,  // init or exec'd process -> runtime: the sentry's listener's fd number
  kSentryTracee,    // init or exec'd process -> runtime: trace me, then I load the filter
  kAgentListener,   // init or exec'd process -> runtime: the profile's listener's fd number,
                    // for the seccomp agent (runtime/process/seccomp_agent.h)
};

struct Message {
  MessageType type;
  std::string text;
};

// The descriptor number a kSentryListener, kSentryTracee or kAgentListener
// message carries (`text`): a filter's listener, or the sentry's end of the
// descriptor channel.
Result<int> AnnouncedDescriptor(std::string_view text);

class Channel {
 public:
  // A connected pair; both ends close on exec.
  static Result<std::pair<Channel, Channel>> Pair();

  Result<void> Send(MessageType type, std::string_view text = {}) const;

  // The next message. A closed peer is an error whose code is EPIPE (the
  // init closes its end by exec'ing, which is how `start` knows it did).
  Result<Message> Receive() const;

  // Receives and expects `type`; a kError message becomes its Error.
  Result<Message> Expect(MessageType type) const;

  // For a child of the runtime's whose step failed: reports `error` as a
  // kError message (the peer's Expect returns it) and exits with `status`.
  [[noreturn]] void ExitWithError(const Error& error, int status) const;

  int fd() const { return fd_.Get(); }
  void Close() { fd_.Reset(); }

  // Forks a child joined to the caller by a pair: returns the child's pid
  // and the caller's end in the parent, 0 and the child's end in the
  // child (each end closed in the other process).
  struct Forked;
  static Result<Forked> Fork(std::string_view what);

 private:
  explicit Channel(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

struct Channel::Forked {
  pid_t pid;
  Channel channel;
};

}  // namespace vigil::runtime
