#include "runtime/process/terminal_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

#include "base/strings.h"
#include "base/unix_socket.h"
#include "runtime/process/wait.h"

namespace vigil::runtime {
namespace {

// The caller's terminal in raw mode for as long as this lives.
class RawMode {
 public:
  explicit RawMode(int fd) : fd_(fd) {
    if (::tcgetattr(fd_, &saved_) != 0) {
      fd_ = -1;  // not a terminal: nothing to set or restore
      return;
    }
    termios raw = saved_;
    ::cfmakeraw(&raw);
    ::tcsetattr(fd_, TCSANOW, &raw);
  }
  RawMode(const RawMode&) = delete;
  RawMode& operator=(const RawMode&) = delete;
  ~RawMode() {
    if (fd_ >= 0) ::tcsetattr(fd_, TCSANOW, &saved_);
  }

 private:
  int fd_;
  termios saved_{};
};

void CopyWindowSize(int from, int to) {
  winsize size{};
  if (::ioctl(from, TIOCGWINSZ, &size) == 0) ::ioctl(to, TIOCSWINSZ, &size);
}

// Moves one read's worth from `from` to `to`: the bytes moved, 0 at the
// end of input (for a master: EIO, no slave open any more), -1 when there
// was nothing to read. Output that cannot be written is dropped: the
// container must not stall on a caller who went away.
ssize_t Move(int from, int to) {
  char buffer[16384];
  const ssize_t n = ::read(from, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN ? -1 : 0;
  for (ssize_t done = 0; done < n;) {
    const ssize_t written = ::write(to, buffer + done, static_cast<std::size_t>(n - done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    done += written;
  }
  return n;
}

}  // namespace

Result<ConsoleReceiver> ConsoleReceiver::Open() {
  char dir[] = "/tmp/vigil-console-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return FailErrno("create a directory for the console socket");
  Result<UniqueFd> listener = ListenUnix(StrCat(dir, "/console.sock"), SOCK_STREAM, 1);
  if (!listener) {
    std::filesystem::remove_all(dir);
    return tl::unexpected(std::move(listener).error());
  }
  return ConsoleReceiver(dir, *std::move(listener));
}

ConsoleReceiver::ConsoleReceiver(std::string dir, UniqueFd listener)
    : dir_(std::move(dir)), path_(dir_ + "/console.sock"), listener_(std::move(listener)) {}

ConsoleReceiver::ConsoleReceiver(ConsoleReceiver&& other) noexcept
    : dir_(std::exchange(other.dir_, "")),
      path_(std::move(other.path_)),
      listener_(std::move(other.listener_)) {}

ConsoleReceiver::~ConsoleReceiver() {
  if (dir_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

Result<UniqueFd> ConsoleReceiver::Receive() {
  UniqueFd connection(::accept4(listener_.Get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!connection) return FailErrno("accept the terminal on the console socket");
  UniqueFd master;
  RETURN_IF_ERROR_WRAP(ReceiveWithFd(connection.Get(), 4096, &master),
                       "receive the terminal on the console socket");
  if (!master) return Fail("the console socket carried no terminal");
  // Sized as the caller's terminal before the container's process runs
  // (process.consoleSize stays when the caller has no terminal).
  CopyWindowSize(STDIN_FILENO, master.Get());
  return master;
}

int RelayTerminal(int master, pid_t pid) {
  const sigset_t set = ForwardedSignals();
  sigset_t old;
  sigprocmask(SIG_BLOCK, &set, &old);
  UniqueFd signals(::signalfd(-1, &set, SFD_CLOEXEC));
  RawMode raw(STDIN_FILENO);
  bool input = true;
  bool output = true;
  int status = -1;
  while (true) {
    int wait_status = 0;
    const pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) status = ShellStatus(wait_status);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    pollfd fds[] = {{signals.Get(), POLLIN, 0},
                    {output ? master : -1, POLLIN, 0},
                    {input ? STDIN_FILENO : -1, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) output = Move(master, STDOUT_FILENO) != 0;
    if (fds[2].revents != 0) input = Move(STDIN_FILENO, master) != 0;
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info{};
      if (::read(signals.Get(), &info, sizeof info) == sizeof info) {
        const int sig = static_cast<int>(info.ssi_signo);
        if (sig == SIGWINCH) {
          CopyWindowSize(STDIN_FILENO, master);
        } else if (sig != SIGCHLD) {
          ::kill(pid, sig);
        }
      }
    }
  }
  // What the container wrote just before it exited is still in the master.
  ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
  while (output && Move(master, STDOUT_FILENO) > 0) {
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return status < 0 ? 255 : status;
}

}  // namespace vigil::runtime
