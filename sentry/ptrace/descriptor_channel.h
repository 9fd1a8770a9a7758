// How the ptrace platform hands the workload a file the sentry opened for
// it. Only SECCOMP_IOCTL_NOTIF_ADDFD and SCM_RIGHTS put a descriptor into
// another process, and ADDFD needs a notification. So every process of the
// container holds one end of a socket pair as kDescriptorChannelFd (the
// runtime sets it up before the filter is loaded: runtime/process/
// launch.cc), the sentry holds the other, and a file goes across as
// SCM_RIGHTS: the sentry sends it, and the stopped thread receives it with
// a recvmsg made in place of its open (injection.h), whose arguments are
// written into its stack below the red zone.
//
// Why that is sound: every thread and child of the process shares the
// channel (fork copies the descriptor, threads share the table), and any of
// them could receive the file first. The file is one the policy lets this
// container have, opened with the caller's credentials, so that gives
// nothing to a taker with the same credentials; on this platform the
// sentry keeps them all the same (CredentialsFixed in sentry_filter.h).
// The taker's victim gets EAGAIN. The channel's descriptor cannot be closed
// or replaced (channel_guard.h). Files are sent on one channel one at a
// time, and whatever a thread that died left in it is thrown away before
// the next.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>

#include "base/result.h"
#include "base/unique_fd.h"

namespace vigil::sentry {

// One process tree's channel: the sentry's end, and the files waiting to
// be sent on it while one is on its way.
struct DescriptorChannel {
  UniqueFd sentry_end;
  bool busy = false;
  std::deque<std::function<void()>> waiting;
};

class DescriptorChannels {
 public:
  // Registers the sentry's end of the channel process `pidfd` holds. Also
  // forgets the channels nobody holds any more.
  Result<void> Add(int pidfd, UniqueFd sentry_end);

  // The channel whose workload end `peer` is (the thread's channel
  // descriptor, taken with pidfd_getfd); nullptr for none of them.
  DescriptorChannel* Find(int peer);

  // Throws away what is queued at `peer` (left by a thread that died before
  // it received) and sends `file` on `channel`.
  static Result<void> Send(const DescriptorChannel& channel, int peer, int file);

  // Starts the next waiting send on `channel`, or marks it idle.
  static void Next(DescriptorChannel& channel);

 private:
  std::map<ino_t, DescriptorChannel> channels_;  // by the workload end's inode
};

// The recvmsg arguments as they are written into the thread's memory at
// `address`: the pointers are addresses there.
struct ReceiveBlock {
  msghdr header;
  iovec data;
  char byte;
  alignas(cmsghdr) unsigned char control[CMSG_SPACE(sizeof(int))];
};

ReceiveBlock ReceiveBlockAt(std::uint64_t address);

// What the injected recvmsg gave the thread, read back from `block`: the
// descriptor, or the errno its open fails with (EMFILE when the descriptor
// did not fit under its RLIMIT_NOFILE, EAGAIN when another thread took it).
std::int64_t ReceivedDescriptor(const ReceiveBlock& block, std::int64_t recvmsg_result);

}  // namespace vigil::sentry
