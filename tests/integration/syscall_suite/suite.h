// The syscall suite: a static program (copied into a busybox rootfs at
// /suite) that exercises each syscall the sentry mediates, and the variants
// that matter (O_EXCL on an existing file, a dangling symlink, "..", a bad
// pointer, an unprivileged caller ...), printing one `NAME: result` line per
// case. The integration test runs it under runc and under vigil and compares
// the lines: the same program must see the same kernel, sandboxed or not.
//
// A result holds nothing that varies between runs: no descriptor numbers,
// inode numbers, ports or times (only whether a time changed as asked).
// Every syscall is made with syscall(2), so each form (open, openat, creat,
// stat, newfstatat, statx ...) is the one exercised, not whatever libc picks.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace vigil::syscall_suite {

// A file on the container's read-only root that the host does not have:
// the suite itself. Cases that try to change the read-only root name it, so
// that a sentry resolving a path in the wrong root fails the comparison
// (ENOENT) instead of changing the host's files.
inline constexpr char kOnlyInTheContainer[] = "/suite";

// One case: its name and what it does, returning the text after "NAME: ".
struct Case {
  std::string name;
  std::function<std::string()> run;
};

// The case tables, one per family, in the order they run. Each family works
// in its own directory under /tmp/suite, made by its first case.
std::vector<Case> OpenCases();
std::vector<Case> Openat2Cases();
std::vector<Case> StatCases();
std::vector<Case> AccessCases();
std::vector<Case> NameCases();
std::vector<Case> AttributeCases();
std::vector<Case> XattrCases();
std::vector<Case> SystemCases();
std::vector<Case> NetworkCases();
std::vector<Case> FidelityCases();
std::vector<Case> LimitCases();
std::vector<Case> MessageCases();
std::vector<Case> DeputyCases();

// A family's fixture: /tmp/suite/NAME holding
//   file     "hello\n", 0644       secret   "s", 0600
//   exec     0755                  dir/     0755, holding inner ("i")
//   link     -> file               dangling -> missing
//   dirlink  -> dir
// and the process's working directory moved there. Returns "0" or why not.
std::string MakeFixture(const std::string& name);

// A syscall's return value as text: "0" (or the value), or "-1 ENAME".
// Read errno right after the call: pass the result straight in.
std::string Rc(long rc);

// For calls returning a descriptor: "fd" (closing it) or "-1 ENAME".
std::string Fd(long rc);

// "fd" plus what the descriptor shows: its type and mode, and up to 16
// bytes read from it (for a file) — proof it is the file asked for. Closes
// it; "-1 ENAME" for a failed call.
std::string Described(long rc);

// The parts joined with spaces. The parts of a braced list are evaluated
// in order, the operands of + are not: a case that calls, then looks at the
// result, writes Line({Rc(call()), LstatOf(path)}).
std::string Line(std::initializer_list<std::string> parts);

// The symbolic name of an errno value ("EEXIST"), or its number.
std::string ErrnoName(int error);

// The fields of a stat that do not vary between runs.
std::string StatText(const struct stat& st);

// lstat(2) of `path` as StatText, or "-1 ENAME".
std::string LstatOf(const char* path);

// The first `limit` bytes of `path`, or "-1 ENAME".
std::string ContentOf(const char* path, std::size_t limit = 64);

// With a descriptor opened on `path` (openat, raw, so the libc adds no
// flags): `body(fd)`'s line, or "open -1 ENAME".
template <typename Body>
std::string WithFd(const char* path, int flags, Body body) {
  const int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC));
  if (fd < 0) return "open " + Rc(-1);
  std::string text = body(fd);
  ::close(fd);
  return text;
}

// Runs `body` in a forked child (for cases that change the process: its
// limits, umask, signal handlers), returning what it returned.
std::string InChild(const std::function<std::string()>& body);

// Runs `body` in a forked child whose real, effective and saved ids are
// uid/gid (no supplementary groups), returning what it returned. An id of
// 0 keeps root for that slot, so ruid and euid can differ.
std::string AsUser(uid_t ruid, uid_t euid, gid_t gid, const std::function<std::string()>& body);

// A path longer than PATH_MAX, and one whose single component is longer
// than NAME_MAX.
const char* PathTooLong();
const char* NameTooLong();

// An address that is never mapped, for EFAULT.
inline void* const kBadPointer = reinterpret_cast<void*>(8);

}  // namespace vigil::syscall_suite
