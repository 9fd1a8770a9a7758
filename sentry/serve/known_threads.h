// What the sentry keeps about each workload thread between its syscalls, so
// that a notification from a thread it knows costs no /proc lookups: the
// thread's memory, credentials and root are opened or read once and kept
// until something the thread does could change them.
//
// Why a kept entry still belongs to the thread that notifies:
//  - Identity. A thread's pidfd (PIDFD_THREAD) is checked on every use; it
//    reads as exited once that thread is gone, so a reused tid never meets
//    the previous owner's entry. A new entry is checked against the
//    syscall after it is opened (docs/design.md, rule 3).
//  - Memory. /proc/TID/mem pins the mm it was opened on. Only exec replaces
//    a thread's mm: exec is observed (everything is forgotten before it is
//    let through), and a read from an mm that died since answers 0 bytes,
//    upon which the memory is opened again.
//  - Credentials and root. Only the thread's own syscalls change them
//    (setuid family, capset, umask, chroot, exec — the others that could,
//    unshare and setns, are denied); each is observed and forgets what it
//    changes before it runs.
// What is left: a syscall racing with exec in a sibling thread can cache the
// pre-exec state, which then describes the same process as it was a moment
// earlier. Only that process's own earlier self can win that race, so it
// gains nothing it did not already have; and the memory it could reach is
// its own (or a CLONE_VM sibling's, inside the same container).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/thread_status.h"
#include "sentry/core/tracee.h"
#include "sentry/loop/event_loop.h"
#include "sentry/table/syscall_table.h"

namespace vigil::sentry {

// Whether the syscall being served still waits for its answer: the
// backend's anchor (a notification's id, a thread held in a ptrace stop).
using StillWaiting = std::function<bool()>;

struct KnownThread {
  explicit KnownThread(pid_t id) : tid(id) {}

  // Reopens /proc/TID/mem after the mm it held died (an exec), checked
  // against the syscall being served like the first open.
  Result<void> ReopenMemory(const StillWaiting& still_waiting);

  const pid_t tid;
  UniqueFd pidfd;                      // this thread's: readable once it has exited
  UniqueFd memory;                     // /proc/TID/mem
  std::optional<ThreadStatus> status;  // until its credentials change
  SharedFd root;                       // O_PATH, until a chroot; empty: not open yet
  std::string root_path;               // where `root` is, as the sentry sees it
  // For the audit log: its process and executable, read once.
  pid_t tgid = 0;
  std::optional<std::string> executable;
};

class KnownThreads {
 public:
  // At most `capacity` threads are kept (each holds two or three
  // descriptors); beyond that a notification's thread is opened for it
  // alone and closed after. By default a quarter of the descriptors the
  // process may open, up to 4096.
  explicit KnownThreads(EventLoop& loop, std::size_t capacity = DefaultCapacity())
      : loop_(loop), capacity_(capacity) {}
  KnownThreads(const KnownThreads&) = delete;
  KnownThreads& operator=(const KnownThreads&) = delete;
  ~KnownThreads();

  // Thread `tid`, which made the syscall being served. ENOENT when the
  // syscall no longer waits.
  Result<std::shared_ptr<KnownThread>> Find(pid_t tid, const StillWaiting& still_waiting);

  // Forgets what the syscall of `event` is about to change (handlers.def's
  // `changes` column for its handler); called before it is let through.
  void Observe(Changes changes, const SyscallEvent& event);

  // Whether any process of the container may run in an execution domain
  // other than PER_LINUX: then uname reads each caller's.
  bool personality_may_differ() const { return personality_may_differ_; }
  void AssumePersonalityMayDiffer() { personality_may_differ_ = true; }

  std::size_t size() const { return threads_.size(); }

 private:
  static std::size_t DefaultCapacity();
  void Forget(pid_t tid);
  void ForgetAll();

  EventLoop& loop_;
  std::size_t capacity_;
  std::unordered_map<pid_t, std::shared_ptr<KnownThread>> threads_;
  bool personality_may_differ_ = false;
};

}  // namespace vigil::sentry
