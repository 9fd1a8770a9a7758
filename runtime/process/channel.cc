#include "runtime/process/channel.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"

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

Result<void> Channel::Send(MessageType type, std::string_view text) const {
  char buf[sizeof(MessageType) + kMaxText];
  text = text.substr(0, kMaxText);
  std::memcpy(buf, &type, sizeof type);
  std::memcpy(buf + sizeof type, text.data(), text.size());
  ssize_t n;
  do {
    n = ::send(fd_.Get(), buf, sizeof type + text.size(), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("send on channel");
  return {};
}

Result<Message> Channel::Receive() const {
  char buf[sizeof(MessageType) + kMaxText];
  ssize_t n;
  do {
    n = ::recv(fd_.Get(), buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("receive on channel");
  if (n == 0) return FailErrno(EPIPE, "channel closed");
  if (static_cast<std::size_t>(n) < sizeof(MessageType)) return Fail("short message on channel");
  Message message;
  std::memcpy(&message.type, buf, sizeof message.type);
  message.text.assign(buf + sizeof(MessageType), static_cast<std::size_t>(n) - sizeof(MessageType));
  return message;
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

}  // namespace vigil::runtime
