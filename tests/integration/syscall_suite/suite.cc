// The helpers every case family shares: formatting results, the fixture,
// running a body as another user.
#include "tests/integration/syscall_suite/suite.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace vigil::syscall_suite {

std::string ErrnoName(int error) {
  const char* name = ::strerrorname_np(error);
  return name != nullptr ? name : std::to_string(error);
}

std::string Rc(long rc) {
  if (rc < 0) return "-1 " + ErrnoName(errno);
  return std::to_string(rc);
}

std::string Fd(long rc) {
  if (rc < 0) return "-1 " + ErrnoName(errno);
  ::close(static_cast<int>(rc));
  return "fd";
}

std::string Line(std::initializer_list<std::string> parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : " ") + part;
  return text;
}

std::string StatText(const struct stat& st) {
  char text[160];
  std::snprintf(text, sizeof text, "mode=0%o nlink=%lu uid=%u gid=%u size=%lld rdev=%u:%u",
                st.st_mode, static_cast<unsigned long>(st.st_nlink), st.st_uid, st.st_gid,
                static_cast<long long>(st.st_size), major(st.st_rdev), minor(st.st_rdev));
  return text;
}

std::string LstatOf(const char* path) {
  struct stat st;
  if (::syscall(SYS_lstat, path, &st) < 0) return "-1 " + ErrnoName(errno);
  return StatText(st);
}

std::string ContentOf(const char* path, std::size_t limit) {
  int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return "-1 " + ErrnoName(errno);
  std::string text(limit, '\0');
  ssize_t n = ::read(fd, text.data(), limit);
  int error = errno;
  ::close(fd);
  if (n < 0) return "read -1 " + ErrnoName(error);
  text.resize(static_cast<std::size_t>(n));
  // One line per case: a newline in the content is shown as "\\n".
  std::string shown;
  for (char c : text) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
  return shown;
}

std::string Described(long rc) {
  if (rc < 0) return Rc(rc);
  int fd = static_cast<int>(rc);
  struct stat st;
  std::string text = "fd";
  if (::fstat(fd, &st) < 0) return "fd fstat " + Rc(-1);
  char octal[16];
  std::snprintf(octal, sizeof octal, " mode=0%o", st.st_mode);
  text += octal;
  if (S_ISREG(st.st_mode)) {
    char buffer[16];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    text += n < 0 ? " read=-1 " + ErrnoName(errno) : " read=" + std::string(buffer, n);
    if (!text.empty() && text.back() == '\n') text.pop_back();
  }
  ::close(fd);
  return text;
}

namespace {

bool WriteFile(const char* path, const char* text, mode_t mode) {
  int fd = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd < 0) return false;
  std::size_t size = std::strlen(text);
  bool ok = ::write(fd, text, size) == static_cast<ssize_t>(size);
  ::close(fd);
  // The umask would take bits off `mode`; the fixture wants them exactly.
  return ok && ::syscall(SYS_chmod, path, mode) == 0;
}

}  // namespace

std::string MakeFixture(const std::string& name) {
  ::syscall(SYS_mkdir, "/tmp/suite", 0755);
  const std::string dir = "/tmp/suite/" + name;
  if (::syscall(SYS_mkdir, dir.c_str(), 0755) < 0) return "mkdir " + Rc(-1);
  if (::syscall(SYS_chmod, dir.c_str(), 0755) < 0) return "chmod " + Rc(-1);
  if (::syscall(SYS_chdir, dir.c_str()) < 0) return "chdir " + Rc(-1);
  if (!WriteFile("file", "hello\n", 0644)) return "file " + Rc(-1);
  if (!WriteFile("secret", "s", 0600)) return "secret " + Rc(-1);
  if (!WriteFile("exec", "#!/bin/sh\n", 0755)) return "exec " + Rc(-1);
  if (::syscall(SYS_mkdir, "dir", 0755) < 0 || ::syscall(SYS_chmod, "dir", 0755) < 0) {
    return "dir " + Rc(-1);
  }
  if (!WriteFile("dir/inner", "i", 0644)) return "inner " + Rc(-1);
  if (::syscall(SYS_symlink, "file", "link") < 0) return "link " + Rc(-1);
  if (::syscall(SYS_symlink, "missing", "dangling") < 0) return "dangling " + Rc(-1);
  if (::syscall(SYS_symlink, "dir", "dirlink") < 0) return "dirlink " + Rc(-1);
  return "0";
}

std::string InChild(const std::function<std::string()>& body) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) < 0) return "pipe " + Rc(-1);
  pid_t pid = ::fork();
  if (pid < 0) return "fork " + Rc(-1);
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string result = body();
    (void)!::write(pipe_fds[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string result;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) result.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return "child died: " + std::to_string(status);
  return result;
}

std::string AsUser(uid_t ruid, uid_t euid, gid_t gid, const std::function<std::string()>& body) {
  return InChild([&] {
    if (::setgroups(0, nullptr) < 0 || ::setresgid(gid, gid, gid) < 0 ||
        ::setresuid(ruid, euid, euid) < 0) {
      return "drop " + Rc(-1);
    }
    return body();
  });
}

const char* PathTooLong() {
  static const std::string path = [] {
    std::string p;
    while (p.size() <= PATH_MAX) p += "a/";
    return p;
  }();
  return path.c_str();
}

const char* NameTooLong() {
  static const std::string name(NAME_MAX + 1, 'n');
  return name.c_str();
}

}  // namespace vigil::syscall_suite
