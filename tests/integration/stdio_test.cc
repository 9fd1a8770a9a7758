// The container's descriptors: --preserve-fds passes the caller's fds 3...
// through, and a terminal reaches the caller over --console-socket, for the
// init (create) and for exec. Every case runs against vigil and runc.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

// A console socket as containerd and conmon run one: accepts a connection
// and receives the terminal's master descriptor.
class ConsoleSocket {
 public:
  explicit ConsoleSocket(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 1);
  }
  ~ConsoleSocket() {
    ::close(fd_);
    if (master_ >= 0) ::close(master_);
    ::unlink(path_.c_str());
  }

  // Waits for the runtime to send the master; -1 if it does not.
  int Master() {
    pollfd pfd{.fd = fd_, .events = POLLIN};
    if (::poll(&pfd, 1, 20000) != 1) return -1;
    int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    char data[256];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    iovec iov{.iov_base = data, .iov_len = sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(conn, &msg, MSG_CMSG_CLOEXEC) > 0 && CMSG_FIRSTHDR(&msg) != nullptr) {
      std::memcpy(&master_, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof master_);
    }
    ::close(conn);
    return master_;
  }

  // What the terminal shows until `marker` appears (or 20 s pass).
  std::string ReadUntil(const std::string& marker) {
    std::string out;
    while (out.find(marker) == std::string::npos) {
      pollfd pfd{.fd = master_, .events = POLLIN};
      if (::poll(&pfd, 1, 20000) != 1) break;
      char buf[512];
      ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  std::string path_;
  int fd_ = -1;
  int master_ = -1;
};

class StdioTest : public RuntimeTest {};

TEST_P(StdioTest, PreserveFdsPassesDescriptorThreeThrough) {
  BundleConfig config;
  config.args = {"sh", "-c", "echo through-fd3 >&3"};
  WriteConfig(config);
  std::string file = scratch_ + "/fd3.txt";
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  Outcome run =
      SpawnRuntime({"run", "--preserve-fds", "1", "--bundle", bundle_, NewId()}, fd).Wait();
  ::close(fd);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(ReadWholeFile(file), "through-fd3\n");
}

TEST_P(StdioTest, WithoutPreserveFdsNothingLeaksPastStdio) {
  BundleConfig config;
  config.args = {"sh", "-c", "ls /proc/self/fd"};
  WriteConfig(config);
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  Outcome run = SpawnRuntime({"run", "--bundle", bundle_, NewId()}, fd).Wait();
  ::close(fd);
  ASSERT_TRUE(run.ok()) << run;
  // ls's own directory descriptor is the only one past 0, 1, 2.
  EXPECT_EQ(run.out, "0\n1\n2\n3\n");
}

TEST_P(StdioTest, TerminalForTheInitGoesToTheConsoleSocket) {
  ConsoleSocket console(scratch_ + "/console.sock");
  BundleConfig config;
  config.args = {"sh", "-c", "tty; stty size; echo done"};
  config.process_extra_json = R"("consoleSize": {"height": 40, "width": 100})";
  WriteConfig(config);
  // The harness writes terminal false; a terminal is what this case is about.
  std::string path = bundle_ + "/config.json";
  std::string text = ReadWholeFile(path);
  text.replace(text.find("\"terminal\": false"), 17, "\"terminal\": true");
  WriteWholeFile(path, text);

  std::string id = NewId();
  Outcome create =
      Runtime({"create", "--bundle", bundle_, "--console-socket", scratch_ + "/console.sock", id});
  ASSERT_TRUE(create.ok()) << create;
  ASSERT_GE(console.Master(), 0);
  ASSERT_TRUE(Runtime({"start", id}).ok());
  std::string screen = console.ReadUntil("done");
  EXPECT_THAT(screen, HasSubstr("/dev/pts/0"));
  EXPECT_THAT(screen, HasSubstr("40 100"));
}

TEST_P(StdioTest, ExecWithATerminal) {
  BundleConfig config;
  config.args = {"sleep", "100"};
  WriteConfig(config);
  std::string id = NewId();
  CreateAndStart(id);
  ConsoleSocket console(scratch_ + "/exec-console.sock");
  // Detached, as containerd runs it: the caller holds the terminal.
  Child exec = SpawnRuntime({"exec", "--detach", "--tty", "--console-socket",
                             scratch_ + "/exec-console.sock", id, "sh", "-c", "tty; echo done"});
  ASSERT_GE(console.Master(), 0);
  std::string screen = console.ReadUntil("done");
  EXPECT_THAT(screen, HasSubstr("/dev/pts/"));
  Outcome outcome = exec.Wait();
  EXPECT_TRUE(outcome.ok()) << outcome;
}

INSTANTIATE_TEST_SUITE_P(Runtimes, StdioTest, ::testing::ValuesIn(RuntimesUnderTest()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
