// The extended-attribute syscalls under a file policy. Reading (getxattr,
// lgetxattr, listxattr, llistxattr) needs a file the workload may see;
// changing (setxattr, lsetxattr, removexattr, lremovexattr, and fsetxattr,
// fremovexattr on a descriptor) one it may write. The path is resolved as
// the workload like open's and the sentry does the call on the file it
// resolved, through its own /proc/self/fd link to it (the *xattrat forms do
// not take an O_PATH descriptor). A symlink, which the l* forms may name,
// has no user attributes the sentry could reach that way: it answers as
// Linux does for those (ENODATA, an empty list, EPERM). The *xattrat
// syscalls themselves are refused with ENOSYS: their arguments sit in a
// struct the sentry would have to decode on top, and libc does not call
// them.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <variant>
#include <vector>

#include "sentry/core/acting_as.h"
#include "sentry/handlers/caller.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

constexpr std::size_t kNameMax = 255;         // XATTR_NAME_MAX
constexpr std::size_t kValueMax = 64 * 1024;  // XATTR_SIZE_MAX
constexpr std::size_t kListMax = 64 * 1024;   // XATTR_LIST_MAX

enum class Operation { kGet, kList, kSet, kRemove };

struct Request {
  Operation operation = Operation::kGet;
  bool on_descriptor = false;  // fsetxattr, fremovexattr
  bool follow = true;          // not the l* forms
  std::uint64_t target = 0;    // the path, or the descriptor
  std::uint64_t name = 0;
  std::uint64_t value = 0;  // get, set: the buffer; list: the list
  std::size_t size = 0;
  int flags = 0;  // set: XATTR_CREATE, XATTR_REPLACE
};

Request RequestOf(const SyscallEvent& event) {
  const auto& a = event.args;
  Request r{.target = a[0]};
  switch (event.number) {
    case SYS_getxattr:
    case SYS_lgetxattr:
      r.name = a[1], r.value = a[2], r.size = a[3];
      r.follow = event.number == SYS_getxattr;
      break;
    case SYS_listxattr:
    case SYS_llistxattr:
      r.operation = Operation::kList, r.value = a[1], r.size = a[2];
      r.follow = event.number == SYS_listxattr;
      break;
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr:
      r.operation = Operation::kSet, r.name = a[1], r.value = a[2], r.size = a[3];
      r.flags = static_cast<int>(a[4]);
      r.follow = event.number != SYS_lsetxattr;
      r.on_descriptor = event.number == SYS_fsetxattr;
      break;
    default:  // removexattr, lremovexattr, fremovexattr
      r.operation = Operation::kRemove, r.name = a[1];
      r.follow = event.number != SYS_lremovexattr;
      r.on_descriptor = event.number == SYS_fremovexattr;
      break;
  }
  return r;
}

// The attribute's name: ERANGE past XATTR_NAME_MAX, as the kernel answers.
Result<std::string> CopyName(Tracee& tracee, std::uint64_t pointer) {
  std::string name;
  for (std::size_t at = 0; at <= kNameMax; ++at) {
    char c = 0;
    RETURN_IF_ERROR(tracee.Read(pointer + at, std::as_writable_bytes(std::span(&c, 1))));
    if (c == '\0') {
      if (name.empty()) return FailErrno(ERANGE, "empty attribute name");
      return name;
    }
    name.push_back(c);
  }
  return FailErrno(ERANGE, "attribute name too long");
}

// Does the operation on `file`: the number of bytes for get and list,
// else 0; or -errno.
long Perform(const Request& request, int file, const std::string& name, std::vector<char>& value) {
  struct stat st {};
  if (::fstat(file, &st) != 0) return -errno;
  if (S_ISLNK(st.st_mode)) {
    switch (request.operation) {
      case Operation::kGet:
        return -ENODATA;
      case Operation::kList:
        return 0;
      default:
        return -EPERM;
    }
  }
  const std::string self = "/proc/self/fd/" + std::to_string(file);
  long n = -1;
  switch (request.operation) {
    case Operation::kGet:
      n = ::getxattr(self.c_str(), name.c_str(), value.data(), value.size());
      break;
    case Operation::kList:
      n = ::listxattr(self.c_str(), value.data(), value.size());
      break;
    case Operation::kSet:
      n = ::setxattr(self.c_str(), name.c_str(), value.data(), value.size(), request.flags);
      break;
    case Operation::kRemove:
      n = ::removexattr(self.c_str(), name.c_str());
      break;
  }
  return n < 0 ? -errno : n;
}

}  // namespace

Result<Verdict> HandleXattr(HandlerContext& context) {
  const Request request = RequestOf(context.event);
  const bool writes =
      request.operation == Operation::kSet || request.operation == Operation::kRemove;
  std::string name;
  if (request.operation != Operation::kList) {
    ASSIGN_OR_RETURN(name, CopyName(context.tracee, request.name));
    context.AuditArg("name", name);
  }
  std::vector<char> value;
  if (request.operation == Operation::kSet) {
    if (request.size > kValueMax) return Verdict::Fail(E2BIG, Decision::kAllow);
    value.resize(request.size);
    RETURN_IF_ERROR(context.tracee.Read(request.value, std::as_writable_bytes(std::span(value))));
  } else if (request.operation != Operation::kRemove) {
    // A size of 0 asks how large the answer is.
    value.resize(
        std::min(request.size, request.operation == Operation::kList ? kListMax : kValueMax));
  }
  ASSIGN_OR_RETURN(const Caller caller, CallerOf(context));
  UniqueFd file;
  std::string path;
  if (request.on_descriptor) {
    ASSIGN_OR_RETURN(file, OpenFileOf(context.tracee, static_cast<int>(request.target)));
  } else {
    ASSIGN_OR_RETURN(std::string given, CopyPath(context.tracee, request.target));
    context.AuditArg("path", given);
    ASSIGN_OR_RETURN(path, ContainerPath(context.tracee, caller.thread, AT_FDCWD, given));
  }
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  if (!request.on_descriptor) {
    ASSIGN_OR_RETURN(
        file, ResolveInRoot(caller.root.Get(), path, O_PATH | (request.follow ? 0 : O_NOFOLLOW)));
  }
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, file.Get(), caller.root_path, writes);
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  if (KernelMakesFileCalls(context)) return Verdict::Continue();
  const long n = Perform(request, file.Get(), name, value);
  if (n < 0) return Verdict::Fail(static_cast<int>(-n), Decision::kAllow);
  if (!writes && request.size > 0 && n > 0) {
    if (!context.tracee.Valid()) return Verdict::Stale();
    RETURN_IF_ERROR(context.tracee.Write(
        request.value, std::as_bytes(std::span(value.data(), static_cast<std::size_t>(n)))));
  }
  return Verdict::Return(n, Decision::kAllow);
}

}  // namespace vigil::sentry
