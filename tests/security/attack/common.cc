#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "attack.h"

namespace vigil::security {

std::string ErrnoText(int err) {
  const char* name = strerrorname_np(err);
  return std::string(name ? name : "E?") + " (" + std::strerror(err) + ")";
}

bool IsRefusal(int err) { return err == EPERM || err == EACCES || err == ENOSYS; }

bool ReadsSecret(int dirfd, const std::string& path, std::string* got) {
  int fd = ::openat(dirfd, path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (got) *got = ErrnoText(errno);
    return false;
  }
  char buf[257] = {};
  ssize_t n = ::read(fd, buf, 256);
  ::close(fd);
  if (n < 0) {
    if (got) *got = "read: " + ErrnoText(errno);
    return false;
  }
  std::string text(buf, static_cast<std::size_t>(n));
  bool secret = text.rfind("VIGIL-SECRET-", 0) == 0;
  // The harness looks for the token in our output: print it when we have it.
  if (got) *got = secret ? "read host secret " + text.substr(0, 64) : "read non-secret data";
  return secret;
}

std::string DotDots(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "../";
  return s;
}

long long NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

std::string ChildResult::Describe() const {
  if (timed_out) return "timed out (killed)";
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by SIG") + (name ? name : "?");
  }
  if (!exited) return "child failed";
  if (ret < 0) return ErrnoText(err);
  return "returned " + std::to_string(ret);
}

ChildResult InChild(const std::function<long()>& fn, int timeout_ms) {
  ChildResult r;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    r.err = errno;
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.err = errno;
    ::close(p[0]);
    ::close(p[1]);
    return r;
  }
  if (pid == 0) {
    ::close(p[0]);
    errno = 0;
    long ret = fn();
    long msg[2] = {ret, errno};
    (void)!::write(p[1], msg, sizeof msg);
    ::_exit(0);
  }
  ::close(p[1]);
  pollfd pfd{p[0], POLLIN, 0};
  int ready = ::poll(&pfd, 1, timeout_ms);
  long msg[2];
  if (ready == 1 && ::read(p[0], msg, sizeof msg) == static_cast<ssize_t>(sizeof msg)) {
    r.exited = true;
    r.ret = msg[0];
    r.err = static_cast<int>(msg[1]);
  } else if (ready == 0) {
    r.timed_out = true;
    ::kill(pid, SIGKILL);
  }
  ::close(p[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!r.exited && !r.timed_out && WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

Flipper::Flipper(std::function<void(long)> flip)
    : thread_([this, flip = std::move(flip)] {
        for (long i = 0; !stop_.load(std::memory_order_relaxed); ++i) {
          flip(i);
          flips_.fetch_add(1, std::memory_order_relaxed);
        }
      }) {}

Flipper::~Flipper() {
  stop_ = true;
  thread_.join();
}

}  // namespace vigil::security
