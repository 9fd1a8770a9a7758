// Running a command the way containerd and conmon run a runtime: fork and
// exec (no shell), output captured to files, killed if it hangs.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/harness/files.h"

namespace vigil::integration {

// How a command ended, and what it wrote.
struct Outcome {
  int status = -1;  // exit code, 128+N for signal N, -1 if it could not run
  bool timed_out = false;
  std::string out;
  std::string err;
  // Where stdout and stderr went: after `create` the container writes there.
  std::string out_file;
  std::string err_file;

  bool ok() const { return status == 0 && !timed_out; }
};

inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "status " << o.status << (o.timed_out ? " (timed out, killed)" : "") << "\n--- stdout\n"
     << o.out << "--- stderr\n"
     << o.err << "---";
  return os;
}

// True if `text` is one line ending in a newline: what a caller that shows
// the runtime's error (containerd, podman) can display as it is.
inline bool IsOneLine(const std::string& text) {
  return !text.empty() && text.back() == '\n' && std::count(text.begin(), text.end(), '\n') == 1;
}

// A started command whose stdout and stderr go to files: a runtime's
// `create` hands its stdio to the container, so a pipe would not see end of
// file until the container exits.
class Child {
 public:
  // Starts argv[0] (an absolute path) with stdin from /dev/null; `fd3`, if
  // given, becomes its descriptor 3 (for --preserve-fds).
  static Child Spawn(const std::vector<std::string>& argv, std::string out_path,
                     std::string err_path, int fd3 = -1) {
    Child child;
    child.out_path_ = std::move(out_path);
    child.err_path_ = std::move(err_path);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return child;
    if (pid == 0) {
      // Its own process group, so a hung command goes with its helpers.
      ::setpgid(0, 0);
      int in = ::open("/dev/null", O_RDONLY);
      int out = ::open(child.out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(child.err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      if (fd3 >= 0) {
        ::dup2(fd3, 3);
        ::fcntl(3, F_SETFD, 0);  // dup2(3, 3) would keep close-on-exec
      }
      ::syscall(SYS_close_range, fd3 >= 0 ? 4u : 3u, ~0u, 0u);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    child.pid_ = pid;
    child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    return child;
  }

  Child(Child&& other) noexcept
      : pid_(std::exchange(other.pid_, -1)),
        pidfd_(std::exchange(other.pidfd_, -1)),
        out_path_(std::move(other.out_path_)),
        err_path_(std::move(other.err_path_)) {}
  Child& operator=(Child&&) = delete;
  ~Child() {
    if (pid_ > 0) (void)Wait(std::chrono::seconds(0));
  }

  pid_t pid() const { return pid_; }

  // Waits up to `limit` for the command to exit; past it, kills its process
  // group and reports a timeout. Either way the child is reaped.
  Outcome Wait(std::chrono::milliseconds limit = kCommandTimeout) {
    Outcome outcome{.out_file = out_path_, .err_file = err_path_};
    if (pid_ <= 0) {
      outcome.err = "fork failed";
      return outcome;
    }
    pollfd p{.fd = pidfd_, .events = POLLIN, .revents = 0};
    int ready;
    do {
      ready = ::poll(&p, 1, static_cast<int>(limit.count()));
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      outcome.timed_out = true;
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
    }
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
    ::close(pidfd_);
    pid_ = pidfd_ = -1;
    if (!outcome.timed_out) {
      outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    }
    outcome.out = ReadWholeFile(out_path_);
    outcome.err = ReadWholeFile(err_path_);
    return outcome;
  }

 private:
  Child() = default;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::string out_path_;
  std::string err_path_;
};

}  // namespace vigil::integration
