#include "sentry/handlers/acting_as.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <optional>
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

// The supervisor's own credentials, read once: every thread starts with
// them, and nothing but ActingAs changes them.
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

// A workload's credentials this thread kept after its ActingAs ended.
struct Held {
  std::uint64_t effective = 0;
  std::vector<gid_t> groups;
  uid_t fsuid = 0;
  gid_t fsgid = 0;
};

// Per thread, as the credentials are: what this thread holds (empty: its
// own), and whether an ActingAs of its lives.
thread_local std::optional<Held> held;
thread_local bool acting_now = false;

[[noreturn]] void DieWithoutOwnCredentials(const Error& error) {
  // The supervisor must not go on with a workload's identity.
  log::Error(StrCat("the sentry could not restore its credentials: ", error.message));
  ::_exit(125);
}

// The euid first (its own saved uid, no capability needed), then the
// capabilities: setting ids and groups back needs them. Setting the fsuid
// back to 0 raises the filesystem capabilities in the effective set, so
// that is set once more after it.
void RestoreOwnOrDie(const OwnIdentity& own, bool euid_changed) {
  Result<void> restored = euid_changed ? SetEffectiveUid(own.euid) : Result<void>();
  if (restored) restored = SetCaps(own.caps);
  const bool ids_changed =
      euid_changed || (held && (held->fsuid != own.fsuid || held->fsgid != own.fsgid));
  if (restored && ids_changed) {
    ::setfsuid(own.fsuid);
    ::setfsgid(own.fsgid);
    restored = SetCaps(own.caps);
  }
  if (restored && held && held->groups != own.groups) restored = SetGroups(own.groups);
  if (!restored) DieWithoutOwnCredentials(restored.error());
  held.reset();
}

}  // namespace

Result<ActingAs> ActingAs::Begin(const ThreadStatus& thread, bool in_user_namespace) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  if (acting_now) return Fail("the sentry acts as a workload thread already");
  ActingAs acting;
  acting.active_ = true;  // from here the destructor ends it
  acting_now = true;
  if (thread.umask != own->umask) {
    ::umask(thread.umask);
    acting.umask_changed_ = true;
  }
  Held now = held ? *held : Held{own->caps.effective, own->groups, own->fsuid, own->fsgid};
  const bool groups_differ = thread.groups != now.groups;
  const bool ids_differ = thread.fsuid != now.fsuid || thread.fsgid != now.fsgid;
  // Changing groups and ids needs CAP_SETGID and CAP_SETUID, which a held
  // workload's set may lack.
  if ((groups_differ || ids_differ) && now.effective != own->caps.effective) {
    RETURN_IF_ERROR(SetCaps(own->caps));
    now.effective = own->caps.effective;
    held = now;
  }
  if (groups_differ) {
    RETURN_IF_ERROR(SetGroups(thread.groups));
    now.groups = thread.groups;
    held = now;
  }
  if (ids_differ) {
    ::setfsgid(thread.fsgid);
    ::setfsuid(thread.fsuid);
    // setfsuid(2) reports no failure: ask for the ids back. It may also
    // have changed the effective set (capabilities(7)), set below.
    now.fsuid = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1)));
    now.fsgid = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1)));
    now.effective = ~std::uint64_t{0};
    held = now;
    if (now.fsuid != thread.fsuid || now.fsgid != thread.fsgid) {
      return Fail("could not take the workload's filesystem ids");
    }
  }
  // Only capabilities the workload holds too; none from another namespace.
  const std::uint64_t effective =
      in_user_namespace ? 0 : (thread.cap_effective & own->caps.permitted);
  if (effective != now.effective) {
    RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
    now.effective = effective;
    held = now;
  }
  return acting;
}

Result<void> ActingAs::AsSentry() {
  if (acting_now) {
    return Fail("the sentry's own credentials were asked for while it acts as a workload thread");
  }
  if (!held) return {};
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  RestoreOwnOrDie(*own, /*euid_changed=*/false);
  return {};
}

bool ActingAs::HoldsWorkloadCredentials() { return held.has_value(); }

void ActingAs::AsSentryOrExit() {
  if (Result<void> own = AsSentry(); !own) DieWithoutOwnCredentials(own.error());
}

Result<ActingAs> ActingAs::WithEffective(std::uint64_t keep, std::uint64_t take,
                                         bool outsider_euid) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  RETURN_IF_ERROR(AsSentry());
  ActingAs acting;
  acting.active_ = true;
  acting.restore_on_end_ = true;
  acting_now = true;
  if (outsider_euid) {
    // The overflow uid owns no namespace. Leaving uid 0 clears the
    // effective set (capabilities(7)); the destructor sets both back.
    RETURN_IF_ERROR(SetEffectiveUid(kOutsiderUid));
    acting.euid_changed_ = true;
  }
  const std::uint64_t effective = (own->caps.effective & keep) | (own->caps.permitted & take);
  RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
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
      restore_on_end_(other.restore_on_end_),
      euid_changed_(other.euid_changed_) {}

ActingAs::~ActingAs() {
  if (!active_) return;
  acting_now = false;
  const OwnIdentity& own = *Own();  // Begin checked it
  if (umask_changed_) ::umask(own.umask);
  if (restore_on_end_) {
    // It changed the capabilities, and with the euid the filesystem ids.
    held = Held{.effective = 0, .groups = own.groups, .fsuid = own.fsuid, .fsgid = own.fsgid};
    RestoreOwnOrDie(own, euid_changed_);
  }
}

}  // namespace vigil::sentry
