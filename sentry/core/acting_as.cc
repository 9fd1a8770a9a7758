#include "sentry/core/acting_as.h"

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

constexpr uid_t kUnchanged = static_cast<uid_t>(-1);

// Raw setresuid and setresgid, leaving the saved id alone (glibc's wrappers
// would signal every thread to follow). With the saved uid still 0, the
// uids can be set back without a capability.
Result<void> SetUids(uid_t ruid, uid_t euid) {
  if (::syscall(SYS_setresuid, ruid, euid, kUnchanged) != 0) return FailErrno("setresuid");
  return {};
}

Result<void> SetGids(gid_t rgid, gid_t egid) {
  if (::syscall(SYS_setresgid, rgid, egid, static_cast<gid_t>(-1)) != 0) {
    return FailErrno("setresgid");
  }
  return {};
}

// setfsuid(2) and setfsgid(2) report no failure: the ids are asked back.
Result<void> SetFilesystemIds(uid_t fsuid, gid_t fsgid) {
  ::setfsgid(fsgid);
  ::setfsuid(fsuid);
  if (static_cast<uid_t>(::setfsuid(kUnchanged)) != fsuid ||
      static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1))) != fsgid) {
    return Fail("could not take the workload's filesystem ids");
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
  uid_t ruid = 0, euid = 0;
  gid_t rgid = 0, egid = 0;
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
  own.ruid = ::getuid();
  own.euid = ::geteuid();
  own.rgid = ::getgid();
  own.egid = ::getegid();
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

  bool operator==(const Held&) const = default;
};

// Per thread, as the credentials are: what this thread holds (empty: its
// own), and whether an ActingAs of its lives.
thread_local std::optional<Held> held;
thread_local bool acting_now = false;

Held AsHeld(const OwnIdentity& own) {
  return {own.caps.effective, own.groups, own.fsuid, own.fsgid};
}

// The sentry's own, as Held, built once: Begin compares with it per call.
const Held& OwnHeld(const OwnIdentity& own) {
  static const Held own_held = AsHeld(own);
  return own_held;
}

// What the thread has now: nothing held when it is the sentry's own after
// all (a workload with every capability the sentry has, as root).
void Hold(const Held& now, const OwnIdentity& own) {
  if (now == OwnHeld(own)) {
    held.reset();
  } else {
    held = now;
  }
}

[[noreturn]] void DieWithoutOwnCredentials(const Error& error) {
  // The supervisor must not go on with a workload's identity.
  log::Error(StrCat("the sentry could not restore its credentials: ", error.message));
  ::_exit(125);
}

// What a Begin left, given back: the capabilities first, since setting
// ids and groups back needs them; setting the fsuid back to 0 raises the
// filesystem capabilities in the effective set, so that is set once more.
void RestoreHeldOrDie(const OwnIdentity& own) {
  Result<void> restored = SetCaps(own.caps);
  if (restored && (held->fsuid != own.fsuid || held->fsgid != own.fsgid)) {
    restored = SetFilesystemIds(own.fsuid, own.fsgid);
    if (restored) restored = SetCaps(own.caps);
  }
  if (restored && held->groups != own.groups) restored = SetGroups(own.groups);
  if (!restored) DieWithoutOwnCredentials(restored.error());
  held.reset();
}

// Everything back, for WithEffective and AsPeer (rare: no syscall is
// spared). The uids first, as the saved uid allows without a capability;
// back at euid 0 the kernel restores the effective set from the permitted.
// The groups only if they were changed: in a user namespace whose
// setgroups is denied (a user's own, rootless) setgroups always fails.
void RestoreEverythingOrDie(const OwnIdentity& own, bool uids_changed, bool groups_changed) {
  Result<void> restored = uids_changed ? SetUids(own.ruid, own.euid) : Result<void>();
  if (restored) restored = SetCaps(own.caps);
  if (restored) restored = SetGids(own.rgid, own.egid);
  if (restored && groups_changed) restored = SetGroups(own.groups);
  if (restored) restored = SetFilesystemIds(own.fsuid, own.fsgid);
  if (restored) restored = SetCaps(own.caps);
  if (!restored) DieWithoutOwnCredentials(restored.error());
  held.reset();
}

// The effective set a workload thread's acts get: only capabilities the
// sentry has too, and none from another user namespace.
std::uint64_t EffectiveFor(const ThreadStatus& thread, bool in_user_namespace,
                           const OwnIdentity& own) {
  return in_user_namespace ? 0 : (thread.cap_effective & own.caps.permitted);
}

}  // namespace

void ActingAs::TakeUmask(mode_t umask) {
  if (umask == Own()->umask) return;
  ::umask(umask);
  umask_changed_ = true;
}

Result<ActingAs> ActingAs::FromOwn() {
  RETURN_IF_ERROR(AsSentry());
  ActingAs acting;
  acting.active_ = true;
  acting.restore_on_end_ = true;
  acting_now = true;
  return acting;
}

Result<ActingAs> ActingAs::Begin(const ThreadStatus& thread, bool in_user_namespace) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  if (acting_now) return Fail("the sentry acts as a workload thread already");
  ActingAs acting;
  acting.active_ = true;  // from here the destructor ends it
  acting_now = true;
  acting.TakeUmask(thread.umask);
  const Held& current = held ? *held : OwnHeld(*own);
  const std::uint64_t effective = EffectiveFor(thread, in_user_namespace, *own);
  const bool groups_differ = thread.groups != current.groups;
  const bool ids_differ = thread.fsuid != current.fsuid || thread.fsgid != current.fsgid;
  // The common case, the same thread as last time: nothing to change.
  if (!groups_differ && !ids_differ && effective == current.effective) return acting;
  Held now = current;
  // Changing groups and ids needs CAP_SETGID and CAP_SETUID, which a held
  // workload's set may lack.
  if ((groups_differ || ids_differ) && now.effective != own->caps.effective) {
    RETURN_IF_ERROR(SetCaps(own->caps));
    now.effective = own->caps.effective;
    Hold(now, *own);
  }
  if (groups_differ) {
    RETURN_IF_ERROR(SetGroups(thread.groups));
    now.groups = thread.groups;
    Hold(now, *own);
  }
  if (ids_differ) {
    // Which may change the effective set (capabilities(7)): set below. If
    // it fails, which ids the thread has is not known: all are set back.
    now.fsuid = kUnchanged;
    now.effective = ~std::uint64_t{0};
    Hold(now, *own);
    RETURN_IF_ERROR(SetFilesystemIds(thread.fsuid, thread.fsgid));
    now.fsuid = thread.fsuid;
    now.fsgid = thread.fsgid;
    Hold(now, *own);
  }
  if (effective != now.effective) {
    RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
    now.effective = effective;
    Hold(now, *own);
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
  RestoreHeldOrDie(*own);
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
  ASSIGN_OR_RETURN(ActingAs acting, FromOwn());
  if (outsider_euid) {
    // The overflow uid owns no namespace. Leaving uid 0 clears the
    // effective set (capabilities(7)); the destructor sets both back.
    RETURN_IF_ERROR(SetUids(kUnchanged, kOutsiderUid));
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

Result<ActingAs> ActingAs::AsPeer(const ThreadStatus& thread, bool in_user_namespace,
                                  bool vouch_for_pid) {
  const Result<OwnIdentity>& own = Own();
  if (!own) return tl::unexpected(own.error());
  ASSIGN_OR_RETURN(ActingAs acting, FromOwn());
  acting.real_ids_changed_ = true;  // whatever fails below, all is set back
  acting.TakeUmask(thread.umask);
  if (thread.groups != own->groups) {
    acting.groups_changed_ = true;
    RETURN_IF_ERROR(SetGroups(thread.groups));
  }
  RETURN_IF_ERROR(SetGids(thread.rgid, thread.egid));
  RETURN_IF_ERROR(SetUids(thread.ruid, thread.euid));
  // Leaving uid 0 cleared the effective set but not the permitted one (the
  // saved uid is still 0): raised again to set the filesystem ids.
  RETURN_IF_ERROR(SetCaps(own->caps));
  RETURN_IF_ERROR(SetFilesystemIds(thread.fsuid, thread.fsgid));
  std::uint64_t effective = EffectiveFor(thread, in_user_namespace, *own);
  if (vouch_for_pid) effective |= own->caps.permitted & (std::uint64_t{1} << CAP_SYS_ADMIN);
  RETURN_IF_ERROR(SetCaps({effective, own->caps.permitted, own->caps.inheritable}));
  return acting;
}

ActingAs::ActingAs(ActingAs&& other) noexcept
    : active_(std::exchange(other.active_, false)),
      umask_changed_(other.umask_changed_),
      restore_on_end_(other.restore_on_end_),
      euid_changed_(other.euid_changed_),
      real_ids_changed_(other.real_ids_changed_),
      groups_changed_(other.groups_changed_) {}

ActingAs::~ActingAs() {
  if (!active_) return;
  acting_now = false;
  const OwnIdentity& own = *Own();  // Begin checked it
  if (umask_changed_) ::umask(own.umask);
  if (restore_on_end_) {
    RestoreEverythingOrDie(own, euid_changed_ || real_ids_changed_, groups_changed_);
  }
}

}  // namespace vigil::sentry
