#include "runtime/process/channel.h"

#include <sys/socket.h>

#include <cerrno>
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

Result<void> SendMessage(int socket, MessageType type, std::string_view text, int fd) {
  char buf[sizeof(MessageType) + kMaxText];
  text = text.substr(0, kMaxText);
  std::memcpy(buf, &type, sizeof type);
  std::memcpy(buf + sizeof type, text.data(), text.size());
  RETURN_IF_ERROR_WRAP(SendWithFd(socket, std::string_view(buf, sizeof type + text.size()), fd),
                       "send on channel");
  return {};
}

}  // namespace

Result<void> Channel::Send(MessageType type, std::string_view text) const {
  return SendMessage(fd_.Get(), type, text, -1);
}

Result<void> Channel::SendFd(MessageType type, int fd) const {
  return SendMessage(fd_.Get(), type, {}, fd);
}

Result<Message> Channel::Receive() const {
  char buf[sizeof(MessageType) + kMaxText];
  iovec iov{.iov_base = buf, .iov_len = sizeof buf};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(fd_.Get(), &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno("receive on channel");
  if (n == 0) return FailErrno(EPIPE, "channel closed");
  Message message;
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
      message.fd.Reset(fd);
    }
  }
  if (static_cast<std::size_t>(n) < sizeof(MessageType)) return Fail("short message on channel");
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
