// Where a container's cgroup lives, from config.json "linux.cgroupsPath".
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace vigil::runtime::cgroup {

// The container's cgroup path, the same in every hierarchy:
//   ""  (not systemd)       -> "/vigil/<id>"
//   "/a/b"                  -> "/a/b" (cleaned: "//a/./b/" -> "/a/b")
//   "a/b"                   -> "a/b", still relative: Cgroup::Create places it
//                              under the runtime's own cgroup in each
//                              hierarchy, as runc does
//   systemd, "slice:prefix:name" -> the cgroupfs path systemd would give it:
//       "system.slice:docker:ID"  -> "/system.slice/docker-ID.scope"
//       "a-b.slice:cri:ID"        -> "/a.slice/a-b.slice/cri-ID.scope"
//       name ending ".slice"      -> the slice itself, nested under the parent
//       empty slice               -> "system.slice"; empty prefix -> "ID.scope"
//   systemd, ""             -> "/system.slice/vigil-<id>.scope"
// With `systemd`, vigil does not talk to systemd (PID 1 is not systemd here):
// it creates those directories itself, as runc's cgroupfs driver would.
// ".." cannot climb above the root (or, for a relative path, above the
// runtime's cgroup). Fails, naming linux.cgroupsPath, for a systemd path not
// of the form "slice:prefix:name", an invalid slice name, or a path that is
// the root cgroup itself (limits would apply to the whole host).
Result<std::string> ResolveCgroupPath(const std::string& cgroups_path, const std::string& id,
                                      bool systemd);

// systemd's slice naming: "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice";
// "-.slice" is the root, "/".
Result<std::string> ExpandSlice(std::string_view slice);

// Lexically cleans a path: no empty, "." or ".." components; ".." at the top
// is dropped. Keeps it absolute or relative; "" and "/" stay as they are.
std::string CleanCgroupPath(std::string_view path);

}  // namespace vigil::runtime::cgroup
