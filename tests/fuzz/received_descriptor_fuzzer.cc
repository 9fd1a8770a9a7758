// The ptrace platform's recvmsg block as a hostile workload leaves it: the
// thread's siblings can rewrite it while the injected recvmsg runs, so
// ReceivedDescriptor reads whatever the block holds. It must never read
// outside the block, and must answer a descriptor only when the block's
// first control message is exactly one SCM_RIGHTS descriptor, else a
// negative errno.
//
// Input: 8 bytes of recvmsg result (little-endian), then the block's bytes.
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "sentry/ptrace/descriptor_channel.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::fuzz::Die;
using vigil::sentry::ReceiveBlock;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::int64_t result = 0;
  std::memcpy(&result, data, std::min(size, sizeof result));
  ReceiveBlock block{};
  if (size > sizeof result) {
    std::memcpy(&block, data + sizeof result, std::min(size - sizeof result, sizeof block));
  }
  const std::int64_t answer = vigil::sentry::ReceivedDescriptor(block, result);
  if (result < 0 && answer != result)
    Die("a failed recvmsg answered otherwise", std::to_string(answer));
  if (answer >= 0) {
    cmsghdr header{};
    std::memcpy(&header, block.control, sizeof header);
    int fd = -1;
    std::memcpy(&fd, block.control + CMSG_LEN(0), sizeof fd);
    if (header.cmsg_level != SOL_SOCKET || header.cmsg_type != SCM_RIGHTS ||
        header.cmsg_len != CMSG_LEN(sizeof(int)) || fd != answer) {
      Die("a descriptor answered from a block that does not hold it", std::to_string(answer));
    }
  } else if (answer != -EAGAIN && answer != -EMFILE && answer != result) {
    Die("an errno the block cannot give", std::to_string(answer));
  }
  return 0;
}
