#include "base/unix_socket.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace vigil {
namespace {

using ::testing::HasSubstr;

TEST(UnixSocketTest, PathsTooLongOrEmptyAreRefused) {
  EXPECT_THAT(ConnectUnix("/" + std::string(200, 'a'), SOCK_STREAM).error().message,
              HasSubstr("must be 1 to 107 bytes long"));
  EXPECT_FALSE(ListenUnix("", SOCK_STREAM, 1));
}

TEST(UnixSocketTest, ConnectNamesAMissingSocket) {
  auto fd = ConnectUnix("/nonexistent/vigil.sock", SOCK_STREAM);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code, ENOENT);
  EXPECT_THAT(fd.error().message, HasSubstr("connect to /nonexistent/vigil.sock"));
}

TEST(UnixSocketTest, ListenThenConnectAndSendADescriptor) {
  std::string path = "/tmp/vigil-unix-test." + std::to_string(::getpid());
  auto listener = ListenUnix(path, SOCK_STREAM, 1);
  ASSERT_TRUE(listener) << listener.error().message;
  auto client = ConnectUnix(path, SOCK_STREAM);
  ASSERT_TRUE(client) << client.error().message;
  UniqueFd server(::accept4(listener->Get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(server);

  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_TRUE(SendWithFd(client->Get(), "hello", null));
  ::close(null);

  char data[16] = {};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  iovec iov{.iov_base = data, .iov_len = sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ASSERT_EQ(::recvmsg(server.Get(), &msg, MSG_CMSG_CLOEXEC), 5);
  EXPECT_STREQ(data, "hello");
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  ASSERT_NE(cmsg, nullptr);
  ASSERT_EQ(cmsg->cmsg_type, SCM_RIGHTS);
  int received = -1;
  std::memcpy(&received, CMSG_DATA(cmsg), sizeof received);
  UniqueFd got(received);
  EXPECT_NE(::fcntl(got.Get(), F_GETFD), -1);
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace vigil
