// connect, sendto, sendmsg and sendmmsg under an egress policy (or for a
// workload that may hold CAP_NET_ADMIN, whose netlink sends go here). The
// destination is copied once and decided on; the operation is then
// performed by the sentry on the workload's own socket (pidfd_getfd), not
// continued in the kernel, whose second read of the address could differ
// (docs/design.md, rule 1) — except where no second read can reach anything
// the policy refuses (KernelMaySend).
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <variant>
#include <vector>

#include "base/strings.h"
#include "config/policy/policy.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/destination.h"
#include "sentry/handlers/message.h"
#include "sentry/handlers/netlink.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"
#include "sentry/handlers/routing_options.h"
#include "sentry/handlers/waiting.h"

namespace vigil::sentry {
namespace {

Verdict FromErrno(int error, Decision decision) { return Verdict::Fail(error, decision); }

bool Blocking(int socket) { return (::fcntl(socket, F_GETFL) & O_NONBLOCK) == 0; }

// The answer when a wait ended without the call done (waiting.h): the call
// gone, a signal to restart or interrupt it, or the wait itself failing.
Verdict AfterWait(const Error& error) {
  if (error.code == ENOENT) return Verdict::Stale();
  if (error.code == kRestartSys || error.code == EINTR)
    return FromErrno(error.code, Decision::kAllow);
  return FromErrno(EIO, Decision::kAllow);
}

// Whether the kernel may make this connect or send itself, once decided
// and audited: under a policy that refuses no address, whatever address or
// socket a racing thread puts in the copy's place is one the policy allows,
// and the one refusal the sentry adds on top, netlink messages to the
// kernel only and only as queries, the kernel makes itself for a thread
// that cannot hold CAP_NET_ADMIN (netlink_sendmsg, rtnetlink). Its
// permitted set is read while the call waits: only the thread's own calls
// change it, and a signal ends the notification first. The kernel then
// gives the peer the workload's own pid and credentials and waits, blocks
// and restarts as for any call (docs/security.md, "Where the sentry lets
// the kernel act").
bool KernelMaySend(HandlerContext& context) {
  if (!config::RefusesNoAddress(*context.sandbox.policy)) return false;
  Result<ThreadStatus> thread = context.tracee.Status();
  return thread && (thread->cap_permitted & (std::uint64_t{1} << CAP_NET_ADMIN)) == 0;
}

// A unix socket's path is a file (docs/security.md, "The deputy rule"):
// the file rules decide on the socket file `destination` was anchored to,
// as for a stat — hidden ENOENT, denied EACCES — and then network.unixPaths
// (EACCES for a socket it does not list). A connect or send asks no more
// of the file than a lookup: a read-only rule guards the file, not the
// server behind it. Audited as "resolved".
Result<std::optional<Verdict>> SocketFileVerdict(HandlerContext& context,
                                                 const Destination& destination) {
  const config::Policy& policy = *context.sandbox.policy;
  if (!destination.anchor || (!config::HidesOrDeniesFiles(policy) && policy.unix_paths.empty())) {
    return std::nullopt;
  }
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, destination.anchor.Get(), root_path, /*write=*/false);
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  if (!config::UnixPathAllowed(policy, std::get<std::string>(decided))) {
    return FromErrno(EACCES, Decision::kDeny);
  }
  return std::nullopt;
}

// A socket path the workload cannot reach (nothing there, or a directory
// on the way it may not search): the kernel's errno, and a refusal of the
// policy's too when the path, taken lexically, is one the rules refuse, so
// that a search for the host's daemons shows in the audit.
Verdict UnanchoredVerdict(HandlerContext& context, const Error& error, const std::string& given) {
  const bool not_reached = error.code == ENOENT || error.code == ENOTDIR || error.code == EACCES;
  if (!not_reached || given.empty()) return Failed(error, Decision::kAllow);
  Result<ThreadStatus> thread = context.tracee.Status();
  if (!thread) return Failed(error, Decision::kAllow);
  Result<std::string> named = ContainerPath(context.tracee, *thread, AT_FDCWD, given);
  if (!named) return Failed(error, Decision::kAllow);
  const std::string name = LexicalName(*named);
  if (config::UnixPathAllowed(*context.sandbox.policy, name) &&
      Refusal(AccessFor(context, name), /*write=*/false) == 0) {
    return Failed(error, Decision::kAllow);
  }
  context.AuditArg("resolved", name);
  return Failed(error, Decision::kDeny);
}

// Decides the destination at `pointer`; fills `destination` when allowed.
// Returns a verdict to answer with when the call must stop here: a
// refusal, a failure, or CONTINUE where the kernel may make the call; or
// the error of a step that failed.
Result<std::optional<Verdict>> Decide(HandlerContext& context, std::uint64_t pointer,
                                      std::uint64_t length, Destination& destination, Egress use) {
  ASSIGN_OR_RETURN(destination, CopyDestination(context.tracee, pointer, length));
  context.AuditArg("address", DescribeDestination(destination));
  if (int refused = EgressVerdict(context.sandbox, destination, use); refused != 0) {
    return FromErrno(refused, Decision::kDeny);
  }
  // The name the allow-list knows the address by, for whoever reads the
  // audit: "api.example.com", not only 93.184.215.14.
  if (std::string_view name =
          config::EgressName(*context.sandbox.policy, destination.get(), destination.length);
      !name.empty()) {
    context.AuditArg("name", std::string(name));
  } else if (std::optional<std::string> learned = LearnedName(context.sandbox, destination)) {
    context.AuditArg("name", std::move(*learned));
  }
  if (KernelMaySend(context)) return Verdict::Continue();
  if (Result<void> anchored =
          AnchorUnixPath(context.tracee, destination, context.sandbox.user_namespace);
      !anchored) {
    return UnanchoredVerdict(context, anchored.error(), UnixPath(destination));
  }
  return SocketFileVerdict(context, destination);
}

// A netlink destination must be the kernel (NetlinkDestinationVerdict).
// Sent to, it loses its address: with one, the kernel would count the
// sentry's own capabilities and not the socket opener's (netlink.h).
std::optional<Verdict> KernelOnly(int socket, Destination& destination, bool sending) {
  if (int refused = NetlinkDestinationVerdict(socket, destination); refused != 0) {
    return FromErrno(refused, refused == EPERM ? Decision::kDeny : Decision::kAllow);
  }
  if (sending && destination.family() == AF_NETLINK && IsNetlinkSocket(socket)) {
    destination.length = 0;
  }
  return std::nullopt;
}

// Whether the workload's socket (the sentry's duplicate) is a unix socket:
// its peer learns who sent, even without a destination (connected).
bool IsUnixSocket(int socket) {
  int domain = 0;
  socklen_t size = sizeof domain;
  return ::getsockopt(socket, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0 && domain == AF_UNIX;
}

bool IsStreamSocket(int socket) {
  int type = 0;
  socklen_t size = sizeof type;
  return ::getsockopt(socket, SOL_SOCKET, SO_TYPE, &type, &size) == 0 && type == SOCK_STREAM;
}

// Every socket is used as the workload (docs/security.md, "The deputy
// rule"). A unix socket with its whole identity: the kernel checks write
// permission on a socket file at connect and send (the sentry's own would
// reach sockets the workload may not use), and tells the peer who
// connected or sent (ActingAs::AsPeer). Any other with its credentials and
// capabilities (ActingAs::Begin): the kernel asks the sender for a
// capability over the socket's network for some control messages (SO_MARK,
// IPv4 options, IPv6 hop-by-hop and routing headers), and the sentry's own
// would send what the workload could not. Held only for the one call,
// never across a wait.
Result<ActingAs> IdentityFor(HandlerContext& context, bool unix_socket,
                             bool vouch_for_pid = false) {
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  if (!unix_socket) return ActingAs::Begin(thread, context.sandbox.user_namespace);
  return ActingAs::AsPeer(thread, context.sandbox.user_namespace, vouch_for_pid);
}

// Whether the kernel would take a pid not the supervisor's from it: it
// asks CAP_SYS_ADMIN over the user namespace that owns the sender's pid
// namespace, which a user's supervisor (rootless, in the container's
// user namespace) or one in another's (podman as a user) does not have.
// Read once: neither namespace changes.
bool MayVouchForPids() {
  static const bool may = [] {
    UniqueFd pid_namespace(::open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC));
    if (!pid_namespace) return false;
    UniqueFd owner(::ioctl(pid_namespace.Get(), NS_GET_USERNS));
    struct stat theirs {};
    struct stat ours {};
    return owner && ::fstat(owner.Get(), &theirs) == 0 &&
           ::stat("/proc/self/ns/user", &ours) == 0 && theirs.st_dev == ours.st_dev &&
           theirs.st_ino == ours.st_ino;
  }();
  return may;
}

// The control data to send on the workload's behalf: its own, translated
// (message.h), and on a unix socket the credentials the kernel would have
// attached for the workload, its pid among them, unless it claims some.
// The kernel takes a pid not the supervisor's only with CAP_SYS_ADMIN
// (AsPeer's vouch_for_pid), which would also lift its limit on descriptors
// in flight (too_many_unix_fds): a message passing descriptors, or sent by
// a supervisor that cannot vouch (MayVouchForPids), carries the
// supervisor's pid instead (0 in the container).
Result<std::vector<char>> ControlToSend(HandlerContext& context, std::vector<char> control,
                                        std::vector<UniqueFd>& held, bool unix_socket) {
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  ASSIGN_OR_RETURN(control, TranslateControl(context.tracee, std::move(control), held,
                                             {&thread, context.sandbox.user_namespace}));
  if (unix_socket && !Holds(control, SCM_CREDENTIALS)) AddSenderCredentials(control, thread);
  if (PassesDescriptors(control) || !MayVouchForPids()) SetCredentialsPid(control, ::getpid());
  return control;
}

// Whether `control` (ControlToSend's) names a pid the kernel takes only
// from a sender with CAP_SYS_ADMIN.
bool NeedsVouching(const std::vector<char>& control) {
  return Holds(control, SCM_CREDENTIALS) && !PassesDescriptors(control) && MayVouchForPids();
}

// The sentry's message: its copy of the payload, to the decided
// destination (none on a connected socket).
msghdr MessageTo(Destination& destination, iovec& payload) {
  msghdr message{};
  if (destination.length != 0) {
    message.msg_name = &destination.address;
    message.msg_namelen = destination.length;
  }
  message.msg_iov = &payload;
  message.msg_iovlen = 1;
  return message;
}

// Points `message` at `control` (none if empty).
void SetControl(msghdr& message, const std::vector<char>& control) {
  message.msg_control = control.empty() ? nullptr : const_cast<char*>(control.data());
  message.msg_controllen = control.size();
}

// Sends with MSG_DONTWAIT so the loop never blocks; a socket the workload
// left blocking gets a blocking send's behaviour by waiting in the fiber:
// on a stream socket until all is sent (the descriptors with the first
// part, the credentials with each), ended by a signal as the kernel's send
// is (what was sent so far, or kRestartSys before anything was).
Result<Verdict> SendOnBehalf(HandlerContext& context, int socket, msghdr message,
                             const std::vector<char>& control, int flags, bool unix_socket) {
  const bool wait = Blocking(socket) && (flags & MSG_DONTWAIT) == 0;
  const bool stream = wait && IsStreamSocket(socket);
  const bool vouch = NeedsVouching(control);
  SetControl(message, control);
  const std::vector<char> with_each_part = CredentialsOf(control);
  iovec rest = message.msg_iov[0];  // one iovec: the sentry's copy
  message.msg_iov = &rest;
  std::size_t total = 0;
  for (;;) {
    ssize_t sent;
    int error;
    {
      ASSIGN_OR_RETURN(ActingAs identity, IdentityFor(context, unix_socket, vouch));
      sent = ::sendmsg(socket, &message, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
      error = errno;
    }
    if (sent >= 0) {
      total += static_cast<std::size_t>(sent);
      if (!stream || static_cast<std::size_t>(sent) == rest.iov_len) {
        return Verdict::Return(static_cast<std::int64_t>(total), Decision::kAllow);
      }
      rest.iov_base = static_cast<char*>(rest.iov_base) + sent;
      rest.iov_len -= static_cast<std::size_t>(sent);
      SetControl(message, with_each_part);
      continue;
    }
    if (!wait || (error != EAGAIN && error != EWOULDBLOCK)) {
      if (total > 0) return Verdict::Return(static_cast<std::int64_t>(total), Decision::kAllow);
      return FromErrno(error, Decision::kAllow);
    }
    if (Result<void> waited = WaitInterruptibly(context, socket, EPOLLOUT); !waited) {
      if (total > 0) return Verdict::Return(static_cast<std::int64_t>(total), Decision::kAllow);
      return AfterWait(waited.error());
    }
  }
}

// One message of sendmsg or sendmmsg: the msghdr at `header` sent on the
// workload's descriptor `socket_number` with `flags`.
Result<Verdict> SendMessage(HandlerContext& context, int socket_number, std::uint64_t header,
                            int flags) {
  msghdr theirs{};
  RETURN_IF_ERROR(context.tracee.Read(header, std::as_writable_bytes(std::span(&theirs, 1))));
  Destination destination;
  if (theirs.msg_name != nullptr && theirs.msg_namelen != 0) {
    ASSIGN_OR_RETURN(std::optional<Verdict> stop,
                     Decide(context, reinterpret_cast<std::uint64_t>(theirs.msg_name),
                            theirs.msg_namelen, destination, Egress::kSend));
    if (stop) return *stop;
  } else if (KernelMaySend(context)) {
    return Verdict::Continue();
  }
  ASSIGN_OR_RETURN(std::vector<char> payload, CopyPayload(context.tracee, theirs));
  ASSIGN_OR_RETURN(std::vector<char> their_control, CopyControl(context.tracee, theirs));
  // The destination decided on must be where the packet goes first.
  if (context.sandbox.policy->egress_default_deny && ControlRoutesElsewhere(their_control)) {
    context.AuditArg("control", "a route through another address");
    return FromErrno(EPERM, Decision::kDeny);
  }
  ASSIGN_OR_RETURN(UniqueFd socket, context.tracee.Descriptor(socket_number));
  const bool unix_socket = IsUnixSocket(socket.Get());
  std::vector<UniqueFd> held;
  Result<std::vector<char>> control =
      ControlToSend(context, std::move(their_control), held, unix_socket);
  if (!control) {
    // Refusing credentials is the sentry's decision; the rest are the
    // workload's mistakes (EINVAL, EBADF), answered as the kernel would.
    return Failed(control.error(),
                  control.error().code == EPERM ? Decision::kDeny : Decision::kAllow);
  }
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (std::optional<Verdict> stop = KernelOnly(socket.Get(), destination, true)) return *stop;
  iovec iov{.iov_base = payload.data(), .iov_len = payload.size()};
  return SendOnBehalf(context, socket.Get(), MessageTo(destination, iov), *control, flags,
                      unix_socket);
}

}  // namespace

Result<Verdict> HandleConnect(HandlerContext& context) {
  const auto& args = context.event.args;
  Destination destination;
  ASSIGN_OR_RETURN(std::optional<Verdict> stop,
                   Decide(context, args[1], args[2], destination, Egress::kConnect));
  if (stop) return *stop;
  ASSIGN_OR_RETURN(UniqueFd socket, context.tracee.Descriptor(static_cast<int>(args[0])));
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (std::optional<Verdict> refused = KernelOnly(socket.Get(), destination, false)) {
    return *refused;
  }
  // Connect without blocking the loop: the workload's socket is switched to
  // non-blocking for the one call (other threads could observe that for
  // microseconds) and the fiber waits for the outcome instead.
  const int fd = socket.Get();
  const int flags = ::fcntl(fd, F_GETFL);
  const bool blocking = flags >= 0 && (flags & O_NONBLOCK) == 0;
  const bool unix_socket = destination.family() == AF_UNIX;
  for (;;) {
    if (blocking) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc;
    int error;
    {
      Result<ActingAs> identity = IdentityFor(context, unix_socket);
      if (!identity) {
        if (blocking) ::fcntl(fd, F_SETFL, flags);
        return Failed(identity.error(), Decision::kAllow);
      }
      rc = ::connect(fd, destination.get(), destination.length);
      error = rc == 0 ? 0 : errno;
    }
    if (blocking) ::fcntl(fd, F_SETFL, flags);
    if (rc == 0) return Verdict::Return(0, Decision::kAllow);
    // A unix listener whose backlog is full answers a non-blocking connect
    // EAGAIN; a blocking one waits for room, which nothing can be polled
    // for: tried again every 20 ms.
    if (blocking && unix_socket && error == EAGAIN) {
      if (Result<void> paused = PauseForRetry(context, 20); !paused)
        return AfterWait(paused.error());
      continue;
    }
    if (error != EINPROGRESS || !blocking) return FromErrno(error, Decision::kAllow);
    break;
  }
  for (pollfd ready{.fd = fd, .events = POLLOUT, .revents = 0}; ::poll(&ready, 1, 0) != 1;) {
    if (Result<void> waited = WaitInterruptibly(context, fd, EPOLLOUT); !waited) {
      return AfterWait(waited.error());
    }
  }
  int outcome = 0;
  socklen_t size = sizeof outcome;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &outcome, &size) != 0) outcome = errno;
  if (outcome != 0) return FromErrno(outcome, Decision::kAllow);
  // The kernel marks a socket connected at the end of a blocking connect;
  // one that went EINPROGRESS stays "connecting" until connect is called
  // again, and the workload's next connect would succeed instead of
  // EISCONN. That call is made here (non-blocking: the connection is up).
  const int now = ::fcntl(fd, F_GETFL);
  if (now >= 0) ::fcntl(fd, F_SETFL, now | O_NONBLOCK);
  const int settled = ::connect(fd, destination.get(), destination.length) == 0 ? 0 : errno;
  if (now >= 0) ::fcntl(fd, F_SETFL, now);
  if (settled != 0 && settled != EISCONN) return FromErrno(settled, Decision::kAllow);
  return Verdict::Return(0, Decision::kAllow);
}

Result<Verdict> HandleSendto(HandlerContext& context) {
  const auto& args = context.event.args;
  Destination destination;
  ASSIGN_OR_RETURN(std::optional<Verdict> stop,
                   Decide(context, args[4], args[5], destination, Egress::kSend));
  if (stop) return *stop;
  std::vector<char> payload;
  RETURN_IF_ERROR(
      CopyBytes(context.tracee, args[1], std::min<std::uint64_t>(args[2], kMaxPayload), payload));
  ASSIGN_OR_RETURN(UniqueFd socket, context.tracee.Descriptor(static_cast<int>(args[0])));
  if (!context.tracee.Valid()) return Verdict::Stale();
  if (std::optional<Verdict> refused = KernelOnly(socket.Get(), destination, true)) {
    return *refused;
  }
  iovec iov{.iov_base = payload.data(), .iov_len = payload.size()};
  const msghdr message = MessageTo(destination, iov);
  const bool unix_socket = IsUnixSocket(socket.Get());
  std::vector<UniqueFd> held;
  ASSIGN_OR_RETURN(std::vector<char> control, ControlToSend(context, {}, held, unix_socket));
  return SendOnBehalf(context, socket.Get(), message, control, static_cast<int>(args[3]),
                      unix_socket);
}

Result<Verdict> HandleSendmsg(HandlerContext& context) {
  const auto& args = context.event.args;
  return SendMessage(context, static_cast<int>(args[0]), args[1], static_cast<int>(args[2]));
}

// Each message as sendmsg's, decided on its own destination, in order; as
// the kernel does, the bytes sent go to each one's msg_len, the count sent
// is the answer, and the first failure ends the call (its error is the
// answer only when nothing was sent). glibc's resolver sends its A and
// AAAA queries this way. Where the kernel may send (KernelMaySend), it
// sends them all.
Result<Verdict> HandleSendmmsg(HandlerContext& context) {
  if (KernelMaySend(context)) return Verdict::Continue();
  const auto& args = context.event.args;
  // The kernel's cap on one call (UIO_MAXIOV).
  const auto count = static_cast<unsigned int>(std::min<std::uint64_t>(args[2] & 0xffffffff, 1024));
  const int flags = static_cast<int>(args[3]);
  unsigned int sent = 0;
  for (; sent < count; ++sent) {
    const std::uint64_t entry = args[1] + sent * sizeof(mmsghdr);
    const std::size_t args_before = context.audit_args.size();
    Result<Verdict> one = SendMessage(context, static_cast<int>(args[0]), entry, flags);
    if (sent > 0) {  // each message's arguments named by its index after the first
      for (std::size_t i = args_before; i < context.audit_args.size(); ++i) {
        context.audit_args[i].name += StrCat("[", sent, "]");
      }
    }
    if (!one || one->kind != Verdict::Kind::kReturn || one->error != 0) {
      if (sent == 0) return one;
      break;
    }
    const auto length = static_cast<unsigned int>(one->value);
    if (!context.tracee.WriteObject(entry + offsetof(mmsghdr, msg_len), length)) {
      if (sent == 0) return Verdict::Fail(EFAULT, Decision::kAllow);
      break;
    }
  }
  return Verdict::Return(sent, Decision::kAllow);
}

}  // namespace vigil::sentry
