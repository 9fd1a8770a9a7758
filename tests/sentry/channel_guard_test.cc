// The ptrace platform's answers to calls that name the descriptor channel,
// and how a received descriptor is read back from the thread's memory.
#include "sentry/ptrace/channel_guard.h"

#include <gtest/gtest.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>

#include "sentry/core/platform.h"
#include "sentry/ptrace/descriptor_channel.h"

namespace vigil::sentry {
namespace {

constexpr std::uint64_t kChannel = kDescriptorChannelFd;

SyscallEvent Call(int number, std::uint64_t a0, std::uint64_t a1 = 0, std::uint64_t a2 = 0) {
  return {.tid = 1, .number = number, .args = {a0, a1, a2, 0, 0, 0}};
}

TEST(ChannelGuardTest, TheChannelLooksClosed) {
  for (int number : {SYS_close, SYS_dup, SYS_fcntl}) {
    std::optional<channel_guard::Answer> answer = channel_guard::AnswerFor(Call(number, kChannel));
    ASSERT_TRUE(answer) << number;
    EXPECT_EQ(answer->error, EBADF);
    EXPECT_TRUE(answer->calls.empty());
  }
  EXPECT_EQ(channel_guard::AnswerFor(Call(SYS_dup2, kChannel, 5))->error, EBADF);
  EXPECT_EQ(channel_guard::AnswerFor(Call(SYS_dup3, 5, kChannel))->error, EBUSY);
  // Only the low 32 bits name a descriptor, as the kernel reads them.
  EXPECT_EQ(channel_guard::AnswerFor(Call(SYS_close, (1ULL << 32) | kChannel))->error, EBADF);
  EXPECT_FALSE(channel_guard::AnswerFor(Call(SYS_close, 5)));
  EXPECT_FALSE(channel_guard::AnswerFor(Call(SYS_read, kChannel)));
}

TEST(ChannelGuardTest, CloseRangeClosesAroundTheChannel) {
  auto both = channel_guard::AnswerFor(Call(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC));
  ASSERT_TRUE(both);
  ASSERT_EQ(both->calls.size(), 2u);
  EXPECT_EQ(both->calls[0].number, SYS_close_range);
  EXPECT_EQ(both->calls[0].args,
            (std::array<std::uint64_t, 3>{3, kChannel - 1, CLOSE_RANGE_CLOEXEC}));
  EXPECT_EQ(both->calls[1].args,
            (std::array<std::uint64_t, 3>{kChannel + 1, ~0U, CLOSE_RANGE_CLOEXEC}));

  auto above = channel_guard::AnswerFor(Call(SYS_close_range, kChannel, 2000));
  ASSERT_EQ(above->calls.size(), 1u);
  EXPECT_EQ(above->calls[0].args[0], kChannel + 1);

  auto only = channel_guard::AnswerFor(Call(SYS_close_range, kChannel, kChannel));
  EXPECT_TRUE(only->calls.empty());
  EXPECT_EQ(only->error, 0);

  EXPECT_EQ(channel_guard::AnswerFor(Call(SYS_close_range, 3, ~0U, 1U << 8))->error, EINVAL);
  // Bounds with high bits the kernel ignores: stopped by the filter, run as
  // asked when what they name leaves the channel out.
  auto ignored = channel_guard::AnswerFor(Call(SYS_close_range, (1ULL << 32) | 3, 10));
  ASSERT_TRUE(ignored);
  EXPECT_TRUE(ignored->run_as_asked);
}

// What the thread's recvmsg left at the block: the descriptor, or why not.
TEST(ReceivedDescriptorTest, ReadsTheDescriptorOrTheReason) {
  ReceiveBlock block = ReceiveBlockAt(0x7000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block.header.msg_iov),
            0x7000 + offsetof(ReceiveBlock, data));
  EXPECT_EQ(block.header.msg_controllen, sizeof block.control);

  ReceiveBlock received = block;
  cmsghdr header{
      .cmsg_len = CMSG_LEN(sizeof(int)), .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS};
  std::memcpy(received.control, &header, sizeof header);
  const int fd = 7;
  std::memcpy(received.control + (CMSG_DATA(&header) - reinterpret_cast<unsigned char*>(&header)),
              &fd, sizeof fd);
  EXPECT_EQ(ReceivedDescriptor(received, 1), 7);
  EXPECT_EQ(ReceivedDescriptor(received, -EAGAIN), -EAGAIN);

  ReceiveBlock truncated = block;
  truncated.header.msg_controllen = 0;
  truncated.header.msg_flags = MSG_CTRUNC;
  EXPECT_EQ(ReceivedDescriptor(truncated, 1), -EMFILE);
  truncated.header.msg_flags = 0;
  EXPECT_EQ(ReceivedDescriptor(truncated, 1), -EAGAIN);

  // Whatever the workload wrote there, nothing outside the block is read.
  ReceiveBlock tampered = received;
  tampered.header.msg_controllen = ~std::size_t{0};
  EXPECT_EQ(ReceivedDescriptor(tampered, 1), 7);
  // A negative "descriptor" is no descriptor (found by the fuzzer: it would
  // have been the open's return value, an errno the call cannot give).
  const int negative = -5;
  std::memcpy(tampered.control + (CMSG_DATA(&header) - reinterpret_cast<unsigned char*>(&header)),
              &negative, sizeof negative);
  EXPECT_EQ(ReceivedDescriptor(tampered, 1), -EAGAIN);
}

}  // namespace
}  // namespace vigil::sentry
