#include "sentry/handlers/paths.h"

#include <fcntl.h>
#include <limits.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include "base/file.h"
#include "base/strings.h"
#include "sentry/handlers/own_descriptors.h"

namespace vigil::sentry {
namespace {

constexpr std::size_t kChunk = 256;

bool ReplacePrefix(std::string& path, std::string_view prefix, const std::string& with) {
  if (!path.starts_with(prefix)) return false;
  if (path.size() > prefix.size() && path[prefix.size()] != '/') return false;
  path = with + path.substr(prefix.size());
  return true;
}

}  // namespace

Result<std::string> CopyString(TraceeMemory& tracee, std::uint64_t pointer, std::size_t max,
                               bool& complete) {
  std::string text;
  std::array<char, kChunk> chunk{};
  complete = false;
  while (text.size() < max) {
    // Up to the end of the page, so that a string ending just before an
    // unmapped page is not mistaken for a fault; and never past `max`, so
    // that a NUL beyond it does not make a path the kernel refuses
    // (ENAMETOOLONG) acceptable.
    const std::uint64_t address = pointer + text.size();
    const std::size_t to_page_end = 4096 - (address % 4096);
    const std::size_t want = std::min({chunk.size(), to_page_end, max - text.size()});
    RETURN_IF_ERROR(tracee.Read(address, std::as_writable_bytes(std::span(chunk.data(), want))));
    const char* nul = static_cast<const char*>(std::memchr(chunk.data(), '\0', want));
    text.append(chunk.data(), nul != nullptr ? nul - chunk.data() : want);
    if (nul != nullptr) {
      complete = true;
      break;
    }
  }
  return text;
}

Result<std::string> CopyPath(TraceeMemory& tracee, std::uint64_t pointer) {
  bool complete = false;
  ASSIGN_OR_RETURN(std::string path, CopyString(tracee, pointer, PATH_MAX, complete));
  if (!complete) return FailErrno(ENAMETOOLONG, "path longer than PATH_MAX");
  if (path.empty()) return FailErrno(ENOENT, "empty path");
  return path;
}

std::string RewriteSelf(const std::string& given, const ThreadStatus& thread) {
  std::string path;
  for (char c : given) {
    if (c == '/' && !path.empty() && path.back() == '/') continue;
    path += c;
  }
  // Most paths name nothing of the caller's: no ids to format for them.
  if (!path.starts_with("/proc/") && !path.starts_with("/dev/")) return path;
  const std::string process = StrCat("/proc/", thread.ns_tgid);
  if (ReplacePrefix(path, "/proc/self", process)) return path;
  if (ReplacePrefix(path, "/proc/thread-self", StrCat(process, "/task/", thread.ns_tid)))
    return path;
  // procfs's own links to self/mounts and self/net.
  if (ReplacePrefix(path, "/proc/mounts", process + "/mounts")) return path;
  if (ReplacePrefix(path, "/proc/net", process + "/net")) return path;
  if (ReplacePrefix(path, "/dev/fd", process + "/fd")) return path;
  if (ReplacePrefix(path, "/dev/stdin", process + "/fd/0")) return path;
  if (ReplacePrefix(path, "/dev/stdout", process + "/fd/1")) return path;
  ReplacePrefix(path, "/dev/stderr", process + "/fd/2");
  return path;
}

std::optional<std::string> SelfLink(const std::string& given) {
  std::string path;
  for (char c : given) {
    if (c != '/' || path.empty() || path.back() != '/') path += c;
  }
  if (path == "/proc/self" || path == "/proc/thread-self" || path == "/proc/mounts" ||
      path == "/proc/net") {
    return path;
  }
  return std::nullopt;
}

std::optional<int> OwnDescriptor(const std::string& path, const ThreadStatus& thread) {
  if (!path.starts_with("/proc/")) return std::nullopt;
  for (const std::string& prefix :
       {StrCat("/proc/", thread.ns_tgid, "/fd/"),
        StrCat("/proc/", thread.ns_tgid, "/task/", thread.ns_tid, "/fd/")}) {
    if (!path.starts_with(prefix)) continue;
    std::string_view rest = std::string_view(path).substr(prefix.size());
    int fd = -1;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), fd);
    if (ec == std::errc() && end == rest.data() + rest.size() && fd >= 0) return fd;
  }
  return std::nullopt;
}

Result<std::string> ContainerPath(Tracee& tracee, const ThreadStatus& thread, int dirfd,
                                  const std::string& path, bool rewrite_self) {
  auto finish = [&](const std::string& absolute) {
    return rewrite_self ? RewriteSelf(absolute, thread) : absolute;
  };
  if (path.starts_with('/')) return finish(path);
  std::string base;
  if (dirfd == AT_FDCWD) {
    ASSIGN_OR_RETURN(base, tracee.WorkingDirectoryPath());
  } else {
    ASSIGN_OR_RETURN(base, tracee.DescriptorPath(dirfd));
  }
  // A directory deleted since it was entered: nothing can be found in it.
  if (base.ends_with(" (deleted)") || !base.starts_with('/')) {
    return FailErrno(ENOENT, "the base directory is gone");
  }
  return finish(base + "/" + path);
}

Result<std::optional<OwnLinkTarget>> FollowOwnLink(Tracee& tracee, const ThreadStatus& thread,
                                                   const std::string& path, bool follow_last) {
  if (!path.starts_with("/proc/")) return std::optional<OwnLinkTarget>();
  const std::string process = StrCat("/proc/", thread.ns_tgid);
  for (const std::string& self : {process, StrCat(process, "/task/", thread.ns_tid)}) {
    // ns/TYPE: a namespace, nothing beneath it.
    if (const std::string ns = self + "/ns/"; path.starts_with(ns)) {
      const std::string type = path.substr(ns.size());
      if (type.empty() || type.find('/') != std::string::npos) continue;
      if (!follow_last) return std::optional<OwnLinkTarget>();
      OwnLinkTarget target;
      ASSIGN_OR_RETURN(target.file, tracee.Namespace(type));
      target.decided_as = path;
      return std::optional(std::move(target));
    }
    for (std::string_view link : {"/cwd", "/root", "/exe"}) {
      const std::string prefix = self + std::string(link);
      if (!path.starts_with(prefix)) continue;
      std::string_view rest = std::string_view(path).substr(prefix.size());
      if (!rest.empty() && rest.front() != '/') continue;  // /proc/7/cwdx
      if (rest.empty() && !follow_last) return std::optional<OwnLinkTarget>();
      OwnLinkTarget target;
      if (link == "/exe") {
        if (!rest.empty()) return FailErrno(ENOTDIR, "a path beyond /proc/self/exe");
        ASSIGN_OR_RETURN(target.file, tracee.Executable());
      } else if (link == "/root") {
        target.path = rest.empty() ? "/" : std::string(rest);
      } else {
        ASSIGN_OR_RETURN(std::string cwd, tracee.WorkingDirectoryPath());
        if (cwd.ends_with(" (deleted)") || !cwd.starts_with('/')) {
          return FailErrno(ENOENT, "the working directory is gone");
        }
        target.path = cwd + std::string(rest);
      }
      return std::optional(std::move(target));
    }
  }
  return std::optional<OwnLinkTarget>();
}

Result<UniqueFd> HeldFile(Tracee& tracee, int dirfd) {
  return dirfd == AT_FDCWD ? tracee.WorkingDirectory() : tracee.Descriptor(dirfd);
}

Result<std::string> PathInRoot(int fd, const std::string& root_path) {
  ASSIGN_OR_RETURN(std::string path, LinkOfOwnDescriptor(fd));
  if (!path.starts_with('/')) return std::string();  // "pipe:[4242]" and the like
  if (root_path == "/") return path;
  if (path == root_path) return std::string("/");
  if (path.starts_with(root_path + "/")) return path.substr(root_path.size());
  return FailErrno(EXDEV, "outside the container's root");
}

Result<UniqueFd> OpenFileOf(Tracee& tracee, int fd) {
  ASSIGN_OR_RETURN(UniqueFd held, tracee.Descriptor(fd));
  const int status = ::fcntl(held.Get(), F_GETFL);
  if (status < 0) return FailErrno("fcntl a workload descriptor");
  if ((status & O_PATH) != 0) return FailErrno(EBADF, "an O_PATH descriptor");
  return held;
}

}  // namespace vigil::sentry
