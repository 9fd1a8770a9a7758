// The syscalls that change a file without writing to it — chmod, chown,
// truncate, the utime family, and fchmod and fchown on a descriptor — under
// a file policy: the path resolved as the workload like open's (or the
// descriptor's file), the change allowed only on a file the policy lets the
// workload write, and made by the sentry on that file with the workload's
// credentials. A descriptor opened for reading does not make a read-only
// file's mode or owner the workload's to change.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

#include <array>
#include <cerrno>
#include <optional>
#include <variant>

#include "base/strings.h"
#include "sentry/core/acting_as.h"
#include "sentry/core/thread_status.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// Linux 6.6's fchmodat2, newer than this libc's headers.
constexpr int kFchmodat2 = 452;

enum class Change { kMode, kOwner, kSize, kTimes };

struct Request {
  Change change = Change::kMode;
  int dirfd = AT_FDCWD;
  std::uint64_t path = 0;
  bool follow = true;
  mode_t mode = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  off_t size = 0;
  std::uint64_t times = 0;  // kTimes: the workload's buffer, 0 for "now"
  bool empty_path = false;  // AT_EMPTY_PATH: the descriptor `dirfd` itself
};

// The request, or EINVAL for flags the syscall does not take.
std::optional<Request> RequestOf(const SyscallEvent& event) {
  const auto& a = event.args;
  const int flags_at = [&] {
    switch (event.number) {
      case SYS_fchownat:
        return static_cast<int>(a[4]);
      case kFchmodat2:
      case SYS_utimensat:
        return static_cast<int>(a[3]);
      default:
        return 0;
    }
  }();
  if ((flags_at & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) != 0) return std::nullopt;
  Request r;
  r.follow = (flags_at & AT_SYMLINK_NOFOLLOW) == 0;
  r.empty_path = (flags_at & AT_EMPTY_PATH) != 0;
  switch (event.number) {
    case SYS_fchmod:
      r.dirfd = static_cast<int>(a[0]), r.mode = static_cast<mode_t>(a[1]), r.empty_path = true;
      break;
    case SYS_fchown:
      r.change = Change::kOwner, r.dirfd = static_cast<int>(a[0]), r.empty_path = true;
      r.uid = static_cast<uid_t>(a[1]), r.gid = static_cast<gid_t>(a[2]);
      break;
    case SYS_chmod:
      r.path = a[0], r.mode = static_cast<mode_t>(a[1]);
      break;
    case SYS_fchmodat:
    case kFchmodat2:
      r.dirfd = static_cast<int>(a[0]), r.path = a[1], r.mode = static_cast<mode_t>(a[2]);
      break;
    case SYS_chown:
    case SYS_lchown:
      r.change = Change::kOwner, r.path = a[0];
      r.uid = static_cast<uid_t>(a[1]), r.gid = static_cast<gid_t>(a[2]);
      r.follow = event.number == SYS_chown;
      break;
    case SYS_fchownat:
      r.change = Change::kOwner, r.dirfd = static_cast<int>(a[0]), r.path = a[1];
      r.uid = static_cast<uid_t>(a[2]), r.gid = static_cast<gid_t>(a[3]);
      break;
    case SYS_truncate:
      r.change = Change::kSize, r.path = a[0], r.size = static_cast<off_t>(a[1]);
      break;
    case SYS_utime:
    case SYS_utimes:
      r.change = Change::kTimes, r.path = a[0], r.times = a[1];
      break;
    case SYS_futimesat:
      r.change = Change::kTimes, r.dirfd = static_cast<int>(a[0]), r.path = a[1], r.times = a[2];
      break;
    default:  // utimensat(dirfd, path, times, flags)
      r.change = Change::kTimes, r.dirfd = static_cast<int>(a[0]), r.path = a[1], r.times = a[2];
      break;
  }
  return r;
}

// The new times as utimensat takes them, copied once from the workload's
// buffer in whichever layout the syscall uses (utimbuf, timeval[2],
// timespec[2]); nullopt for "now".
Result<std::optional<std::array<timespec, 2>>> CopyTimes(Tracee& tracee, int number,
                                                         std::uint64_t address) {
  if (address == 0) return std::optional<std::array<timespec, 2>>();
  std::array<timespec, 2> times{};
  if (number == SYS_utime) {
    utimbuf buffer{};
    RETURN_IF_ERROR(tracee.Read(address, std::as_writable_bytes(std::span(&buffer, 1))));
    times = {timespec{buffer.actime, 0}, timespec{buffer.modtime, 0}};
  } else if (number == SYS_utimes || number == SYS_futimesat) {
    std::array<timeval, 2> buffer{};
    RETURN_IF_ERROR(tracee.Read(address, std::as_writable_bytes(std::span(buffer))));
    for (std::size_t i = 0; i < 2; ++i) {
      if (buffer[i].tv_usec < 0 || buffer[i].tv_usec >= 1'000'000) {
        return FailErrno(EINVAL, "timeval out of range");
      }
      times[i] = {buffer[i].tv_sec, buffer[i].tv_usec * 1000};
    }
  } else {
    RETURN_IF_ERROR(tracee.Read(address, std::as_writable_bytes(std::span(times))));
  }
  return std::optional(times);
}

// Makes the change on `file` (O_PATH, the file the policy decided on) for
// thread `tid`, whose RLIMIT_FSIZE a truncate that grows the file past it
// meets with EFBIG and, as the kernel's inode_newsize_ok, SIGXFSZ
// (`over_size_limit`).
int Apply(const Request& request, const std::optional<std::array<timespec, 2>>& times, int file,
          pid_t tid, bool& over_size_limit) {
  const std::string self = StrCat("/proc/self/fd/", file);
  switch (request.change) {
    case Change::kMode: {
      struct stat st {};
      if (::fstat(file, &st) != 0) return errno;
      if (S_ISLNK(st.st_mode)) return EOPNOTSUPP;  // Linux has no symlink modes
      return ::chmod(self.c_str(), request.mode) == 0 ? 0 : errno;
    }
    case Change::kOwner:
      return ::fchownat(file, "", request.uid, request.gid, AT_EMPTY_PATH) == 0 ? 0 : errno;
    case Change::kSize: {
      struct stat st {};
      if (::fstat(file, &st) != 0) return errno;
      if (S_ISDIR(st.st_mode)) return EISDIR;
      if (!S_ISREG(st.st_mode)) return EINVAL;  // and no FIFO is opened to find out
      // truncate(2) asks the mount first; an open for writing would say
      // ETXTBSY first for a running program.
      struct statvfs mount {};
      if (::fstatvfs(file, &mount) == 0 && (mount.f_flag & ST_RDONLY) != 0) return EROFS;
      UniqueFd writable(::open(self.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK));
      if (!writable) return errno;
      const auto size = static_cast<std::uint64_t>(request.size);
      if (size > static_cast<std::uint64_t>(st.st_size) && size > FileSizeLimitOf(tid)) {
        over_size_limit = true;
        return EFBIG;
      }
      return ::ftruncate(writable.Get(), request.size) == 0 ? 0 : errno;
    }
    case Change::kTimes:
      return ::utimensat(file, "", times ? times->data() : nullptr, AT_EMPTY_PATH) == 0 ? 0 : errno;
  }
  return EINVAL;
}

}  // namespace

Result<Verdict> HandleAttributes(HandlerContext& context) {
  const std::optional<Request> request = RequestOf(context.event);
  if (!request) return Verdict::Fail(EINVAL, Decision::kAllow);
  if (request->change == Change::kSize && request->size < 0) {
    return Verdict::Fail(EINVAL, Decision::kAllow);
  }
  std::optional<std::array<timespec, 2>> times;
  if (request->change == Change::kTimes) {
    ASSIGN_OR_RETURN(times, CopyTimes(context.tracee, context.event.number, request->times));
    // utimensat told to leave both times: the kernel returns at once,
    // without even looking at the path.
    if (context.event.number == SYS_utimensat && times && (*times)[0].tv_nsec == UTIME_OMIT &&
        (*times)[1].tv_nsec == UTIME_OMIT) {
      return Verdict::Return(0, Decision::kAllow);
    }
  }
  // On a descriptor: fchmod, fchown, and utimensat(fd, NULL, ...), which
  // is futimens and takes no flags. utimensat(AT_FDCWD, NULL, ...) is a
  // path the kernel cannot read (EFAULT).
  const bool futimens =
      context.event.number == SYS_utimensat && request->path == 0 && request->dirfd != AT_FDCWD;
  if (futimens && (!request->follow || request->empty_path)) {
    return Verdict::Fail(EINVAL, Decision::kAllow);
  }
  const bool no_path =
      context.event.number == SYS_fchmod || context.event.number == SYS_fchown || futimens;
  Result<std::string> given =
      no_path ? Result<std::string>(std::string()) : CopyPath(context.tracee, request->path);
  // An empty path with AT_EMPTY_PATH names the descriptor, or the working
  // directory for AT_FDCWD (HeldFile), as it does for stat and access.
  const bool empty_path = !no_path && !given && given.error().code == ENOENT && request->empty_path;
  if (!given && !no_path && !empty_path) return Failed(given.error(), Decision::kAllow);
  const bool empty = no_path || empty_path;
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(ThreadStatus thread, context.tracee.Status());
  UniqueFd file;
  ASSIGN_OR_RETURN(SharedFd root, context.tracee.Root());
  ASSIGN_OR_RETURN(std::string root_path, context.tracee.RootPath());
  std::string path;
  if (empty) {
    // fchmod, fchown, futimens: the descriptor itself, not an O_PATH one
    // (OpenFileOf); an empty path: the descriptor or the cwd (HeldFile).
    ASSIGN_OR_RETURN(file, empty_path ? HeldFile(context.tracee, request->dirfd)
                                      : OpenFileOf(context.tracee, request->dirfd));
  } else {
    context.AuditArg("path", *given);
    ASSIGN_OR_RETURN(path, ContainerPath(context.tracee, thread, request->dirfd, *given));
  }
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(thread, context.sandbox.user_namespace));
  if (!empty) {
    ASSIGN_OR_RETURN(file,
                     ResolveInRoot(root.Get(), path, O_PATH | (request->follow ? 0 : O_NOFOLLOW)));
  }
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, file.Get(), root_path, /*write=*/true);
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  if (KernelMakesFileCalls(context)) return Verdict::Continue();
  bool over_size_limit = false;
  if (int error = Apply(*request, times, file.Get(), context.event.tid, over_size_limit)) {
    if (over_size_limit) {
      // Sent as the sentry: what ActingAs leaves on this thread (the
      // sentry's euid, the workload's capabilities) passes kill(2)'s check
      // only with CAP_KILL.
      { ActingAs ended = std::move(acting); }
      if (Result<void> own = ActingAs::AsSentry(); own) {
        ::syscall(SYS_tgkill, thread.tgid, context.event.tid, SIGXFSZ);
      }
    }
    return Verdict::Fail(error, Decision::kAllow);
  }
  return Verdict::Return(0, Decision::kAllow);
}

}  // namespace vigil::sentry
