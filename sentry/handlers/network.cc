// connect, sendto, sendmsg and sendmmsg under an egress policy. The
// destination is copied once and decided on; the operation is then
// performed by the sentry on the workload's own socket (pidfd_getfd), never
// continued in the kernel, whose second read of the address could differ
// (DESIGN.md §2 rule 1).
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "base/strings.h"
#include "sentry/handlers/acting_as.h"
#include "sentry/handlers/destination.h"

namespace vigil::sentry {
namespace {

// What one call may hand the sentry to send. A stream socket sends the
// rest on the next call; a datagram this large is refused by the kernel
// anyway (EMSGSIZE).
constexpr std::size_t kMaxPayload = 4 << 20;
constexpr std::size_t kMaxControl = 64 << 10;

Verdict FromErrno(int error, Decision decision) { return Verdict::Fail(error, decision); }

Verdict FromResult(const Error& error, Decision decision) {
  return Verdict::Fail(error.code != 0 ? error.code : EIO, decision);
}

bool Blocking(int socket) { return (::fcntl(socket, F_GETFL) & O_NONBLOCK) == 0; }

// Decides the destination at `pointer`; fills `destination` when allowed.
// Returns a verdict to answer with when the call must stop here.
std::optional<Verdict> Decide(HandlerContext& context, std::uint64_t pointer,
                              std::uint64_t length, Destination& destination) {
  Result<Destination> copied = CopyDestination(context.tracee, pointer, length);
  if (!copied) return FromResult(copied.error(), Decision::kAllow);
  destination = std::move(*copied);
  context.AuditArg("address", DescribeDestination(destination));
  if (int refused = EgressVerdict(context.sandbox, destination); refused != 0) {
    return FromErrno(refused, Decision::kDeny);
  }
  if (Result<void> anchored = AnchorUnixPath(context.tracee, destination); !anchored) {
    return FromResult(anchored.error(), Decision::kAllow);
  }
  return std::nullopt;
}

// A unix socket file is reached with the workload's credentials: the kernel
// checks write permission on it at connect and send, and the sentry's own
// would open sockets the workload may not use. Other destinations need no
// identity. Held only for the one call, never across a wait.
Result<std::optional<ActingAs>> IdentityFor(HandlerContext& context, const Destination& destination) {
  if (!destination.anchor) return std::optional<ActingAs>();
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
  return std::optional<ActingAs>(std::move(acting));
}

// Sends with MSG_DONTWAIT so the loop never blocks; a socket the workload
// left blocking gets a blocking send's behaviour by waiting in the fiber.
Verdict SendOnBehalf(HandlerContext& context, int socket, const msghdr& message, int flags,
                     const Destination& destination) {
  const bool wait = Blocking(socket) && (flags & MSG_DONTWAIT) == 0;
  for (;;) {
    ssize_t sent;
    int error;
    {
      Result<std::optional<ActingAs>> identity = IdentityFor(context, destination);
      if (!identity) return FromResult(identity.error(), Decision::kAllow);
      sent = ::sendmsg(socket, &message, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
      error = errno;
    }
    if (sent >= 0) return Verdict::Return(sent, Decision::kAllow);
    if (!wait || (error != EAGAIN && error != EWOULDBLOCK)) {
      return FromErrno(error, Decision::kAllow);
    }
    if (!context.wait(socket, EPOLLOUT)) return FromErrno(EIO, Decision::kAllow);
    if (!context.tracee.Valid()) return Verdict::Stale();
  }
}

// Copies `length` bytes at `pointer` into `buffer` (appending).
Result<void> CopyBytes(Tracee& tracee, std::uint64_t pointer, std::size_t length,
                       std::vector<char>& buffer) {
  const std::size_t at = buffer.size();
  buffer.resize(at + length);
  return tracee.Read(pointer, std::as_writable_bytes(std::span(buffer.data() + at, length)));
}

// The control data of a sendmsg with the workload's descriptors (SCM_RIGHTS)
// replaced by the sentry's duplicates, which `held` keeps open until sent.
// Credentials (SCM_CREDENTIALS) are refused: the sentry's privilege would
// vouch for whatever the workload claims.
Result<std::vector<char>> TranslateControl(Tracee& tracee, std::vector<char> control,
                                           std::vector<UniqueFd>& held) {
  msghdr view{};
  view.msg_control = control.data();
  view.msg_controllen = control.size();
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&view); cmsg != nullptr; cmsg = CMSG_NXTHDR(&view, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET) continue;
    if (cmsg->cmsg_type == SCM_CREDENTIALS) return FailErrno(EPERM, "SCM_CREDENTIALS");
    if (cmsg->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    auto* fds = reinterpret_cast<int*>(CMSG_DATA(cmsg));
    for (std::size_t i = 0; i < count; ++i) {
      int theirs;
      std::memcpy(&theirs, fds + i, sizeof theirs);
      ASSIGN_OR_RETURN(UniqueFd ours, tracee.Descriptor(theirs));
      int number = ours.Get();
      std::memcpy(fds + i, &number, sizeof number);
      held.push_back(std::move(ours));
    }
  }
  return control;
}

}  // namespace

Verdict HandleConnect(HandlerContext& context) {
  const auto& args = context.event.args;
  Destination destination;
  if (std::optional<Verdict> stop = Decide(context, args[1], args[2], destination)) return *stop;
  Result<UniqueFd> socket = context.tracee.Descriptor(static_cast<int>(args[0]));
  if (!socket) return FromResult(socket.error(), Decision::kAllow);
  if (!context.tracee.Valid()) return Verdict::Stale();
  // Connect without blocking the loop: the workload's socket is switched to
  // non-blocking for the one call (other threads could observe that for
  // microseconds) and the fiber waits for the outcome instead.
  const int fd = socket->Get();
  const int flags = ::fcntl(fd, F_GETFL);
  const bool blocking = flags >= 0 && (flags & O_NONBLOCK) == 0;
  if (blocking) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc;
  int error;
  {
    Result<std::optional<ActingAs>> identity = IdentityFor(context, destination);
    if (!identity) {
      if (blocking) ::fcntl(fd, F_SETFL, flags);
      return FromResult(identity.error(), Decision::kAllow);
    }
    rc = ::connect(fd, destination.get(), destination.length);
    error = rc == 0 ? 0 : errno;
  }
  if (blocking) ::fcntl(fd, F_SETFL, flags);
  if (rc == 0) return Verdict::Return(0, Decision::kAllow);
  if (error != EINPROGRESS || !blocking) return FromErrno(error, Decision::kAllow);
  if (!context.wait(fd, EPOLLOUT)) return FromErrno(EIO, Decision::kAllow);
  if (!context.tracee.Valid()) return Verdict::Stale();
  int outcome = 0;
  socklen_t size = sizeof outcome;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &outcome, &size) != 0) outcome = errno;
  return outcome == 0 ? Verdict::Return(0, Decision::kAllow) : FromErrno(outcome, Decision::kAllow);
}

Verdict HandleSendto(HandlerContext& context) {
  const auto& args = context.event.args;
  Destination destination;
  if (std::optional<Verdict> stop = Decide(context, args[4], args[5], destination)) return *stop;
  std::vector<char> payload;
  if (Result<void> copied = CopyBytes(context.tracee, args[1], std::min<std::uint64_t>(args[2], kMaxPayload), payload);
      !copied) {
    return FromResult(copied.error(), Decision::kAllow);
  }
  Result<UniqueFd> socket = context.tracee.Descriptor(static_cast<int>(args[0]));
  if (!socket) return FromResult(socket.error(), Decision::kAllow);
  if (!context.tracee.Valid()) return Verdict::Stale();
  iovec iov{.iov_base = payload.data(), .iov_len = payload.size()};
  msghdr message{};
  message.msg_name = &destination.address;
  message.msg_namelen = destination.length;
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  return SendOnBehalf(context, socket->Get(), message, static_cast<int>(args[3]), destination);
}

Verdict HandleSendmsg(HandlerContext& context) {
  const auto& args = context.event.args;
  msghdr theirs{};
  if (Result<void> read = context.tracee.Read(args[1], std::as_writable_bytes(std::span(&theirs, 1)));
      !read) {
    return FromResult(read.error(), Decision::kAllow);
  }
  Destination destination;
  if (theirs.msg_name != nullptr && theirs.msg_namelen != 0) {
    if (std::optional<Verdict> stop = Decide(context, reinterpret_cast<std::uint64_t>(theirs.msg_name),
                                             theirs.msg_namelen, destination)) {
      return *stop;
    }
  }
  if (theirs.msg_iovlen > IOV_MAX) return FromErrno(EMSGSIZE, Decision::kAllow);
  std::vector<iovec> iovs(theirs.msg_iovlen);
  if (!iovs.empty()) {
    Result<void> read = context.tracee.Read(reinterpret_cast<std::uint64_t>(theirs.msg_iov),
                                            std::as_writable_bytes(std::span(iovs)));
    if (!read) return FromResult(read.error(), Decision::kAllow);
  }
  std::vector<char> payload;
  for (const iovec& iov : iovs) {
    const std::size_t take = std::min(iov.iov_len, kMaxPayload - payload.size());
    Result<void> copied =
        CopyBytes(context.tracee, reinterpret_cast<std::uint64_t>(iov.iov_base), take, payload);
    if (!copied) return FromResult(copied.error(), Decision::kAllow);
    if (payload.size() == kMaxPayload) break;
  }
  std::vector<UniqueFd> held;
  std::vector<char> control;
  if (theirs.msg_control != nullptr && theirs.msg_controllen != 0) {
    if (theirs.msg_controllen > kMaxControl) return FromErrno(ENOBUFS, Decision::kAllow);
    Result<void> copied = CopyBytes(context.tracee, reinterpret_cast<std::uint64_t>(theirs.msg_control),
                                    theirs.msg_controllen, control);
    if (!copied) return FromResult(copied.error(), Decision::kAllow);
    Result<std::vector<char>> translated = TranslateControl(context.tracee, std::move(control), held);
    if (!translated) return FromResult(translated.error(), Decision::kDeny);
    control = std::move(*translated);
  }
  Result<UniqueFd> socket = context.tracee.Descriptor(static_cast<int>(args[0]));
  if (!socket) return FromResult(socket.error(), Decision::kAllow);
  if (!context.tracee.Valid()) return Verdict::Stale();
  iovec iov{.iov_base = payload.data(), .iov_len = payload.size()};
  msghdr message{};
  if (destination.length != 0) {
    message.msg_name = &destination.address;
    message.msg_namelen = destination.length;
  }
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  if (!control.empty()) {
    message.msg_control = control.data();
    message.msg_controllen = control.size();
  }
  return SendOnBehalf(context, socket->Get(), message, static_cast<int>(args[2]), destination);
}

// Several messages in one call would each need the above; libc uses
// sendmmsg only as an optimisation and falls back on ENOSYS.
Verdict HandleSendmmsg(HandlerContext&) { return Verdict::Fail(ENOSYS, Decision::kDeny); }

}  // namespace vigil::sentry
