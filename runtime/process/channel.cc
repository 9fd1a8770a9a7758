#include "runtime/process/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "base/strings.h"
#include "base/unix_socket.h"

namespace vigil::runtime {
namespace {

// Error texts are one line; anything longer is truncated.
constexpr std::size_t kMaxText = 4000;

}  // namespace

Result<std::pair<Channel, Channel>> Channel::Pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    return FailErrno("socketpair");
  }
  return std::pair{Channel(UniqueFd(fds[0])), Channel(UniqueFd(fds[1]))};
}

namespace {

// send(2), not sendmsg: a container process sends on its channel after the
// sentry's filter is loaded, where send without an address stays on the
// fast path and sendmsg may not (a mediated send before the sentry holds the
// listener would wait forever). SOCK_SEQPACKET keeps it one message.
Result<void> SendMessage(int socket, MessageType type, std::string_view text) {
  char buf[sizeof(MessageType) + kMaxText];
  text = text.substr(0, kMaxText);
  std::memcpy(buf, &type, sizeof type);
  std::memcpy(buf + sizeof type, text.data(), text.size());
  ssize_t n;
  do {
    n = ::send(socket, buf, sizeof type + text.size(), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("send on channel");
  return {};
}

}  // namespace

Result<void> Channel::Send(MessageType type, std::string_view text) const {
  return SendMessage(fd_.Get(), type, text);
}

Result<Message> Channel::Receive() const {
  Message message;
  Result<std::string> data = ReceiveWithFd(fd_.Get(), sizeof(MessageType) + kMaxText, nullptr);
  if (!data) {
    if (data.error().code == EPIPE) return FailErrno(EPIPE, "channel closed");
    return tl::unexpected(std::move(data).error().Wrap("receive on channel"));
  }
  if (data->size() < sizeof(MessageType)) return Fail("short message on channel");
  std::memcpy(&message.type, data->data(), sizeof message.type);
  message.text = data->substr(sizeof(MessageType));
  return message;
}

Result<int> AnnouncedDescriptor(std::string_view text) {
  int fd = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
  if (ec != std::errc() || end != text.data() + text.size() || fd < 0) {
    return Fail(StrCat("a descriptor announced as ", Quote(text)));
  }
  return fd;
}

Result<Message> Channel::Expect(MessageType type) const {
  ASSIGN_OR_RETURN(Message message, Receive());
  if (message.type == MessageType::kError) return Fail(message.text);
  if (message.type != type) {
    return Fail(
        StrCat("unexpected message ", static_cast<std::uint32_t>(message.type), " on channel"));
  }
  return message;
}

void Channel::ExitWithError(const Error& error, int status) const {
  (void)Send(MessageType::kError, error.message);
  ::_exit(status);
}

Result<Channel::Forked> Channel::Fork(std::string_view what) {
  ASSIGN_OR_RETURN(auto channels, Pair());
  auto& [parent, child] = channels;
  const pid_t pid = ::fork();
  if (pid < 0) return FailErrno(StrCat("fork ", what));
  if (pid == 0) return Forked{.pid = 0, .channel = std::move(child)};
  return Forked{.pid = pid, .channel = std::move(parent)};
}

}  // namespace vigil::runtime
