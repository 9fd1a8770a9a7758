// The syscalls that add, remove or move names under a file policy: mkdir,
// mknod, symlink (and their *at forms), unlink, unlinkat, rmdir, rename,
// renameat, renameat2, link and linkat. Left to the kernel they would let a
// workload move a hidden or read-only file to a path the policy opens up
// (rename, link) or delete what it may only read.
//
// Each path's directory is resolved in the container's root as the workload
// (following links, as the kernel does for all but the last component); the
// policy decides on directory + name; the sentry then acts on the name in
// that resolved directory with the workload's credentials, so the kernel
// never follows the last component and checks the permissions it would for
// the workload (docs/design.md, rules 4-6). Nothing here waits, so the
// credentials are held for the whole handler.
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <variant>

#include "base/strings.h"
#include "config/policy/policy.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/caller.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// A path the workload named, made absolute in the container (read before
// the sentry takes the workload's credentials: /proc/TID/cwd is the
// sentry's to read, not the workload's). A stale notification's verdict
// ends the call.
Result<std::variant<std::string, Verdict>> NamedPath(HandlerContext& context, const Caller& caller,
                                                     int dirfd, std::uint64_t pointer,
                                                     std::string_view audit_name) {
  ASSIGN_OR_RETURN(std::string given, CopyPath(context.tracee, pointer));
  context.AuditArg(audit_name, given);
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(std::string path, ContainerPath(context.tracee, caller.thread, dirfd, given));
  return path;
}

// A name in a resolved directory.
struct Entry {
  UniqueFd directory;  // O_PATH
  std::string name;    // one component
  std::string path;    // directory + name in the container: what the policy decides on
  // The name as the *at call gets it: with the trailing slash the workload
  // wrote, so the kernel applies its own rules for one ("file/" is ENOTDIR
  // to unlink and rename, a new "name/" ENOENT to symlink and link, fine to
  // mkdir and rmdir) instead of acting on the bare name.
  std::string call_name;
  // "." or "..": no syscall here can create, remove or move those, so the
  // kernel is left to refuse with its own errno and the policy has no say.
  bool dot = false;
};

// Resolves the directory of `path` (absolute, in the container). The
// caller acts as the workload. A directory the sentry cannot name in the
// container is refused.
Result<std::variant<Entry, Verdict>> ResolveEntry(HandlerContext& context, const Caller& caller,
                                                  std::string path, std::string_view audit_name) {
  const bool trailing_slash = path.size() > 1 && path.ends_with('/');
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  Entry entry;
  std::string parent = "/";
  if (path == "/") {
    entry.name = ".";
  } else {
    const std::size_t slash = path.rfind('/');
    parent = slash == 0 ? "/" : path.substr(0, slash);
    entry.name = path.substr(slash + 1);
  }
  entry.dot = entry.name == "." || entry.name == "..";
  entry.call_name = trailing_slash && !entry.dot ? entry.name + "/" : entry.name;
  ASSIGN_OR_RETURN(entry.directory, ResolveInRoot(caller.root.Get(), parent, O_PATH | O_DIRECTORY));
  Result<std::string> where = PathInRoot(entry.directory.Get(), caller.root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  entry.path = *where == "/" ? "/" + entry.name : *where + "/" + entry.name;
  if (!entry.dot) context.AuditArg(audit_name, entry.path);
  return entry;
}

// 0 when the policy lets the workload change `entry`, else the errno.
int ChangeRefusal(const HandlerContext& context, const Entry& entry) {
  if (entry.dot) return 0;
  return Refusal(AccessFor(context, entry.path), /*write=*/true);
}

Verdict Done(int rc) {
  return rc == 0 ? Verdict::Return(0, Decision::kAllow) : Verdict::Fail(errno, Decision::kAllow);
}

// A refusal is a denial; anything else the kernel said is its own answer.
Verdict Refused(int error) { return Verdict::Fail(error, Decision::kDeny); }

bool IsDirectory(const Entry& entry) {
  struct stat st {};
  return ::fstatat(entry.directory.Get(), entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode);
}

// Moving a directory moves every path beneath it: only a tree the policy
// lets the workload write throughout may go. Otherwise EXDEV, on which mv
// and the like copy file by file, each copy decided on its own.
bool TreeMovable(const HandlerContext& context, const Entry& entry) {
  return entry.dot || !IsDirectory(entry) ||
         config::UniformAccessBeneath(*context.sandbox.policy, entry.path) ==
             config::FileAccess::kWrite;
}

// Resolves the one name a call changes, decides, and if the policy lets
// the workload change it runs `act` (a syscall's return) on it as the
// workload — or leaves the call to the kernel (KernelMakesFileCalls).
template <typename Act>
Result<Verdict> ChangeOneName(HandlerContext& context, int dirfd, std::uint64_t pointer, Act act) {
  ASSIGN_OR_RETURN(Caller caller, CallerOf(context));
  ASSIGN_OR_RETURN(auto path, NamedPath(context, caller, dirfd, pointer, "path"));
  if (Verdict* verdict = std::get_if<Verdict>(&path)) return std::move(*verdict);
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  ASSIGN_OR_RETURN(auto entry,
                   ResolveEntry(context, caller, std::get<std::string>(path), "resolved"));
  if (Verdict* verdict = std::get_if<Verdict>(&entry)) return std::move(*verdict);
  const Entry& e = std::get<Entry>(entry);
  if (int refused = ChangeRefusal(context, e)) return Refused(refused);
  if (KernelMakesFileCalls(context)) return Verdict::Continue();
  return Done(act(e.directory.Get(), e.call_name.c_str()));
}

}  // namespace

Result<Verdict> HandleCreate(HandlerContext& context) {
  const auto& a = context.event.args;
  int dirfd = AT_FDCWD;
  std::uint64_t pointer = a[0];
  std::uint64_t target = 0;  // symlink's contents
  mode_t mode = 0;
  dev_t device = 0;
  switch (context.event.number) {
    case SYS_mkdir:
      mode = S_IFDIR | static_cast<mode_t>(a[1]);
      break;
    case SYS_mkdirat:
      dirfd = static_cast<int>(a[0]), pointer = a[1], mode = S_IFDIR | static_cast<mode_t>(a[2]);
      break;
    case SYS_mknod:
      mode = static_cast<mode_t>(a[1]), device = static_cast<dev_t>(a[2]);
      break;
    case SYS_mknodat:
      dirfd = static_cast<int>(a[0]), pointer = a[1], mode = static_cast<mode_t>(a[2]),
      device = static_cast<dev_t>(a[3]);
      break;
    case SYS_symlink:
      target = a[0], pointer = a[1], mode = S_IFLNK;
      break;
    default:  // symlinkat(target, newdirfd, linkpath)
      target = a[0], dirfd = static_cast<int>(a[1]), pointer = a[2], mode = S_IFLNK;
      break;
  }
  const mode_t type = (mode & S_IFMT) == 0 ? S_IFREG : (mode & S_IFMT);
  // mknod's own checks come before the kernel looks at the path: it makes
  // no directories (mkdir does) and knows no other types.
  if (context.event.number == SYS_mknod || context.event.number == SYS_mknodat) {
    if (type == S_IFDIR) return Verdict::Fail(EPERM, Decision::kAllow);
    if (type != S_IFREG && type != S_IFCHR && type != S_IFBLK && type != S_IFIFO &&
        type != S_IFSOCK) {
      return Verdict::Fail(EINVAL, Decision::kAllow);
    }
  }
  // Device nodes: under a policy that restricts files the container has the
  // devices it was given. Under one that refuses no file, the kernel makes
  // them as it would for the workload (CAP_MKNOD, the device cgroup's "m"):
  // what a node gives access to is the device cgroup's to decide at open.
  const bool device_node = type == S_IFCHR || type == S_IFBLK;
  if (device_node && !KernelMakesFileCalls(context)) return Refused(EPERM);
  std::string contents;
  if (type == S_IFLNK) {
    ASSIGN_OR_RETURN(contents, CopyPath(context.tracee, target));
    context.AuditArg("target", contents);
  }
  return ChangeOneName(context, dirfd, pointer, [&](int at, const char* name) {
    if (type == S_IFDIR) return ::mkdirat(at, name, mode & 07777);
    if (type == S_IFLNK) return ::symlinkat(contents.c_str(), at, name);
    return ::mknodat(at, name, type | (mode & 07777), device);
  });
}

Result<Verdict> HandleRemove(HandlerContext& context) {
  const auto& a = context.event.args;
  int dirfd = AT_FDCWD;
  std::uint64_t pointer = a[0];
  int flags = context.event.number == SYS_rmdir ? AT_REMOVEDIR : 0;
  if (context.event.number == SYS_unlinkat) {
    dirfd = static_cast<int>(a[0]), pointer = a[1], flags = static_cast<int>(a[2]);
  }
  return ChangeOneName(context, dirfd, pointer,
                       [&](int at, const char* name) { return ::unlinkat(at, name, flags); });
}

Result<Verdict> HandleRename(HandlerContext& context) {
  const auto& a = context.event.args;
  int from_dirfd = AT_FDCWD, to_dirfd = AT_FDCWD;
  std::uint64_t from = a[0], to = a[1];
  unsigned int flags = 0;
  if (context.event.number != SYS_rename) {
    from_dirfd = static_cast<int>(a[0]), from = a[1], to_dirfd = static_cast<int>(a[2]), to = a[3];
    if (context.event.number == SYS_renameat2) flags = static_cast<unsigned int>(a[4]);
  }
  ASSIGN_OR_RETURN(Caller caller, CallerOf(context));
  ASSIGN_OR_RETURN(auto from_path, NamedPath(context, caller, from_dirfd, from, "from"));
  if (Verdict* verdict = std::get_if<Verdict>(&from_path)) return std::move(*verdict);
  ASSIGN_OR_RETURN(auto to_path, NamedPath(context, caller, to_dirfd, to, "to"));
  if (Verdict* verdict = std::get_if<Verdict>(&to_path)) return std::move(*verdict);
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  ASSIGN_OR_RETURN(auto source, ResolveEntry(context, caller, std::get<std::string>(from_path),
                                             "resolved_from"));
  if (Verdict* verdict = std::get_if<Verdict>(&source)) return std::move(*verdict);
  ASSIGN_OR_RETURN(auto target,
                   ResolveEntry(context, caller, std::get<std::string>(to_path), "resolved_to"));
  if (Verdict* verdict = std::get_if<Verdict>(&target)) return std::move(*verdict);
  const Entry& s = std::get<Entry>(source);
  const Entry& t = std::get<Entry>(target);
  if (int refused = ChangeRefusal(context, s)) return Refused(refused);
  if (int refused = ChangeRefusal(context, t)) return Refused(refused);
  if (KernelMakesFileCalls(context)) return Verdict::Continue();
  if (!TreeMovable(context, s)) return Refused(EXDEV);
  if ((flags & RENAME_EXCHANGE) != 0 && !TreeMovable(context, t)) return Refused(EXDEV);
  return Done(static_cast<int>(::syscall(SYS_renameat2, s.directory.Get(), s.call_name.c_str(),
                                         t.directory.Get(), t.call_name.c_str(), flags)));
}

// A new name for a file is a new way to reach it: the file itself must be
// one the workload may write, or a read-only or denied file would become
// writable (or readable) under its new name.
Result<Verdict> HandleLink(HandlerContext& context) {
  const auto& a = context.event.args;
  int from_dirfd = AT_FDCWD, to_dirfd = AT_FDCWD;
  std::uint64_t from = a[0], to = a[1];
  int flags = 0;
  if (context.event.number == SYS_linkat) {
    from_dirfd = static_cast<int>(a[0]), from = a[1], to_dirfd = static_cast<int>(a[2]), to = a[3];
    flags = static_cast<int>(a[4]);
  }
  if ((flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) != 0)
    return Verdict::Fail(EINVAL, Decision::kAllow);
  ASSIGN_OR_RETURN(Caller caller, CallerOf(context));
  UniqueFd file;
  Result<std::string> given = CopyPath(context.tracee, from);
  if (!given && !(given.error().code == ENOENT && (flags & AT_EMPTY_PATH))) {
    return Failed(given.error(), Decision::kAllow);
  }
  if (!given) {
    // linkat(fd, "", ..., AT_EMPTY_PATH) links the file a descriptor holds:
    // since Linux 6.10 its opener may (the kernel compares the credentials
    // it was opened with), others need CAP_DAC_READ_SEARCH. The sentry
    // cannot tell who opened a file it opened for the workload, so under a
    // policy that refuses no file it leaves the call to the kernel, which
    // can: any name the new link may get is one the policy lets be written.
    // Under other policies the older rule holds.
    if (KernelMakesFileCalls(context)) {
      ASSIGN_OR_RETURN(auto to_path, NamedPath(context, caller, to_dirfd, to, "to"));
      if (Verdict* verdict = std::get_if<Verdict>(&to_path)) return std::move(*verdict);
      return Verdict::Continue();
    }
    if ((caller.thread.cap_effective & (std::uint64_t{1} << CAP_DAC_READ_SEARCH)) == 0 ||
        context.sandbox.user_namespace) {
      return Verdict::Fail(ENOENT, Decision::kAllow);
    }
    ASSIGN_OR_RETURN(file, context.tracee.Descriptor(from_dirfd));
  }
  if (given) context.AuditArg("from", *given);
  ASSIGN_OR_RETURN(auto to_path, NamedPath(context, caller, to_dirfd, to, "to"));
  if (Verdict* verdict = std::get_if<Verdict>(&to_path)) return std::move(*verdict);
  std::string from_path;
  if (given) {
    ASSIGN_OR_RETURN(from_path, ContainerPath(context.tracee, caller.thread, from_dirfd, *given));
  }
  ASSIGN_OR_RETURN(ActingAs acting, ActingAs::Begin(caller.thread, context.sandbox.user_namespace));
  if (given) {
    const int follow = (flags & AT_SYMLINK_FOLLOW) ? 0 : O_NOFOLLOW;
    ASSIGN_OR_RETURN(file, ResolveInRoot(caller.root.Get(), from_path, O_PATH | follow));
  }
  std::variant<std::string, Verdict> decided =
      DecideOnFile(context, file.Get(), caller.root_path, /*write=*/true, "resolved_from");
  if (Verdict* refused = std::get_if<Verdict>(&decided)) return std::move(*refused);
  ASSIGN_OR_RETURN(auto target,
                   ResolveEntry(context, caller, std::get<std::string>(to_path), "resolved_to"));
  if (Verdict* verdict = std::get_if<Verdict>(&target)) return std::move(*verdict);
  const Entry& t = std::get<Entry>(target);
  if (int refused = ChangeRefusal(context, t)) return Refused(refused);
  if (KernelMakesFileCalls(context)) return Verdict::Continue();
  // Through the sentry's own /proc/self/fd link to the file it decided on:
  // the link itself when the source was not followed.
  return Done(::linkat(AT_FDCWD, StrCat("/proc/self/fd/", file.Get()).c_str(), t.directory.Get(),
                       t.call_name.c_str(), AT_SYMLINK_FOLLOW));
}

}  // namespace vigil::sentry
