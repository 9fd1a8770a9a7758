#include "sentry/serve/known_threads.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>

#include "base/strings.h"
#include "base/syscalls.h"
#include "sentry/core/acting_as.h"

namespace vigil::sentry {
namespace {

// personality(2)'s query: it changes nothing.
constexpr std::uint32_t kPersonalityQuery = 0xffffffff;

bool Exited(int pidfd) {
  pollfd ready{.fd = pidfd, .events = POLLIN};
  return ::poll(&ready, 1, 0) != 0;  // an error counts as gone too
}

// A ptrace access check (ActingAs::AsHeldThenAsSentry).
Result<UniqueFd> OpenMemory(pid_t tid) {
  return ActingAs::AsHeldThenAsSentry([tid]() -> Result<UniqueFd> {
    UniqueFd memory(::open(StrCat("/proc/", tid, "/mem").c_str(), O_RDWR | O_CLOEXEC));
    if (!memory) return FailErrno(StrCat("open the memory of thread ", tid));
    return memory;
  });
}

}  // namespace

Result<void> KnownThread::ReopenMemory(const StillWaiting& still_waiting) {
  ASSIGN_OR_RETURN(UniqueFd reopened, OpenMemory(tid));
  if (!still_waiting()) return FailErrno(ENOENT, "the syscall no longer waits");
  memory = std::move(reopened);
  return {};
}

KnownThreads::~KnownThreads() { ForgetAll(); }

std::size_t KnownThreads::DefaultCapacity() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return 64;
  return std::clamp<std::size_t>(files.rlim_cur / 4, 16, 4096);
}

Result<std::shared_ptr<KnownThread>> KnownThreads::Find(pid_t tid,
                                                        const StillWaiting& still_waiting) {
  if (auto it = threads_.find(tid); it != threads_.end()) {
    if (!Exited(it->second->pidfd.Get())) return it->second;
    Forget(tid);
  }
  auto thread = std::make_shared<KnownThread>(tid);
  Result<UniqueFd> pidfd = PidfdOpenThread(tid);
  if (!pidfd) {
    if (pidfd.error().code == ESRCH) return FailErrno(ENOENT, "the syscall no longer waits");
    return tl::unexpected(pidfd.error());
  }
  thread->pidfd = std::move(*pidfd);
  ASSIGN_OR_RETURN(thread->memory, OpenMemory(tid));
  // Both opened before this check: they are the notifying thread's.
  if (!still_waiting()) return FailErrno(ENOENT, "the syscall no longer waits");
  if (threads_.size() < capacity_ &&
      loop_.Watch(thread->pidfd.Get(), [this, tid](std::uint32_t) { Forget(tid); })) {
    threads_.emplace(tid, thread);
  }
  return thread;
}

void KnownThreads::Observe(Changes changes, const SyscallEvent& event) {
  switch (changes) {
    case Changes::kNothing:
      break;
    case Changes::kProcess:
      // The exec'ing thread may take its leader's tid and kills its
      // siblings; a vfork parent shares the mm it leaves. Forgetting
      // everything is simplest, and execs are rare next to other calls.
      ForgetAll();
      break;
    case Changes::kCredentials:
      if (auto it = threads_.find(event.tid); it != threads_.end()) it->second->status.reset();
      break;
    case Changes::kRoot:
      // Every thread sharing the caller's filesystem context moves with it.
      for (auto& [tid, thread] : threads_) {
        thread->root = {};  // a handler still using it keeps its own share
        thread->root_path.clear();
      }
      break;
    case Changes::kPersonality:
      if (static_cast<std::uint32_t>(event.args[0]) != kPersonalityQuery) {
        personality_may_differ_ = true;
      }
      break;
  }
}

void KnownThreads::Forget(pid_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  loop_.Unwatch(it->second->pidfd.Get());
  threads_.erase(it);
}

void KnownThreads::ForgetAll() {
  for (auto& [tid, thread] : threads_) loop_.Unwatch(thread->pidfd.Get());
  threads_.clear();
}

}  // namespace vigil::sentry
