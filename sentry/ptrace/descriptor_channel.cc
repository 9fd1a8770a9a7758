#include "sentry/ptrace/descriptor_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "base/syscalls.h"
#include "base/unix_socket.h"
#include "sentry/core/platform.h"

namespace vigil::sentry {
namespace {

Result<ino_t> InodeOf(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return FailErrno("fstat a descriptor channel");
  return st.st_ino;
}

// Nobody holds the workload's end any more: the pair's other end hangs up.
bool HungUp(const DescriptorChannel& channel) {
  pollfd poll_fd{.fd = channel.sentry_end.Get(), .events = 0, .revents = 0};
  return ::poll(&poll_fd, 1, 0) == 1 && (poll_fd.revents & POLLHUP) != 0;
}

void CloseReceived(msghdr& header) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      ::close(fd);
    }
  }
}

}  // namespace

Result<void> DescriptorChannels::Add(int pidfd, UniqueFd sentry_end) {
  std::erase_if(channels_,
                [](const auto& entry) { return !entry.second.busy && HungUp(entry.second); });
  ASSIGN_OR_RETURN(UniqueFd peer, PidfdGetfd(pidfd, kDescriptorChannelFd));
  ASSIGN_OR_RETURN(ino_t inode, InodeOf(peer.Get()));
  // A send never waits: the sentry's loop must not block on a workload.
  if (::fcntl(sentry_end.Get(), F_SETFL, O_NONBLOCK) != 0) {
    return FailErrno("make a descriptor channel non-blocking");
  }
  channels_[inode].sentry_end = std::move(sentry_end);
  return {};
}

DescriptorChannel* DescriptorChannels::Find(int peer) {
  Result<ino_t> inode = InodeOf(peer);
  if (!inode) return nullptr;
  auto it = channels_.find(*inode);
  return it == channels_.end() ? nullptr : &it->second;
}

Result<void> DescriptorChannels::Send(const DescriptorChannel& channel, int peer, int file) {
  for (;;) {
    ReceiveBlock left{};
    left.header.msg_control = left.control;
    left.header.msg_controllen = sizeof left.control;
    left.data = {.iov_base = &left.byte, .iov_len = 1};
    left.header.msg_iov = &left.data;
    left.header.msg_iovlen = 1;
    if (::recvmsg(peer, &left.header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) break;
    CloseReceived(left.header);
  }
  return SendWithFd(channel.sentry_end.Get(), "f", file);
}

void DescriptorChannels::Next(DescriptorChannel& channel) {
  channel.busy = false;
  if (channel.waiting.empty()) return;
  std::function<void()> next = std::move(channel.waiting.front());
  channel.waiting.pop_front();
  next();
}

ReceiveBlock ReceiveBlockAt(std::uint64_t address) {
  ReceiveBlock block{};
  auto at = [address](std::size_t offset) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address + offset));
  };
  block.data = {.iov_base = at(offsetof(ReceiveBlock, byte)), .iov_len = 1};
  block.header.msg_iov = static_cast<iovec*>(at(offsetof(ReceiveBlock, data)));
  block.header.msg_iovlen = 1;
  block.header.msg_control = at(offsetof(ReceiveBlock, control));
  block.header.msg_controllen = sizeof block.control;
  return block;
}

std::int64_t ReceivedDescriptor(const ReceiveBlock& block, std::int64_t recvmsg_result) {
  if (recvmsg_result < 0) return recvmsg_result;  // EAGAIN: another thread took it
  // The control data as the thread received it, walked here.
  ReceiveBlock local = block;
  local.header.msg_control = local.control;
  local.header.msg_controllen =
      std::min<std::size_t>(block.header.msg_controllen, sizeof local.control);
  const cmsghdr* c = CMSG_FIRSTHDR(&local.header);
  if (c != nullptr && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
      c->cmsg_len == CMSG_LEN(sizeof(int))) {
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    // The kernel writes a descriptor; anything else is a sibling's doing.
    if (fd >= 0) return fd;
  }
  return (block.header.msg_flags & MSG_CTRUNC) != 0 ? -EMFILE : -EAGAIN;
}

}  // namespace vigil::sentry
