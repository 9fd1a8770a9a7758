#include "sentry/handlers/acting_as.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "base/log.h"
#include "base/strings.h"

namespace vigil::sentry {
namespace {

// The kernel's overflow uid (/proc/sys/kernel/overflowuid), "nobody".
constexpr uid_t kOutsiderUid = 65534;

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

// Raw setresuid, changing the effective uid alone (glibc's wrapper would
// signal every thread to follow).
Result<void> SetEffectiveUid(uid_t euid) {
  if (::syscall(SYS_setresuid, static_cast<uid_t>(-1), euid, static_cast<uid_t>(-1)) != 0) {
    return FailErrno("setresuid");
  }
  return {};
}

// Raw setgroups: glibc's wrapper would signal every thread to follow.
Result<void> SetGroups(const std::vector<gid_t>& groups) {
  if (::syscall(SYS_setgroups, groups.size(), groups.data()) != 0) return FailErrno("setgroups");
  return {};
}

// The supervisor's own credentials, read once: nothing but ActingAs
// changes them, and it always puts them back.
struct OwnIdentity {
  CapSets caps;
  std::vector<gid_t> groups;
  uid_t fsuid = 0;
  gid_t fsgid = 0;
  mode_t umask = 0;
  uid_t euid = 0;
};

Result<OwnIdentity> ReadOwnIdentity() {
  OwnIdentity own;
  ASSIGN_OR_RETURN(own.caps, GetCaps());
  int count = ::getgroups(0, nullptr);
  if (count < 0) return FailErrno("getgroups");
  own.groups.resize(static_cast<std::size_t>(count));
  if (::getgroups(count, own.groups.data()) < 0) return FailErrno("getgroups");
  own.fsuid = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1)));
  own.fsgid = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1)));
  own.euid = ::geteuid();
  own.umask = ::umask(0);
  ::umask(own.umask);
  return own;
}

const Result<OwnIdentity>& Own() {
  static const Result<OwnIdentity> own = ReadOwnIdentity();
  return own;
}

}  // namespace

Result<ActingAs> ActingAs::Begin(const ThreadStatus& thread, bool in_user_namespace) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  ActingAs acting;
  acting.active_ = true;  // from here the destructor restores
  if (thread.umask != own->umask) {
    ::umask(thread.umask);
    acting.umask_changed_ = true;
  }
  if (thread.groups != own->groups) {
    RETURN_IF_ERROR(SetGroups(thread.groups));
    acting.groups_changed_ = true;
  }
  if (thread.fsuid != own->fsuid || thread.fsgid != own->fsgid) {
    acting.ids_changed_ = true;
    ::setfsgid(thread.fsgid);
    ::setfsuid(thread.fsuid);
    // setfsuid(2) reports no failure: ask for the ids back.
    if (static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1))) != thread.fsuid ||
        static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1))) != thread.fsgid) {
      return Fail("could not take the workload's filesystem ids");
    }
  }
  // Only capabilities the workload holds too; none from another namespace.
  const std::uint64_t effective =
      in_user_namespace ? 0 : (thread.cap_effective & own->caps.permitted);
  if (effective != own->caps.effective) {
    RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
    acting.caps_changed_ = true;
  }
  return acting;
}

Result<ActingAs> ActingAs::WithEffective(std::uint64_t keep, std::uint64_t take,
                                         bool outsider_euid) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  ActingAs acting;
  acting.active_ = true;
  if (outsider_euid) {
    // The overflow uid owns no namespace. Leaving uid 0 clears the
    // effective set (capabilities(7)); the destructor sets both back.
    RETURN_IF_ERROR(SetEffectiveUid(kOutsiderUid));
    acting.euid_changed_ = true;
    acting.ids_changed_ = true;  // setresuid moved the fsuid along
  }
  const std::uint64_t effective = (own->caps.effective & keep) | (own->caps.permitted & take);
  RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
  acting.caps_changed_ = true;
  return acting;
}

Result<ActingAs> ActingAs::WithoutNetworkAdmin(bool over_user_namespace) {
  return WithEffective(~(std::uint64_t{1} << CAP_NET_ADMIN), 0, over_user_namespace);
}

Result<ActingAs> ActingAs::ForBind(const ThreadStatus& thread, bool over_user_namespace,
                                   bool capabilities_count) {
  constexpr std::uint64_t kBindCapabilities =
      (std::uint64_t{1} << CAP_NET_BIND_SERVICE) | (std::uint64_t{1} << CAP_NET_ADMIN);
  const std::uint64_t take = capabilities_count ? (thread.cap_effective & kBindCapabilities) : 0;
  return WithEffective(0, take, over_user_namespace);
}

ActingAs::ActingAs(ActingAs&& other) noexcept
    : active_(std::exchange(other.active_, false)),
      umask_changed_(other.umask_changed_),
      groups_changed_(other.groups_changed_),
      ids_changed_(other.ids_changed_),
      caps_changed_(other.caps_changed_),
      euid_changed_(other.euid_changed_) {}

ActingAs::~ActingAs() {
  if (!active_) return;
  const OwnIdentity& own = *Own();  // Begin checked it
  // The euid first (its own saved uid, no capability needed), then the
  // capabilities: setting ids and groups back needs them.
  Result<void> restored = euid_changed_ ? SetEffectiveUid(own.euid) : Result<void>();
  if (restored && caps_changed_) restored = SetCaps(own.caps);
  if (ids_changed_) {
    ::setfsuid(own.fsuid);
    ::setfsgid(own.fsgid);
  }
  if (umask_changed_) ::umask(own.umask);
  if (restored && groups_changed_) restored = SetGroups(own.groups);
  if (!restored) {
    // The supervisor must not go on with a workload's identity.
    log::Error(StrCat("the sentry could not restore its credentials: ", restored.error().message));
    ::_exit(125);
  }
}

}  // namespace vigil::sentry
