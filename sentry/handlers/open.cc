// open, creat, openat and openat2 under a file policy. The path is copied
// once and resolved in the container's root with openat2(RESOLVE_IN_ROOT |
// RESOLVE_NO_MAGICLINKS), narrowed by openat2's own resolve flags
// (open_walk.h); the decision is made on the file that resolved to (its
// path in the container), never on the string; the same file is then
// reopened with the workload's credentials and installed in the workload
// with ADDFD (docs/design.md, rules 2-7). A new file is created in its parent,
// opened the same way, by name, without following a symlink.
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <vector>

#include "base/file.h"
#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/core/acting_as.h"
#include "sentry/handlers/handler.h"
#include "sentry/handlers/open_how.h"
#include "sentry/handlers/open_walk.h"
#include "sentry/handlers/own_descriptors.h"
#include "sentry/handlers/paths.h"
#include "sentry/handlers/proc_views.h"
#include "sentry/handlers/resolve.h"
#include "sentry/handlers/waiting.h"

namespace vigil::sentry {
namespace {

// The kernel's __O_TMPFILE: glibc's O_TMPFILE and __O_TMPFILE both include
// O_DIRECTORY, so neither tells an O_TMPFILE open from a directory open.
constexpr int kTmpfileBit = 020000000;

struct OpenRequest {
  int dirfd = AT_FDCWD;
  std::uint64_t path = 0;
  int flags = 0;
  mode_t mode = 0;
  std::uint64_t resolve = 0;     // openat2's RESOLVE_* flags
  bool flags_in_memory = false;  // openat2's: another thread may change them
};

// The request, with the errno the kernel answers before it reads the path:
// openat2 copies and checks its open_how (open_how.h); the older forms
// check only the flags they cannot open with (build_open_flags).
Result<OpenRequest> RequestOf(HandlerContext& context) {
  const auto& a = context.event.args;
  OpenRequest request;
  switch (context.event.number) {
    case SYS_open:
      request = {AT_FDCWD, a[0], static_cast<int>(a[1]), static_cast<mode_t>(a[2])};
      break;
    case SYS_creat:
      request = {AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, static_cast<mode_t>(a[1])};
      break;
    case SYS_openat2: {
      ASSIGN_OR_RETURN(const open_how how, CopyOpenHow(context.tracee, a[2], a[3]));
      if (int refused = OpenHowRefusal(how)) return FailErrno(refused, "open_how");
      char resolve[24];
      std::snprintf(resolve, sizeof resolve, "0x%llx",
                    static_cast<unsigned long long>(how.resolve));
      context.AuditArg("resolve", resolve);
      // OpenHowRefusal leaves flags within 32 bits and a mode within 07777.
      return OpenRequest{static_cast<int>(a[0]),        a[1],        static_cast<int>(how.flags),
                         static_cast<mode_t>(how.mode), how.resolve, /*flags_in_memory=*/true};
    }
    default:  // openat
      request = {static_cast<int>(a[0]), a[1], static_cast<int>(a[2]), static_cast<mode_t>(a[3])};
      break;
  }
  // O_TMPFILE needs O_DIRECTORY, no O_CREAT, and write access; and since
  // Linux 6.4 O_CREAT | O_DIRECTORY is refused outright. With O_PATH the
  // kernel drops both first (build_open_how keeps only O_PATH's flags).
  const int flags = request.flags;
  if (flags & O_PATH) return request;
  if (((flags & kTmpfileBit) &&
       ((flags & (kTmpfileBit | O_DIRECTORY | O_CREAT)) != (kTmpfileBit | O_DIRECTORY) ||
        (flags & O_ACCMODE) == O_RDONLY)) ||
      (flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY)) {
    return FailErrno(EINVAL, "open flags");
  }
  return request;
}

bool Writes(int flags) { return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC) != 0; }

// The device cgroup's letters for an open with `flags`, as the kernel asks
// them: O_WRONLY is "w", O_RDWR "rw", anything else "r".
std::string_view DeviceAccess(int flags) {
  switch (flags & O_ACCMODE) {
    case O_WRONLY:
      return "w";
    case O_RDWR:
      return "rw";
    default:
      return "r";
  }
}

// Whether a writer has come to the FIFO whose non-blocking read end `fd`
// is, as a blocking reader's open waits for one: data waiting or a writer
// come and gone (POLLIN, POLLHUP), or one holding it open. For the last, a
// one-byte read into an address nothing maps answers EAGAIN while a writer
// holds it, 0 (end of file) while none does, and EFAULT when data came
// meanwhile; it never takes a byte (pipe_read copies before it consumes).
bool WriterCame(int fd) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0) return true;
  const std::uintptr_t unmapped = 8;  // below mmap_min_addr
  return ::syscall(SYS_read, fd, unmapped, 1) < 0;
}

// Opens the file the sentry holds as `file` anew (ReopenOwnDescriptor) as the
// workload asked, with its credentials (`acting`, taken here if the caller
// does not hold them already). A FIFO is opened without blocking the loop:
// the fiber waits, in 20 ms steps, for the peer a blocking open would wait
// for (a reader for a writer, a writer for a reader), and a signal ends the
// wait as it would end the kernel's (waiting.h) — its ActingAs ended: none
// may live across a wait, when other fibers and the loop run.
Result<UniqueFd> Reopen(HandlerContext& context, const ThreadStatus& thread, int file, int flags,
                        mode_t mode, bool fifo, std::optional<ActingAs>& acting) {
  // O_NOCTTY: the supervisor leads a session of its own with no terminal,
  // and a terminal it opened without would become its controlling one.
  int reopen = (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC | O_NOCTTY;
  const bool blocking_fifo = fifo && (flags & O_NONBLOCK) == 0;
  if (blocking_fifo) reopen |= O_NONBLOCK;
  for (;;) {
    if (!acting) {
      ASSIGN_OR_RETURN(ActingAs begun, ActingAs::Begin(thread, context.sandbox.user_namespace));
      acting.emplace(std::move(begun));
    }
    // The mode matters for O_TMPFILE, which creates a file in the directory.
    UniqueFd fd(ReopenOwnDescriptor(file, reopen, mode));
    if (fd) {
      if (blocking_fifo && (flags & O_ACCMODE) == O_RDONLY) {
        acting.reset();
        while (!WriterCame(fd.Get())) RETURN_IF_ERROR(PauseForRetry(context, 20));
      }
      if (blocking_fifo) ::fcntl(fd.Get(), F_SETFL, reopen & ~O_NONBLOCK);
      return fd;
    }
    const int error = errno;
    acting.reset();
    if (!blocking_fifo || error != ENXIO) return FailErrno(error, "reopen");
    RETURN_IF_ERROR(PauseForRetry(context, 20));
  }
}

// /proc/meminfo, cpuinfo and stat are not namespaced: a workload reading
// them gets the container's view instead (proc_views.h), as a sealed memfd.
std::optional<Verdict> OpenProcView(HandlerContext& context, const std::string& resolved, int file,
                                    const OpenRequest& request) {
  const ProcView view = ProcViewOf(resolved);
  if (view == ProcView::kNone || Writes(request.flags)) return std::nullopt;
  struct statfs fs {};
  if (::fstatfs(file, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC) return std::nullopt;
  const Sandbox& sandbox = context.sandbox;
  std::string text;
  if (view == ProcView::kMeminfo) {
    Result<std::string> host = ReadFile("/proc/meminfo", 1 << 16);
    if (!host) return Failed(host.error(), Decision::kEmulate);
    std::optional<MemoryView> memory;
    if (Result<ContainerMemory> m = sandbox.memory(); m && m->limit) {
      memory = MemoryView{.limit = *m->limit, .usage = m->usage, .cache = m->cache};
    }
    text = MeminfoView(*host, memory);
  } else {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    CpuView cpus{.limit = sandbox.cpu_limit};
    if (::sched_getaffinity(context.event.tid, sizeof allowed, &allowed) == 0) {
      for (unsigned int cpu = 0; cpu < 64; ++cpu) {
        if (CPU_ISSET(cpu, &allowed)) cpus.allowed_mask |= std::uint64_t{1} << cpu;
      }
    }
    const char* source = view == ProcView::kCpuinfo ? "/proc/cpuinfo" : "/proc/stat";
    Result<std::string> host = ReadFile(source, 1 << 22);
    if (!host) return Failed(host.error(), Decision::kEmulate);
    text = view == ProcView::kCpuinfo ? CpuinfoView(*host, cpus) : StatView(*host, cpus);
  }
  UniqueFd memfd(::memfd_create(resolved.c_str() + 1, MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!memfd) return Verdict::Fail(errno, Decision::kEmulate);
  if (::write(memfd.Get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      ::fcntl(memfd.Get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) !=
          0) {
    return Verdict::Fail(EIO, Decision::kEmulate);
  }
  // A read-only open file of its own, at offset 0, for the workload.
  UniqueFd readable(::open(StrCat("/proc/self/fd/", memfd.Get()).c_str(), O_RDONLY | O_CLOEXEC));
  if (!readable) return Verdict::Fail(errno, Decision::kEmulate);
  context.AuditArg("view", resolved);
  return Verdict::InstallFd(std::move(readable), (request.flags & O_CLOEXEC) != 0,
                            Decision::kEmulate);
}

// Records where the open resolved to, replacing an earlier answer (when a
// dangling symlink was followed): one "resolved" per record.
void AuditResolved(HandlerContext& context, const std::string& path) {
  for (AuditValue& arg : context.audit_args) {
    if (arg.name == "resolved") {
      arg.value = path;
      return;
    }
  }
  context.AuditArg("resolved", path);
}

// Whether an open the sentry allowed of `resolved` is the kernel's to make
// (CONTINUE; the arguments are in docs/security.md, "Where the sentry lets
// the kernel act"):
// - Any open under a policy that refuses no file (KernelMakesFileCalls).
// - O_PATH asks for no access to the file, so only a hidden or denied file
//   could refuse it. Under a policy with neither, the kernel's own open
//   refuses nothing the policy would, whatever the path resolves to when
//   it runs; it also gives the workload the descriptor ADDFD cannot
//   install (its fget() refuses O_PATH files). Only where the flags are
//   registers (open, openat): openat2's are memory another thread could
//   turn into a write.
// - An open for writing (or truncating) beneath a kernel write tree: a
//   Landlock layer of the workload's holds every write to exactly those
//   trees, where the policy lets everything be written, so wherever a
//   racing thread makes the path lead, the kernel writes only where the
//   policy would. Not O_TMPFILE, whose file no name check covers.
bool KernelMayOpen(const HandlerContext& context, const OpenRequest& request,
                   const std::string& resolved) {
  if (KernelMakesFileCalls(context)) return true;
  if ((request.flags & O_PATH) != 0) {
    return !request.flags_in_memory && !config::HidesOrDeniesFiles(*context.sandbox.policy);
  }
  if (!Writes(request.flags) || (request.flags & __O_TMPFILE) == __O_TMPFILE) return false;
  const std::vector<std::string>& trees = context.sandbox.kernel_write_trees;
  return std::any_of(trees.begin(), trees.end(),
                     [&](const std::string& tree) { return config::IsBeneath(resolved, tree); });
}

// `acting`: the workload's credentials if the caller took them to resolve
// the path (kept for the reopen), else empty.
Result<Verdict> OpenExisting(HandlerContext& context, const ThreadStatus& thread,
                             const std::string& root_path, WalkedFile walked,
                             const OpenRequest& request, std::optional<ActingAs>& acting) {
  Result<std::string> resolved = NameInRoot(walked, root_path);
  UniqueFd file = std::move(walked.file);
  if (!resolved) return Failed(resolved.error(), Decision::kDeny);
  AuditResolved(context, *resolved);
  if ((request.flags & O_CREAT) && (request.flags & O_EXCL))
    return Verdict::Fail(EEXIST, Decision::kAllow);
  const config::FileAccess access = AccessFor(context, *resolved);
  if (int refused = Refusal(access, Writes(request.flags)))
    return Verdict::Fail(refused, Decision::kDeny);
  if (KernelMayOpen(context, request, *resolved)) return Verdict::Continue();
  struct stat st {};
  if (::fstat(file.Get(), &st) != 0) return Verdict::Fail(errno, Decision::kAllow);
  if (S_ISLNK(st.st_mode)) return Verdict::Fail(ELOOP, Decision::kAllow);  // O_NOFOLLOW on a link
  // O_CREAT never opens a directory, whatever the access mode.
  if ((request.flags & O_CREAT) && S_ISDIR(st.st_mode)) {
    return Verdict::Fail(EISDIR, Decision::kAllow);
  }
  // The sentry is not in the container's device cgroup: it opens a device
  // only for the accesses that cgroup grants (O_PATH opens no device, and
  // the kernel does not ask).
  if ((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && (request.flags & O_PATH) == 0 &&
      !context.sandbox.device_allowed(st.st_mode & S_IFMT, st.st_rdev,
                                      DeviceAccess(request.flags))) {
    return Verdict::Fail(EPERM, Decision::kDeny);
  }
  if (S_ISREG(st.st_mode) && ProcViewOf(*resolved) != ProcView::kNone) {
    acting.reset();  // the view is the sentry's own work, not the workload's
    if (Result<void> own = ActingAs::AsSentry(); !own)
      return Failed(own.error(), Decision::kEmulate);
    if (std::optional<Verdict> view = OpenProcView(context, *resolved, file.Get(), request)) {
      return std::move(*view);
    }
  }
  ASSIGN_OR_RETURN(UniqueFd opened, Reopen(context, thread, file.Get(), request.flags, request.mode,
                                           S_ISFIFO(st.st_mode), acting));
  return Verdict::InstallFd(std::move(opened), (request.flags & O_CLOEXEC) != 0, Decision::kAllow);
}

// How many dangling symlinks an O_CREAT follows before ELOOP, as the
// kernel's MAXSYMLINKS.
constexpr int kMaxSymlinks = 40;

// `path`: walked with `walk` (its path or a dangling symlink's target).
// The caller acts as the workload (`acting`). `hops`: dangling symlinks
// followed so far.
Result<Verdict> CreateNew(HandlerContext& context, const ThreadStatus& thread, const OpenWalk& walk,
                          const std::string& root_path, const std::string& path,
                          const OpenRequest& request, std::optional<ActingAs>& acting,
                          int hops = 0) {
  const std::string parent = ParentOf(path);
  const std::string name = LastComponentOf(path);
  if (name.empty() || name == "." || name == "..") return Verdict::Fail(EISDIR, Decision::kAllow);
  ASSIGN_OR_RETURN(UniqueFd directory, walk.Open(parent, O_PATH | O_DIRECTORY));
  Result<std::string> where = PathInRoot(directory.Get(), root_path);
  if (!where) return Failed(where.error(), Decision::kDeny);
  const std::string target = *where == "/" ? "/" + name : *where + "/" + name;
  AuditResolved(context, target);
  const config::FileAccess access = AccessFor(context, target);
  if (int refused = Refusal(access, /*write=*/true)) return Verdict::Fail(refused, Decision::kDeny);
  if (KernelMayOpen(context, request, target)) return Verdict::Continue();
  // By name in the verified parent, never through a symlink planted since;
  // exclusively, so that a file the workload cannot take is the sentry's
  // to remove again (Verdict::undo).
  UniqueFd created(::openat(directory.Get(), name.c_str(),
                            request.flags | O_EXCL | O_NOFOLLOW | O_CLOEXEC, request.mode));
  if (!created && errno == EEXIST && (request.flags & O_EXCL) == 0) {
    struct stat st {};
    if (::fstatat(directory.Get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      errno = ELOOP;  // a dangling symlink, followed below as O_CREAT does
    } else {
      // Made since the walk: opened as the file it now is.
      ASSIGN_OR_RETURN(UniqueFd existing, walk.Open(path, O_PATH | O_NOFOLLOW));
      return OpenExisting(context, thread, root_path, WalkedFile{std::move(existing), {}}, request,
                          acting);
    }
  }
  if (!created && errno == ELOOP && (request.flags & (O_EXCL | O_NOFOLLOW)) == 0 &&
      (request.resolve & RESOLVE_NO_SYMLINKS) == 0) {
    // The name is a dangling symlink, and O_CREAT without O_EXCL creates
    // what it points to: that path, decided and created here in its turn
    // (resolved again with the same walk, so the link cannot lead out of
    // the root, nor out of a dirfd that openat2 scoped the walk to).
    std::vector<char> text(PATH_MAX);
    const ssize_t n = ::readlinkat(directory.Get(), name.c_str(), text.data(), text.size());
    if (n <= 0 || static_cast<std::size_t>(n) >= text.size() || hops + 1 >= kMaxSymlinks) {
      return Verdict::Fail(ELOOP, Decision::kAllow);
    }
    const std::string link(text.data(), static_cast<std::size_t>(n));
    // Relative to the link's directory: its path in the container for a
    // walk from the root, the path as walked for a walk from a dirfd.
    const std::string& from = walk.from_root ? *where : parent;
    const std::string next = link.starts_with('/') ? link
                             : from == "/"         ? "/" + link
                                                   : from + "/" + link;
    Result<UniqueFd> existing = walk.Open(next, O_PATH);
    if (existing) {
      // Created since: opened as the file it now is.
      return OpenExisting(context, thread, root_path, WalkedFile{std::move(*existing), {}}, request,
                          acting);
    }
    if (existing.error().code != ENOENT) return Failed(existing.error(), Decision::kAllow);
    return CreateNew(context, thread, walk, root_path, next, request, acting, hops + 1);
  }
  if (!created) return Verdict::Fail(errno, Decision::kAllow);
  Verdict verdict =
      Verdict::InstallFd(std::move(created), (request.flags & O_CLOEXEC) != 0, Decision::kAllow);
  verdict.undo = [parent = std::make_shared<UniqueFd>(std::move(directory)), name] {
    ::unlinkat(parent->Get(), name.c_str(), 0);
  };
  return verdict;
}

}  // namespace

Result<Verdict> HandleOpen(HandlerContext& context) {
  ASSIGN_OR_RETURN(const OpenRequest request, RequestOf(context));
  ASSIGN_OR_RETURN(const std::string given, CopyPath(context.tracee, request.path));
  context.AuditArg("path", given);
  char flags[16];
  std::snprintf(flags, sizeof flags, "0%o", static_cast<unsigned>(request.flags));
  context.AuditArg("flags", flags);
  if (!context.tracee.Valid()) return Verdict::Stale();
  ASSIGN_OR_RETURN(const ThreadStatus thread, context.tracee.Status());
  ASSIGN_OR_RETURN(const SharedFd root, context.tracee.Root());
  ASSIGN_OR_RETURN(OpenWalk walk, PlanOpenWalk(context.tracee, thread, root, request.dirfd, given,
                                               request.resolve));

  ASSIGN_OR_RETURN(const std::string root_path, context.tracee.RootPath());
  std::optional<ActingAs> acting;
  // The caller's own descriptors, working directory, root, executable and
  // namespaces by their /proc names: magic links, which openat2's resolve flags other
  // than RESOLVE_CACHED forbid or confine (the walk then refuses them with
  // ELOOP or EXDEV, as the kernel would).
  if (walk.from_root && (request.resolve & ~RESOLVE_CACHED) == 0) {
    if (std::optional<int> own = OwnDescriptor(walk.path, thread)) {
      ASSIGN_OR_RETURN(UniqueFd file, context.tracee.Descriptor(*own));
      return OpenExisting(context, thread, root_path, WalkedFile{std::move(file), {}}, request,
                          acting);
    }
    ASSIGN_OR_RETURN(
        std::optional<OwnLinkTarget> own_link,
        FollowOwnLink(context.tracee, thread, walk.path, (request.flags & O_NOFOLLOW) == 0));
    if (own_link && own_link->file) {
      return OpenExisting(context, thread, root_path,
                          WalkedFile{std::move(own_link->file), std::move(own_link->decided_as)},
                          request, acting);
    }
    if (own_link) walk.path = std::move(own_link->path);
  }

  // Held from resolving to reopening or creating: nothing between waits.
  ASSIGN_OR_RETURN(ActingAs begun, ActingAs::Begin(thread, context.sandbox.user_namespace));
  acting.emplace(std::move(begun));
  const int follow = request.flags & (O_NOFOLLOW | O_DIRECTORY);
  ASSIGN_OR_RETURN(const bool chrooted, context.tracee.Chrooted());
  Result<WalkedFile> file = WalkNaming(
      walk.path, walk.from_root && !chrooted,
      [&](std::uint64_t narrowing) { return walk.Open(walk.path, O_PATH | follow, narrowing); });
  if (file) return OpenExisting(context, thread, root_path, std::move(*file), request, acting);
  if (file.error().code == ENOENT && (request.flags & O_CREAT)) {
    return CreateNew(context, thread, walk, root_path, walk.path, request, acting);
  }
  Result<std::string> named = ContainerPath(context.tracee, thread, request.dirfd, given);
  return named ? FailedLookup(context, file.error(), *named)
               : Failed(file.error(), Decision::kAllow);
}

}  // namespace vigil::sentry
