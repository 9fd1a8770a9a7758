#include "sentry/notify/unotify.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"

// Linux 6.6; Debian 12's 6.1 headers lack it.
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

namespace vigil::sentry::unotify {

Result<void> CheckKernelSupport() {
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    return FailErrno("the kernel lacks seccomp user notification (Linux 5.0 or later needed)");
  }
  if (sizes.seccomp_notif > sizeof(seccomp_notif) ||
      sizes.seccomp_notif_resp > sizeof(seccomp_notif_resp)) {
    return Fail(StrCat("the kernel's seccomp notification is ", sizes.seccomp_notif,
                       " bytes, larger than the ", sizeof(seccomp_notif), " this build knows"));
  }
  return {};
}

Result<void> EnableSyncWakeUp(int listener) {
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) != 0) {
    return FailErrno("set SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6 or later)");
  }
  return {};
}

Result<Notification> Receive(int listener) {
  seccomp_notif notif;
  for (;;) {
    std::memset(&notif, 0, sizeof notif);  // the kernel insists
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notif) == 0) break;
    if (errno != EINTR) return FailErrno("receive a seccomp notification");
  }
  Notification n{.id = notif.id};
  n.event.tid = static_cast<pid_t>(notif.pid);
  n.event.number = notif.data.nr;
  for (std::size_t i = 0; i < n.event.args.size(); ++i) n.event.args[i] = notif.data.args[i];
  return n;
}

bool IdValid(int listener, std::uint64_t id) {
  return ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

Result<void> Respond(int listener, std::uint64_t id, std::int64_t value, int error) {
  seccomp_notif_resp resp{.id = id, .val = error == 0 ? value : 0, .error = -error, .flags = 0};
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0 || errno == ENOENT) return {};
  return FailErrno("answer a seccomp notification");
}

Result<void> RespondContinue(int listener, std::uint64_t id) {
  seccomp_notif_resp resp{
      .id = id, .val = 0, .error = 0, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0 || errno == ENOENT) return {};
  return FailErrno("let a notified syscall continue");
}

Result<int> AddFdAndRespond(int listener, std::uint64_t id, int fd, bool cloexec) {
  seccomp_notif_addfd addfd{.id = id,
                            .flags = SECCOMP_ADDFD_FLAG_SEND,
                            .srcfd = static_cast<__u32>(fd),
                            .newfd = 0,
                            .newfd_flags = cloexec ? static_cast<__u32>(O_CLOEXEC) : 0u};
  int installed = ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
  if (installed < 0) return FailErrno("install a descriptor in the workload");
  return installed;
}

}  // namespace vigil::sentry::unotify
