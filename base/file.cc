#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "base/scope_guard.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil {

Result<std::string> ReadLink(const std::string& path) {
  char target[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), target, sizeof target);
  if (n < 0) return FailErrno(StrCat("readlink ", path));
  if (static_cast<std::size_t>(n) == sizeof target)
    return FailErrno(ENAMETOOLONG, StrCat("readlink ", path));
  return std::string(target, static_cast<std::size_t>(n));
}

namespace {

// Everything `fd` (opened on `path`) holds, up to `max_bytes`.
Result<std::string> ReadAll(int fd, const std::string& path, std::size_t max_bytes) {
  // Read straight into the string, never through a large stack buffer:
  // this also runs on the sentry's small fiber stacks.
  constexpr std::size_t kChunk = 4096;
  std::string out;
  for (;;) {
    const std::size_t size = out.size();
    out.resize(size + kChunk);
    ssize_t n = ::read(fd, out.data() + size, kChunk);
    out.resize(size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno(StrCat("read ", path));
    if (n == 0) break;
    if (out.size() > max_bytes) return Fail(StrCat(path, ": larger than ", max_bytes, " bytes"));
  }
  return out;
}

// `path` read whole if it is a regular file or, with `pipes`, a pipe.
Result<std::string> ReadWhole(const std::string& path, std::size_t max_bytes, bool pipes) {
  // Without pipes, O_NONBLOCK: opening a FIFO must not wait for a writer;
  // it is refused below (for a regular file the flag changes nothing).
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | (pipes ? 0 : O_NONBLOCK)));
  if (!fd) return FailErrno(StrCat("open ", path));
  struct stat st {};
  if (::fstat(fd.Get(), &st) != 0) return FailErrno(StrCat("stat ", path));
  if (!S_ISREG(st.st_mode) && !(pipes && S_ISFIFO(st.st_mode))) {
    return Fail(StrCat(path, pipes ? ": not a regular file or a pipe" : ": not a regular file"));
  }
  return ReadAll(fd.Get(), path, max_bytes);
}

}  // namespace

Result<std::string> ReadFile(const std::string& path, std::size_t max_bytes) {
  return ReadWhole(path, max_bytes, /*pipes=*/false);
}

Result<std::string> ReadFileOrPipe(const std::string& path, std::size_t max_bytes) {
  return ReadWhole(path, max_bytes, /*pipes=*/true);
}

Result<void> WriteFileAtomic(const std::string& path, std::string_view contents, int mode,
                             bool overwrite, Durability durability) {
  if (!overwrite && ::access(path.c_str(), F_OK) == 0) {
    return Fail(StrCat(path, " already exists"));
  }
  std::string tmp = StrCat(path, ".tmp.", ::getpid());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!fd) return FailErrno(StrCat("create ", tmp));
  ScopeGuard remove_tmp([&] { ::unlink(tmp.c_str()); });
  while (!contents.empty()) {
    ssize_t n = ::write(fd.Get(), contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno(StrCat("write ", tmp));
    contents.remove_prefix(static_cast<std::size_t>(n));
  }
  if (durability == Durability::kFsync && ::fsync(fd.Get()) != 0) {
    return FailErrno(StrCat("fsync ", tmp));
  }
  fd.Reset();
  if (overwrite) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) return FailErrno(StrCat("rename to ", path));
  } else {
    // link() fails with EEXIST if `path` appeared meanwhile: no clobbering.
    if (::link(tmp.c_str(), path.c_str()) != 0) return FailErrno(StrCat("create ", path));
    ::unlink(tmp.c_str());
  }
  remove_tmp.Dismiss();
  return {};
}

Result<void> WriteExisting(const std::string& path, std::string_view contents) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return FailErrno(StrCat("open ", path));
  ssize_t n;
  do {
    n = ::write(fd.Get(), contents.data(), contents.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return FailErrno(StrCat("write ", path));
  if (static_cast<std::size_t>(n) != contents.size()) return Fail(StrCat("short write to ", path));
  return {};
}

}  // namespace vigil
