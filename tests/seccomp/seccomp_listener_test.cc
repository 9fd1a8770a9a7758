#include "runtime/linux/seccomp_listener.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "base/json/json_reader.h"
#include "base/scope_guard.h"
#include "base/unique_fd.h"
#include "runtime/linux/seccomp_filter.h"
#include "tests/seccomp/under_filter.h"

namespace vigil::runtime {
namespace {

using testing::Exited;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Rule;
using ::testing::StartsWith;

config::State ExampleState() {
  return config::State{.oci_version = "1.2.0",
                       .id = "oci-container1",
                       .status = config::ContainerStatus::kCreating,
                       .pid = 4422,
                       .bundle = "/containers/redis",
                       .annotations = {{"myKey", "myValue"}}};
}

// A listening AF_UNIX stream socket in a fresh temporary directory.
class AgentSocket {
 public:
  AgentSocket() {
    char tmpl[] = "/tmp/vigil-seccomp-agent-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/agent.sock";
    fd_.Reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path_.c_str());
    EXPECT_EQ(::bind(fd_.Get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_.Get(), 4), 0);
    // A test whose peer failed must not hang in accept() or recvmsg().
    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(fd_.Get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~AgentSocket() { std::filesystem::remove_all(dir_); }

  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

  // Accepts one connection and reads it to EOF: the text and the fds that
  // came with it.
  struct Received {
    std::string text;
    std::vector<UniqueFd> fds;
  };
  Received AcceptOne() const {
    Received out;
    UniqueFd conn(::accept4(fd_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
    EXPECT_TRUE(conn.Valid()) << std::strerror(errno);
    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(conn.Get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    for (;;) {
      char buf[4096];
      iovec iov{.iov_base = buf, .iov_len = sizeof buf};
      alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = ::recvmsg(conn.Get(), &msg, MSG_CMSG_CLOEXEC);
      if (n <= 0) break;
      out.text.append(buf, static_cast<std::size_t>(n));
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
          out.fds.emplace_back(fd);
        }
      }
    }
    return out;
  }

 private:
  std::string dir_;
  std::string path_;
  UniqueFd fd_;
};

TEST(ContainerProcessStateTest, HasTheRuntimeSpecShape) {
  EXPECT_EQ(ContainerProcessState(4422, "MKNOD=/dev/null,/dev/net/tun", ExampleState()),
            R"({"ociVersion":"1.2.0","fds":["seccompFd"],"pid":4422,)"
            R"("metadata":"MKNOD=/dev/null,/dev/net/tun",)"
            R"("state":{"ociVersion":"1.2.0","id":"oci-container1","status":"creating",)"
            R"("pid":4422,"bundle":"/containers/redis","annotations":{"myKey":"myValue"}}})");
}

TEST(ContainerProcessStateTest, LeavesOutEmptyMetadataAndIsValidJson) {
  std::string text = ContainerProcessState(77, "", ExampleState());
  EXPECT_THAT(text, Not(HasSubstr("metadata")));
  Result<json::Document> doc = json::Document::Parse(text);
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->root().Find("pid")->NumberText(), "77");
  EXPECT_EQ(doc->root().Find("state")->Find("id")->AsString(), "oci-container1");
}

TEST(SendSeccompListenerTest, DeliversTheStateAndTheFdInOneConnection) {
  AgentSocket agent;
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  const std::string state = ContainerProcessState(4422, "meta", ExampleState());

  // The connection completes on the backlog, so sending needs no agent thread.
  Result<void> sent = SendSeccompListener(agent.path(), write_end.Get(), state);
  ASSERT_TRUE(sent) << sent.error().message;

  AgentSocket::Received got = agent.AcceptOne();  // reads to EOF: the runtime closed it
  EXPECT_EQ(got.text, state);
  ASSERT_EQ(got.fds.size(), 1u);
  struct stat sent_st {};
  struct stat got_st {};
  ASSERT_EQ(::fstat(write_end.Get(), &sent_st), 0);
  ASSERT_EQ(::fstat(got.fds[0].Get(), &got_st), 0);
  EXPECT_EQ(sent_st.st_ino, got_st.st_ino);
  EXPECT_EQ(sent_st.st_dev, got_st.st_dev);
}

TEST(SendSeccompListenerTest, SendsALargeStateWhole) {
  AgentSocket agent;
  config::State state = ExampleState();
  for (int i = 0; i < 20000; ++i) state.annotations["key" + std::to_string(i)] = "value";
  const std::string text = ContainerProcessState(1, "", state);
  ASSERT_GT(text.size(), 300000u);  // more than a socket buffer
  UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  pid_t sender = ::fork();
  if (sender == 0) ::_exit(SendSeccompListener(agent.path(), fd.Get(), text) ? 0 : 1);
  AgentSocket::Received got = agent.AcceptOne();
  EXPECT_THAT(testing::WaitStatus(sender), Exited(0));
  EXPECT_EQ(got.text, text);
  EXPECT_EQ(got.fds.size(), 1u);
}

TEST(SendSeccompListenerTest, ConnectFailureNamesThePath) {
  AgentSocket agent;
  const std::string missing = agent.dir() + "/nobody.sock";
  Result<void> sent = SendSeccompListener(missing, 0, "{}");
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().code, ENOENT);
  EXPECT_THAT(sent.error().message,
              StartsWith("seccomp listener: connect to " + missing + ": No such file"));
}

TEST(SendSeccompListenerTest, RejectsAPathTooLongForAUnixSocket) {
  Result<void> sent = SendSeccompListener("/" + std::string(200, 'a'), 0, "{}");
  ASSERT_FALSE(sent);
  EXPECT_THAT(sent.error().message, HasSubstr("must be 1 to 107 bytes long"));
}

// The whole path of a NOTIFY profile: the workload loads the filter, hands
// the listener to the agent over listenerPath, and its getppid() is answered
// by the agent.
TEST(SeccompNotifyTest, AgentReceivesTheListenerAndAnswersTheSyscall) {
  AgentSocket agent;
  Result<CompiledFilter> filter = CompileSeccomp(
      config::Seccomp{.default_action = config::SeccompAction::kAllow,
                      .flags = {"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"},
                      .listener_path = agent.path(),
                      .listener_metadata = "meta",
                      .syscalls = {Rule({"getppid"}, config::SeccompAction::kNotify)}});
  ASSERT_TRUE(filter) << filter.error().message;
  ASSERT_TRUE(filter->has_notify);
  constexpr long kAnswer = 4242;

  pid_t child = testing::SpawnUnderFilter(*filter, [&](int listener) {
    std::string state = ContainerProcessState(::getpid(), "meta", ExampleState());
    if (!SendSeccompListener(agent.path(), listener, state)) return 1;
    ::close(listener);
    return ::syscall(SYS_getppid) == kAnswer ? 0 : 2;
  });
  ScopeGuard kill_child([&] {
    ::kill(child, SIGKILL);
    testing::WaitStatus(child);
  });

  AgentSocket::Received got = agent.AcceptOne();
  EXPECT_THAT(got.text, HasSubstr(R"("fds":["seccompFd"],"pid":)" + std::to_string(child)));
  EXPECT_THAT(got.text, HasSubstr(R"("metadata":"meta")"));
  ASSERT_EQ(got.fds.size(), 1u);
  const int listener = got.fds[0].Get();

  seccomp_notif notif{};
  ASSERT_EQ(::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notif), 0) << std::strerror(errno);
  EXPECT_EQ(notif.pid, static_cast<__u32>(child));
  EXPECT_EQ(notif.data.nr, SYS_getppid);
  seccomp_notif_resp resp{.id = notif.id, .val = kAnswer, .error = 0, .flags = 0};
  ASSERT_EQ(::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp), 0) << std::strerror(errno);

  kill_child.Dismiss();
  EXPECT_THAT(testing::WaitStatus(child), Exited(0));
}

}  // namespace
}  // namespace vigil::runtime
