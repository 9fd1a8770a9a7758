#include "runtime/cgroup/hierarchy.h"

#include <algorithm>
#include <sstream>

#include "base/file.h"

namespace vigil::runtime::cgroup {
namespace {

std::vector<std::string> Split(std::string_view text, char sep) {
  std::vector<std::string> out;
  while (true) {
    std::size_t pos = text.find(sep);
    out.emplace_back(text.substr(0, pos));
    if (pos == std::string_view::npos) return out;
    text.remove_prefix(pos + 1);
  }
}

// mountinfo escapes spaces and the like as \040.
std::string Unescape(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      int value = (field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0');
      out += static_cast<char>(value);
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

}  // namespace

std::vector<Hierarchy> ParseHierarchies(std::string_view mountinfo, std::string_view proc_cgroup) {
  // hierarchy-id:controllers:path per line; "0::path" is the cgroup2 one.
  std::vector<std::pair<std::vector<std::string>, std::string>> memberships;
  std::string v2_path;
  for (const std::string& line : Split(proc_cgroup, '\n')) {
    std::vector<std::string> f = Split(line, ':');
    if (f.size() < 3) continue;
    std::string path = line.substr(f[0].size() + f[1].size() + 2);
    if (f[0] == "0" && f[1].empty()) {
      v2_path = path;
    } else {
      memberships.emplace_back(Split(f[1], ','), path);
    }
  }

  std::vector<Hierarchy> out;
  for (const std::string& line : Split(mountinfo, '\n')) {
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string field; in >> field;) fields.push_back(field);
    auto dash = std::find(fields.begin(), fields.end(), "-");
    if (dash == fields.end() || fields.size() < 5 || fields.end() - dash < 4) continue;
    const std::string& fstype = *(dash + 1);
    if (fstype != "cgroup" && fstype != "cgroup2") continue;
    Hierarchy h{.mount_point = Unescape(fields[4]), .v2 = fstype == "cgroup2"};
    std::string mount_root = Unescape(fields[3]);
    if (h.v2) {
      h.own_path = v2_path;
    } else {
      for (const std::string& option : Split(*(dash + 3), ',')) {
        if (option != "rw" && option != "ro" && !option.starts_with("release_agent") &&
            option != "clone_children" && option != "noprefix" && option != "xattr" &&
            option != "cpuset_v2_mode" && option != "favordynmods") {
          h.controllers.push_back(option);
        }
      }
      std::vector<std::string> sorted = h.controllers;
      std::sort(sorted.begin(), sorted.end());
      for (auto& [controllers, path] : memberships) {
        std::vector<std::string> c = controllers;
        std::sort(c.begin(), c.end());
        if (c == sorted) h.own_path = path;
      }
    }
    if (mount_root != "/" && h.own_path.starts_with(mount_root) &&
        (h.own_path.size() == mount_root.size() || h.own_path[mount_root.size()] == '/')) {
      h.own_path =
          h.own_path.size() == mount_root.size() ? "/" : h.own_path.substr(mount_root.size());
    }
    bool seen = std::any_of(out.begin(), out.end(), [&](const Hierarchy& other) {
      if (other.v2 != h.v2) return false;
      if (h.v2) return true;
      std::vector<std::string> a = other.controllers, b = h.controllers;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      return a == b;
    });
    if (!seen) out.push_back(std::move(h));
  }
  return out;
}

Result<std::vector<Hierarchy>> DiscoverHierarchies() {
  ASSIGN_OR_RETURN(std::string mountinfo, ReadFile("/proc/self/mountinfo", 4 << 20));
  ASSIGN_OR_RETURN(std::string proc_cgroup, ReadFile("/proc/self/cgroup", 1 << 20));
  std::vector<Hierarchy> hierarchies = ParseHierarchies(mountinfo, proc_cgroup);
  for (Hierarchy& h : hierarchies) {
    if (!h.v2) continue;
    Result<std::string> controllers = ReadFile(h.mount_point + "/cgroup.controllers", 4096);
    if (!controllers) continue;
    std::istringstream in(*controllers);
    for (std::string c; in >> c;) h.controllers.push_back(c);
  }
  return hierarchies;
}

bool Hierarchy::Has(std::string_view controller) const {
  return std::find(controllers.begin(), controllers.end(), controller) != controllers.end();
}

const Hierarchy* FindController(const std::vector<Hierarchy>& hierarchies,
                                std::string_view controller) {
  // A controller on a v1 hierarchy is in use there; cgroup2 only gets it when
  // no v1 hierarchy holds it (the kernel lets a controller live on one side).
  for (const Hierarchy& h : hierarchies) {
    if (!h.v2 && h.Has(controller)) return &h;
  }
  for (const Hierarchy& h : hierarchies) {
    if (h.v2 && h.Has(controller)) return &h;
  }
  return nullptr;
}

}  // namespace vigil::runtime::cgroup
