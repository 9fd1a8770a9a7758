#include "sentry/handlers/own_descriptors.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/unique_fd.h"

namespace vigil::sentry {
namespace {

TEST(OwnDescriptors, LinksNameWhatTheDescriptorsHold) {
  UniqueFd file(::open("/etc/hostname", O_PATH | O_CLOEXEC));
  ASSERT_TRUE(file);
  EXPECT_EQ(LinkOfOwnDescriptor(file.Get()).value_or("?"), "/etc/hostname");
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  EXPECT_TRUE(LinkOfOwnDescriptor(read_end.Get()).value_or("?").starts_with("pipe:["));
  Result<std::string> closed = LinkOfOwnDescriptor(1000);
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code, ENOENT);
}

TEST(OwnDescriptors, AnOPathDescriptorReopensForReading) {
  UniqueFd path(::open("/etc/hostname", O_PATH | O_CLOEXEC));
  ASSERT_TRUE(path);
  UniqueFd readable(ReopenOwnDescriptor(path.Get(), O_RDONLY | O_CLOEXEC, 0));
  ASSERT_TRUE(readable) << errno;
  char c;
  EXPECT_GE(::read(readable.Get(), &c, 1), 0);
  EXPECT_EQ(ReopenOwnDescriptor(1000, O_RDONLY, 0), -1);
  EXPECT_EQ(errno, ENOENT);
}

// The directory is opened once: a forked child must read its own table,
// not its parent's through a directory the parent opened.
TEST(OwnDescriptors, AForkedChildReadsItsOwnTable) {
  UniqueFd file(::open("/etc/hostname", O_PATH | O_CLOEXEC));
  ASSERT_TRUE(file);
  ASSERT_EQ(LinkOfOwnDescriptor(file.Get()).value_or("?"), "/etc/hostname");  // opened now
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int passwd = ::open("/etc/passwd", O_PATH | O_CLOEXEC);
    if (passwd < 0 || ::dup2(passwd, file.Get()) < 0) ::_exit(2);
    ::_exit(LinkOfOwnDescriptor(file.Get()).value_or("?") == "/etc/passwd" ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace vigil::sentry
