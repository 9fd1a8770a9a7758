#include "runtime/linux/identity.h"

#include <cap-ng.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/strings.h"
#include "config/oci/names.h"

namespace vigil::runtime {
namespace {

Result<void> AddCaps(capng_type_t type, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const config::NamedValue* cap = config::FindName(config::kCapabilityNames, name);
    if (cap == nullptr) return Fail(StrCat("unknown capability ", Quote(name)));
    // libcap-ng refuses capabilities beyond the running kernel's last one
    // (/proc/sys/kernel/cap_last_cap); skip those as runc does, so one config
    // serves several kernels.
    capng_update(CAPNG_ADD, type, static_cast<unsigned>(cap->value));
  }
  return {};
}

}  // namespace

Result<void> DropBoundingSet(const config::Process& process) {
  if (!process.capabilities) return {};
  capng_clear(CAPNG_SELECT_BOUNDS);
  RETURN_IF_ERROR(AddCaps(CAPNG_BOUNDING_SET, process.capabilities->bounding));
  if (capng_apply(CAPNG_SELECT_BOUNDS) != 0) return FailErrno("drop the capability bounding set");
  return {};
}

Result<void> BecomeUser(const config::Process& process) {
  const config::User& user = process.user;
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return FailErrno("keep capabilities");
  std::vector<gid_t> groups(user.additional_gids.begin(), user.additional_gids.end());
  // setgroups(2) is refused in a user namespace whose setgroups file says
  // "deny"; only then is an empty list acceptable to skip.
  if (::setgroups(groups.size(), groups.data()) != 0 && !(groups.empty() && errno == EPERM)) {
    return FailErrno("set supplementary groups");
  }
  if (::setresgid(user.gid, user.gid, user.gid) != 0) {
    return FailErrno(StrCat("set gid ", user.gid));
  }
  if (::setresuid(user.uid, user.uid, user.uid) != 0) {
    return FailErrno(StrCat("set uid ", user.uid));
  }
  if (::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) return FailErrno("reset keep-capabilities");

  if (process.capabilities) {
    const config::Capabilities& caps = *process.capabilities;
    capng_clear(CAPNG_SELECT_CAPS);
    capng_clear(CAPNG_SELECT_AMBIENT);
    RETURN_IF_ERROR(AddCaps(CAPNG_EFFECTIVE, caps.effective));
    RETURN_IF_ERROR(AddCaps(CAPNG_PERMITTED, caps.permitted));
    RETURN_IF_ERROR(AddCaps(CAPNG_INHERITABLE, caps.inheritable));
    // The kernel raises an ambient capability only if it is permitted and
    // inheritable. `runc spec` lists ambient = bounding with no inheritable
    // set, and runc runs that config leaving the ambient set empty: skip
    // the others the same way instead of failing.
    std::vector<std::string> ambient;
    for (const std::string& name : caps.ambient) {
      if (std::ranges::find(caps.permitted, name) != caps.permitted.end() &&
          std::ranges::find(caps.inheritable, name) != caps.inheritable.end()) {
        ambient.push_back(name);
      }
    }
    RETURN_IF_ERROR(AddCaps(CAPNG_AMBIENT, ambient));
    if (capng_apply(CAPNG_SELECT_CAPS) != 0) return FailErrno("set capabilities");
    if (capng_apply(CAPNG_SELECT_AMBIENT) != 0) return FailErrno("set ambient capabilities");
  }
  if (process.no_new_privileges && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return FailErrno("set no_new_privs");
  }
  ::umask(user.umask.value_or(022));
  return {};
}

std::vector<std::string> WithHome(const std::vector<std::string>& env, uid_t uid) {
  for (const std::string& entry : env) {
    if (entry.starts_with("HOME=")) return env;
  }
  std::string home = "/";
  // fgetpwent reads the given file only: no NSS module of the host's is
  // loaded into the container's process.
  if (std::FILE* file = std::fopen("/etc/passwd", "re")) {
    while (const passwd* entry = ::fgetpwent(file)) {
      if (entry->pw_uid == uid) {
        if (entry->pw_dir != nullptr && entry->pw_dir[0] != '\0') home = entry->pw_dir;
        break;
      }
    }
    std::fclose(file);
  }
  std::vector<std::string> with_home = env;
  with_home.push_back("HOME=" + home);
  return with_home;
}

}  // namespace vigil::runtime
