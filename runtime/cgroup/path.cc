#include "runtime/cgroup/path.h"

#include <vector>

#include "base/strings.h"

namespace vigil::runtime::cgroup {
namespace {

constexpr std::string_view kSliceSuffix = ".slice";

Error PathError(std::string_view cgroups_path, std::string_view problem) {
  return Error{0, StrCat("linux.cgroupsPath ", Quote(cgroups_path), ": ", problem)};
}

}  // namespace

std::string CleanCgroupPath(std::string_view path) {
  bool absolute = path.starts_with('/');
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out;
}

Result<std::string> ExpandSlice(std::string_view slice) {
  if (slice.size() <= kSliceSuffix.size() || !slice.ends_with(kSliceSuffix) ||
      slice.find('/') != std::string_view::npos) {
    return Fail(StrCat("invalid slice name ", Quote(slice),
                       " (expected a name ending in \".slice\", without \"/\")"));
  }
  std::string_view name = slice.substr(0, slice.size() - kSliceSuffix.size());
  if (name == "-") return std::string("/");
  std::string path;
  std::string prefix;
  while (true) {
    std::size_t dash = name.find('-');
    std::string_view component = name.substr(0, dash);
    // "a--b.slice" and "-a.slice" name no unit.
    if (component.empty()) {
      return Fail(StrCat("invalid slice name ", Quote(slice), " (empty component)"));
    }
    path += StrCat("/", prefix, component, kSliceSuffix);
    prefix += StrCat(component, "-");
    if (dash == std::string_view::npos) break;
    name.remove_prefix(dash + 1);
  }
  return path;
}

Result<std::string> ResolveCgroupPath(const std::string& cgroups_path, const std::string& id,
                                      bool systemd) {
  std::string path;
  if (systemd) {
    std::string_view spec = cgroups_path;
    std::string slice = "system.slice";
    std::string prefix = "vigil";
    std::string name = id;
    if (!spec.empty()) {
      std::size_t first = spec.find(':');
      std::size_t second = first == std::string_view::npos ? first : spec.find(':', first + 1);
      if (second == std::string_view::npos ||
          spec.find(':', second + 1) != std::string_view::npos) {
        return tl::unexpected(PathError(
            cgroups_path, "with --systemd-cgroup it must have the form \"slice:prefix:name\""));
      }
      slice = spec.substr(0, first);
      prefix = spec.substr(first + 1, second - first - 1);
      name = spec.substr(second + 1);
      if (slice.empty()) slice = "system.slice";
      if (name.empty()) return tl::unexpected(PathError(cgroups_path, "the name part is empty"));
      if (prefix.find('/') != std::string::npos || name.find('/') != std::string::npos) {
        return tl::unexpected(PathError(cgroups_path, "prefix and name must not contain \"/\""));
      }
    }
    Result<std::string> parent = ExpandSlice(slice);
    if (!parent) return tl::unexpected(PathError(cgroups_path, parent.error().message));
    std::string unit;
    if (name.ends_with(kSliceSuffix)) {
      // A slice asked for by name: systemd nests it under its parent's path
      // only through its own dashes, so expand it and check it fits.
      Result<std::string> expanded = ExpandSlice(name);
      if (!expanded) return tl::unexpected(PathError(cgroups_path, expanded.error().message));
      unit = name;
    } else {
      unit = prefix.empty() ? StrCat(name, ".scope") : StrCat(prefix, "-", name, ".scope");
    }
    path = *parent == "/" ? StrCat("/", unit) : StrCat(*parent, "/", unit);
  } else if (cgroups_path.empty()) {
    path = StrCat("/vigil/", id);
  } else {
    path = CleanCgroupPath(cgroups_path);
  }
  if (path.empty() || path == "/") {
    return tl::unexpected(PathError(
        cgroups_path, "names the root cgroup (its limits would apply to the whole host)"));
  }
  return path;
}

}  // namespace vigil::runtime::cgroup
