#include "runtime/linux/id_maps.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.h"
#include "base/strings.h"

extern char** environ;

namespace vigil::runtime {
namespace {

// newuidmap PID CONTAINER HOST SIZE ... (the same for newgidmap).
Result<void> RunMapHelper(const char* helper, pid_t pid,
                          const std::vector<config::IdMapping>& mappings) {
  std::vector<std::string> args = {helper, StrCat(pid)};
  for (const config::IdMapping& m : mappings) {
    args.push_back(StrCat(m.container_id));
    args.push_back(StrCat(m.host_id));
    args.push_back(StrCat(m.size));
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (int err = ::posix_spawnp(&child, helper, nullptr, nullptr, argv.data(), environ); err != 0) {
    return FailErrno(err, StrCat("run ", helper,
                                 " (a user's map of more than its own id needs "
                                 "it: the uidmap package)"));
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return FailErrno(StrCat("wait for ", helper));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Fail(StrCat(helper, " refused the map (see /etc/subuid and /etc/subgid): ",
                       WIFEXITED(status) ? StrCat("exit status ", WEXITSTATUS(status))
                                         : StrCat("signal ", WTERMSIG(status))));
  }
  return {};
}

}  // namespace

std::string MapLines(const std::vector<config::IdMapping>& mappings) {
  std::string out;
  for (const config::IdMapping& m : mappings) {
    out += StrCat(m.container_id, " ", m.host_id, " ", m.size, "\n");
  }
  return out;
}

bool MapsOnlyOwnId(const std::vector<config::IdMapping>& mappings, std::uint32_t id) {
  return mappings.size() == 1 && mappings[0].size == 1 && mappings[0].host_id == id;
}

Result<void> WriteIdMaps(pid_t pid, const std::vector<config::IdMapping>& uids,
                         const std::vector<config::IdMapping>& gids) {
  const std::string proc = StrCat("/proc/", pid);
  const bool root = ::geteuid() == 0;
  if (root || MapsOnlyOwnId(uids, ::geteuid())) {
    RETURN_IF_ERROR_WRAP(WriteExisting(proc + "/uid_map", MapLines(uids)), "write uid mappings");
  } else {
    RETURN_IF_ERROR_WRAP(RunMapHelper("newuidmap", pid, uids), "write uid mappings");
  }
  if (root) {
    RETURN_IF_ERROR_WRAP(WriteExisting(proc + "/gid_map", MapLines(gids)), "write gid mappings");
  } else if (MapsOnlyOwnId(gids, ::getegid())) {
    // Else a process of the namespace could drop a group it was given to
    // get past a "deny to group" permission.
    RETURN_IF_ERROR_WRAP(WriteExisting(proc + "/setgroups", "deny"), "refuse setgroups");
    RETURN_IF_ERROR_WRAP(WriteExisting(proc + "/gid_map", MapLines(gids)), "write gid mappings");
  } else {
    RETURN_IF_ERROR_WRAP(RunMapHelper("newgidmap", pid, gids), "write gid mappings");
  }
  return {};
}

}  // namespace vigil::runtime
