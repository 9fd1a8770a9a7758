#include "sentry/handlers/own_descriptors.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "base/file.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

// /proc/self/fd as opened by this process; -1 before the first use, after
// a fork (a child would read its parent's table through it) and when it
// could not be opened.
int own_fd_directory = -1;

void ForgetInTheChild() {
  if (own_fd_directory >= 0) ::close(own_fd_directory);
  own_fd_directory = -1;
}

int OwnFdDirectory() {
  static const bool forgotten_at_fork = ::pthread_atfork(nullptr, nullptr, &ForgetInTheChild) == 0;
  if (own_fd_directory < 0 && forgotten_at_fork) {
    own_fd_directory = ::open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  return own_fd_directory;
}

// `fd` in decimal, for a lookup in OwnFdDirectory.
struct Name {
  explicit Name(int fd) { *std::to_chars(text, text + sizeof text - 1, fd).ptr = '\0'; }
  char text[16] = {};
};

}  // namespace

Result<std::string> LinkOfOwnDescriptor(int fd) {
  const int directory = OwnFdDirectory();
  if (directory < 0) return ReadLink(StrCat("/proc/self/fd/", fd));
  char target[PATH_MAX];
  const ssize_t n = ::readlinkat(directory, Name(fd).text, target, sizeof target);
  if (n < 0) return FailErrno(StrCat("readlink /proc/self/fd/", fd));
  if (static_cast<std::size_t>(n) == sizeof target) {
    return FailErrno(ENAMETOOLONG, StrCat("readlink /proc/self/fd/", fd));
  }
  return std::string(target, static_cast<std::size_t>(n));
}

int ReopenOwnDescriptor(int fd, int flags, mode_t mode) {
  const int directory = OwnFdDirectory();
  if (directory < 0) return ::open(StrCat("/proc/self/fd/", fd).c_str(), flags, mode);
  return ::openat(directory, Name(fd).text, flags, mode);
}

}  // namespace vigil::sentry
