#include "runtime/cgroup/cgroup.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <sstream>

#include "base/log.h"
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"
#include "runtime/cgroup/knob.h"

namespace vigil::runtime::cgroup {
namespace {

// The families of linux.resources in the order they are written: cpuset
// before anything that could move memory, devices early (a security
// boundary), unified last so its keys override the typed fields.
struct Family {
  const char* name;
  Result<void> (*apply)(const Knobs&, const config::Resources&);
};

constexpr Family kFamilies[] = {
    {"cpuset", ApplyCpuset},   {"devices", ApplyDevices}, {"memory", ApplyMemory},
    {"cpu", ApplyCpu},         {"pids", ApplyPids},       {"blockIO", ApplyBlockIo},
    {"hugetlb", ApplyHugetlb}, {"network", ApplyNetwork}, {"rdma", ApplyRdma},
    {"unified", ApplyUnified},
};

std::string DirFor(const Hierarchy& h, const std::string& path) {
  if (path.starts_with('/')) return h.mount_point + path;
  std::string base = h.own_path == "/" ? "" : h.own_path;
  return StrCat(h.mount_point, base, "/", path);
}

// mkdir -p of `dir` below `mount_point`; appends what it made to `created`.
Result<void> MakeDirs(const Fs& fs, const std::string& mount_point, const std::string& dir,
                      std::vector<std::string>& created) {
  std::size_t pos = mount_point.size();
  while (pos < dir.size()) {
    std::size_t next = dir.find('/', pos + 1);
    if (next == std::string::npos) next = dir.size();
    std::string prefix = dir.substr(0, next);
    pos = next;
    if (prefix.size() <= mount_point.size() || prefix.ends_with('/')) continue;
    ASSIGN_OR_RETURN(bool made, fs.Mkdir(prefix));
    if (made) created.push_back(prefix);
  }
  return {};
}

std::set<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::set<std::string> out;
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// cgroup2 only shows a controller's files in a cgroup whose parent lists it
// in cgroup.subtree_control. Enables, from the root down to the container's
// parent, every controller each level has. The kernel refuses this in a
// cgroup that holds processes (the "no internal processes" rule), such as
// the runtime's own; that and any other refusal is left for Apply to report
// if a knob actually needs the controller.
void EnableControllers(const Fs& fs, const std::string& mount_point, const std::string& dir) {
  std::string level = mount_point;
  std::string_view rest = std::string_view(dir).substr(mount_point.size());
  while (true) {
    while (rest.starts_with('/')) rest.remove_prefix(1);
    if (rest.empty()) return;  // `level` is the container's own directory
    Result<std::string> available = fs.Read(level + "/cgroup.controllers");
    Result<std::string> enabled = fs.Read(level + "/cgroup.subtree_control");
    if (available && enabled) {
      std::set<std::string> have = Words(*enabled);
      std::vector<std::string> missing;
      for (const std::string& c : Words(*available)) {
        if (!have.contains(c)) missing.push_back("+" + c);
      }
      std::string all;
      for (const std::string& m : missing) all += (all.empty() ? "" : " ") + m;
      if (!missing.empty() && !fs.Write(level + "/cgroup.subtree_control", all)) {
        for (const std::string& m : missing) (void)fs.Write(level + "/cgroup.subtree_control", m);
      }
    }
    std::size_t slash = rest.find('/');
    level += StrCat("/", rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
}

// rmdir, retrying on EBUSY: tasks that just exited can hold a cgroup for a
// few milliseconds. 10+20+40+80+160 ms, as runc's RemovePath roughly does.
Result<void> RmdirRetrying(const Fs& fs, const std::string& dir) {
  int delay_ms = 10;
  for (int attempt = 0;; ++attempt) {
    Result<void> removed = fs.Rmdir(dir);
    if (removed || removed.error().code == ENOENT) return {};
    if (removed.error().code != EBUSY || attempt == 5) return removed;
    ::usleep(delay_ms * 1000);
    delay_ms *= 2;
  }
}

// Removes `dir` and the cgroups nested in it, deepest first.
Result<void> RemoveTree(const Fs& fs, const std::string& dir) {
  if (!fs.Exists(dir)) return {};
  Result<std::vector<std::string>> children = fs.Subdirs(dir);
  if (!children) {
    if (children.error().code == ENOENT) return {};
    return tl::unexpected(std::move(children).error());
  }
  for (const std::string& child : *children) {
    RETURN_IF_ERROR(RemoveTree(fs, StrCat(dir, "/", child)));
  }
  return RmdirRetrying(fs, dir);
}

Result<void> CollectProcesses(const Fs& fs, const std::string& dir, std::vector<pid_t>& out) {
  ASSIGN_OR_RETURN(std::string procs, fs.Read(dir + "/cgroup.procs"));
  std::istringstream in(procs);
  for (pid_t pid; in >> pid;) {
    if (std::find(out.begin(), out.end(), pid) == out.end()) out.push_back(pid);
  }
  ASSIGN_OR_RETURN(std::vector<std::string> children, fs.Subdirs(dir));
  for (const std::string& child : children) {
    RETURN_IF_ERROR(CollectProcesses(fs, StrCat(dir, "/", child), out));
  }
  return {};
}

// The hierarchy whose membership Processes() reads: a v1 hierarchy with a
// real controller (pids first: it is the one that counts tasks), else
// cgroup2, else whatever there is (name=systemd).
const Placement* Primary(const std::vector<Placement>& placements) {
  for (const char* controller : {"pids", "devices", "freezer", "memory", "cpu"}) {
    for (const Placement& p : placements) {
      if (!p.hierarchy.v2 && p.hierarchy.Has(controller)) return &p;
    }
  }
  for (const Placement& p : placements) {
    if (p.hierarchy.v2) return &p;
  }
  return placements.empty() ? nullptr : &placements.front();
}

}  // namespace

Result<Cgroup> Cgroup::Create(const std::vector<Hierarchy>& hierarchies, const std::string& path,
                              const Fs& fs) {
  if (hierarchies.empty()) return Fail("create cgroup: this host mounts no cgroup hierarchy");
  Cgroup cgroup = Open(hierarchies, path, fs);
  std::vector<std::string> created;
  auto undo = [&] {
    for (auto it = created.rbegin(); it != created.rend(); ++it) (void)fs.Rmdir(*it);
  };
  for (const Placement& p : cgroup.placements_) {
    const Hierarchy& h = p.hierarchy;
    Result<void> made = MakeDirs(fs, h.mount_point, p.dir, created);
    if (made && h.v2) EnableControllers(fs, h.mount_point, p.dir);
    if (made && !h.v2 && h.Has("cpuset")) made = PopulateCpuset(fs, h.mount_point, p.dir);
    if (!made) {
      undo();
      return tl::unexpected(std::move(made).error().Wrap(StrCat("create cgroup ", path)));
    }
  }
  // A frozen cgroup would freeze the init mid-setup and create would hang
  // (runc refuses it too; its words, which scripts match).
  if (Result<bool> frozen = cgroup.Frozen(); frozen && *frozen) {
    undo();
    return Fail(StrCat("create cgroup ", path,
                       ": container's cgroup unexpectedly frozen (thaw it: freezer.state "
                       "THAWED, cgroup.freeze 0)"));
  }
  // Processes already there (another container's, a job's) would share the
  // container's limits and stats. runc 1.1 warns and goes on, and scripts
  // rely on it; so does vigil, and `delete` leaves those processes alone
  // (lifecycle/delete.cc).
  Result<std::vector<pid_t>> present = cgroup.Processes();
  if (present && !present->empty()) {
    log::Warning(StrCat("cgroup ", path, ": container's cgroup is not empty: ", present->size(),
                        " process(es) found, e.g. pid ", present->front(),
                        "; they will share the container's limits"));
  }
  return cgroup;
}

Cgroup Cgroup::Open(const std::vector<Hierarchy>& hierarchies, const std::string& path,
                    const Fs& fs) {
  std::vector<Placement> placements;
  for (const Hierarchy& h : hierarchies) placements.push_back({h, DirFor(h, path)});
  return Cgroup(std::move(placements), fs);
}

Result<Cgroup> Cgroup::FromPaths(const std::vector<Hierarchy>& hierarchies,
                                 const std::vector<std::string>& dirs, const Fs& fs) {
  std::vector<Placement> placements;
  for (const std::string& dir : dirs) {
    const Hierarchy* best = nullptr;
    for (const Hierarchy& h : hierarchies) {
      bool under = dir.starts_with(h.mount_point) &&
                   (dir.size() == h.mount_point.size() || dir[h.mount_point.size()] == '/');
      if (under && (best == nullptr || h.mount_point.size() > best->mount_point.size())) best = &h;
    }
    if (best == nullptr) {
      return Fail(
          StrCat("cgroup directory ", Quote(dir), " is under no cgroup mount on this host"));
    }
    placements.push_back({*best, dir});
  }
  return Cgroup(std::move(placements), fs);
}

Result<void> Cgroup::AddProcess(pid_t pid) const {
  for (const Placement& p : placements_) {
    RETURN_IF_ERROR_WRAP(fs_->Write(p.dir + "/cgroup.procs", StrCat(pid)),
                         StrCat("add process ", pid, " to its cgroup"));
  }
  return {};
}

namespace {

bool HoldsAny(const Hierarchy& hierarchy, std::span<const std::string_view> controllers) {
  if (hierarchy.v2) return false;
  return std::any_of(controllers.begin(), controllers.end(),
                     [&](std::string_view c) { return hierarchy.Has(c); });
}

}  // namespace

Result<void> Cgroup::AddProcessFor(pid_t pid, std::span<const std::string_view> controllers) const {
  for (const Placement& p : placements_) {
    if (!HoldsAny(p.hierarchy, controllers)) continue;
    RETURN_IF_ERROR_WRAP(fs_->Write(p.dir + "/cgroup.procs", StrCat(pid)),
                         StrCat("add process ", pid, " to the cgroup"));
  }
  return {};
}

Result<void> Cgroup::RemoveProcessFor(pid_t pid,
                                      std::span<const std::string_view> controllers) const {
  for (const std::string& home : HomesFor(controllers)) {
    RETURN_IF_ERROR_WRAP(fs_->Write(home, StrCat(pid)),
                         StrCat("move process ", pid, " out of the cgroup"));
  }
  return {};
}

Result<void> Cgroup::AddProcessBeneath(pid_t pid, std::string_view sub,
                                       std::span<const std::string> controllers) const {
  const std::string what = StrCat("sub-cgroup ", Quote(sub));
  // runc's words ("unknown controller"), which scripts match.
  for (const std::string& controller : controllers) {
    if (std::none_of(placements_.begin(), placements_.end(),
                     [&](const Placement& p) { return p.hierarchy.Has(controller); })) {
      return Fail(StrCat(what, ": unknown controller ", Quote(controller)));
    }
  }
  // "/" names the container's own cgroup, which the process joined already.
  if (sub == "/") return {};
  if (sub.empty() || sub.front() == '/' || sub == ".." || sub.starts_with("../") ||
      sub.ends_with("/..") || sub.find("/../") != std::string_view::npos) {
    // runc's words (" .. is not a sub cgroup path"), which scripts match.
    return Fail(StrCat("sub-cgroup ", sub,
                       " is not a sub cgroup path: it must lie beneath the container's cgroup"));
  }
  bool placed = false;
  for (const Placement& p : placements_) {
    const bool wanted = controllers.empty() ||
                        std::any_of(controllers.begin(), controllers.end(),
                                    [&](const std::string& c) { return p.hierarchy.Has(c); });
    if (!wanted) continue;
    const std::string dir = StrCat(p.dir, "/", sub);
    // runc's words (" adding pid ... : no such file"), which scripts match.
    if (!fs_->Exists(dir)) {
      return Fail(StrCat(what, ": no such cgroup: adding pid ", pid, " to ", dir,
                         "/cgroup.procs: no such file or directory"));
    }
    RETURN_IF_ERROR_WRAP(fs_->Write(dir + "/cgroup.procs", StrCat(pid)),
                         StrCat("add process ", pid, " to the ", what));
    placed = true;
  }
  if (!placed) return Fail(StrCat(what, ": no hierarchy holds the controllers named"));
  return {};
}

std::vector<std::string> Cgroup::HomesFor(std::span<const std::string_view> controllers) const {
  std::vector<std::string> homes;
  for (const Placement& p : placements_) {
    if (!HoldsAny(p.hierarchy, controllers)) continue;
    homes.push_back(StrCat(p.hierarchy.mount_point, p.hierarchy.own_path, "/cgroup.procs"));
  }
  return homes;
}

Result<void> Cgroup::Apply(const config::Resources& resources) const {
  Knobs knobs(placements_, *fs_);
  for (const Family& family : kFamilies) RETURN_IF_ERROR(family.apply(knobs, resources));
  return {};
}

Result<std::vector<pid_t>> Cgroup::Processes() const {
  std::vector<pid_t> pids;
  const Placement* p = Primary(placements_);
  if (p == nullptr) return pids;
  RETURN_IF_ERROR_WRAP(CollectProcesses(*fs_, p->dir, pids), "list the cgroup's processes");
  return pids;
}

Result<void> Cgroup::Freeze() const { return FreezeCgroup(Knobs(placements_, *fs_)); }

Result<void> Cgroup::Thaw() const { return ThawCgroup(Knobs(placements_, *fs_)); }

Result<bool> Cgroup::Frozen() const { return CgroupFrozen(Knobs(placements_, *fs_)); }

Result<std::uint64_t> Cgroup::OomKills() const { return OomKillCount(Knobs(placements_, *fs_)); }

Result<std::uint64_t> Cgroup::PidsLimitHits() const {
  return PidsLimitHitCount(Knobs(placements_, *fs_));
}

Result<Stats> Cgroup::ReadStats() const { return ReadCgroupStats(Knobs(placements_, *fs_)); }

Result<MemoryRelease> Cgroup::ReleaseMemory() const {
  return ReleaseCgroupMemory(Knobs(placements_, *fs_));
}

Result<void> Cgroup::Destroy() const {
  Result<void> first_error;
  for (const Placement& p : placements_) {
    Result<void> removed = RemoveTree(*fs_, p.dir);
    if (!removed && first_error) {
      first_error = tl::unexpected(std::move(removed).error().Wrap("remove cgroup"));
    }
  }
  return first_error;
}

std::vector<std::string> Cgroup::Paths() const {
  std::vector<std::string> paths;
  for (const Placement& p : placements_) paths.push_back(p.dir);
  return paths;
}

}  // namespace vigil::runtime::cgroup
