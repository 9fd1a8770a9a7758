#include "sentry/handlers/acting_as.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

#include "base/log.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

struct CapSets {
  std::uint64_t effective = 0, permitted = 0, inheritable = 0;
};

Result<CapSets> GetCaps() {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return FailErrno("capget");
  auto join = [](std::uint32_t low, std::uint32_t high) {
    return static_cast<std::uint64_t>(low) | (static_cast<std::uint64_t>(high) << 32);
  };
  return CapSets{join(data[0].effective, data[1].effective),
                 join(data[0].permitted, data[1].permitted),
                 join(data[0].inheritable, data[1].inheritable)};
}

Result<void> SetCaps(const CapSets& caps) {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  __user_cap_data_struct data[2] = {};
  data[0] = {static_cast<std::uint32_t>(caps.effective), static_cast<std::uint32_t>(caps.permitted),
             static_cast<std::uint32_t>(caps.inheritable)};
  data[1] = {static_cast<std::uint32_t>(caps.effective >> 32),
             static_cast<std::uint32_t>(caps.permitted >> 32),
             static_cast<std::uint32_t>(caps.inheritable >> 32)};
  if (::syscall(SYS_capset, &header, data) != 0) return FailErrno("capset");
  return {};
}

// Raw setgroups: glibc's wrapper would signal every thread to follow.
Result<void> SetGroups(const std::vector<gid_t>& groups) {
  if (::syscall(SYS_setgroups, groups.size(), groups.data()) != 0) return FailErrno("setgroups");
  return {};
}

}  // namespace

Result<ActingAs> ActingAs::Begin(const ThreadStatus& thread, bool in_user_namespace) {
  ActingAs acting;
  ASSIGN_OR_RETURN(CapSets caps, GetCaps());
  acting.effective_ = caps.effective;
  acting.permitted_ = caps.permitted;
  acting.inheritable_ = caps.inheritable;
  int count = ::getgroups(0, nullptr);
  if (count < 0) return FailErrno("getgroups");
  acting.groups_.resize(static_cast<std::size_t>(count));
  if (::getgroups(count, acting.groups_.data()) < 0) return FailErrno("getgroups");
  acting.fsuid_ = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1)));
  acting.fsgid_ = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1)));
  acting.umask_ = ::umask(thread.umask);
  acting.active_ = true;  // from here the destructor restores
  RETURN_IF_ERROR(SetGroups(thread.groups));
  ::setfsgid(thread.fsgid);
  ::setfsuid(thread.fsuid);
  if (static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1))) != thread.fsuid ||
      static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1))) != thread.fsgid) {
    return Fail("could not take the workload's filesystem ids");
  }
  // Only capabilities the workload holds too; none from another namespace.
  const std::uint64_t effective = in_user_namespace ? 0 : (thread.cap_effective & caps.permitted);
  RETURN_IF_ERROR(SetCaps({effective, caps.permitted, caps.inheritable}));
  return acting;
}

ActingAs::ActingAs(ActingAs&& other) noexcept
    : active_(std::exchange(other.active_, false)),
      groups_(std::move(other.groups_)),
      effective_(other.effective_),
      permitted_(other.permitted_),
      inheritable_(other.inheritable_),
      umask_(other.umask_),
      fsuid_(other.fsuid_),
      fsgid_(other.fsgid_) {}

ActingAs::~ActingAs() {
  if (!active_) return;
  // Capabilities first: setting ids and groups back needs them.
  Result<void> restored = SetCaps({effective_, permitted_, inheritable_});
  ::setfsuid(fsuid_);
  ::setfsgid(fsgid_);
  ::umask(umask_);
  if (restored) restored = SetGroups(groups_);
  if (!restored) {
    // The supervisor must not go on with a workload's identity.
    log::Error(StrCat("the sentry could not restore its credentials: ", restored.error().message));
    ::_exit(125);
  }
}

}  // namespace vigil::sentry
