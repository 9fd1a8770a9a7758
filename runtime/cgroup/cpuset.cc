// linux.resources.cpu.cpus and .mems: cpuset.cpus / cpuset.mems, the same
// files on v1 and v2. On v1 a new cpuset cgroup starts empty and refuses
// tasks (ENOSPC) until both are set, so Create fills them from the parent.
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kCpus = "linux.resources.cpu.cpus";
constexpr std::string_view kMems = "linux.resources.cpu.mems";

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Copies `file` from `parent` to `child` if the child's is empty.
Result<void> CopyIfEmpty(const Fs& fs, const std::string& parent, const std::string& child,
                         std::string_view file) {
  ASSIGN_OR_RETURN(std::string mine, fs.Read(StrCat(child, "/", file)));
  if (!Trim(mine).empty()) return {};
  ASSIGN_OR_RETURN(std::string theirs, fs.Read(StrCat(parent, "/", file)));
  theirs = Trim(theirs);
  if (theirs.empty()) return Fail(StrCat(parent, "/", file, " is empty"));
  return fs.Write(StrCat(child, "/", file), theirs);
}

}  // namespace

Result<void> PopulateCpuset(const Fs& fs, const std::string& mount_point, const std::string& dir) {
  std::string_view rest = std::string_view(dir).substr(mount_point.size());
  std::string parent = mount_point;
  while (!rest.empty()) {
    if (rest.front() == '/') {
      rest.remove_prefix(1);
      continue;
    }
    std::size_t slash = rest.find('/');
    std::string child = StrCat(parent, "/", rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    RETURN_IF_ERROR_WRAP(CopyIfEmpty(fs, parent, child, "cpuset.cpus"), "populate cpuset");
    RETURN_IF_ERROR_WRAP(CopyIfEmpty(fs, parent, child, "cpuset.mems"), "populate cpuset");
    parent = std::move(child);
  }
  return {};
}

Result<void> ApplyCpuset(const Knobs& knobs, const config::Resources& r) {
  if (!r.cpu || (r.cpu->cpus.empty() && r.cpu->mems.empty())) return {};
  ASSIGN_OR_RETURN(const Placement* p,
                   knobs.Require("cpuset", r.cpu->cpus.empty() ? kMems : kCpus));
  if (!r.cpu->cpus.empty()) RETURN_IF_ERROR(knobs.Write(*p, "cpuset.cpus", r.cpu->cpus, kCpus));
  if (!r.cpu->mems.empty()) RETURN_IF_ERROR(knobs.Write(*p, "cpuset.mems", r.cpu->mems, kMems));
  return {};
}

}  // namespace vigil::runtime::cgroup
