#include "runtime/cgroup/knob.h"

#include <charconv>
#include <sstream>

#include "base/strings.h"

namespace vigil::runtime::cgroup {

const Placement* Knobs::Find(std::string_view controller) const {
  for (const Placement& p : placements_) {
    if (!p.hierarchy.v2 && p.hierarchy.Has(controller)) return &p;
  }
  for (const Placement& p : placements_) {
    if (p.hierarchy.v2 && p.hierarchy.Has(controller)) return &p;
  }
  return nullptr;
}

Result<const Placement*> Knobs::Require(std::string_view controller,
                                        std::string_view json_path) const {
  const Placement* p = Find(controller);
  if (p == nullptr) {
    return Fail(StrCat(json_path, ": the ", controller,
                       " cgroup controller is not available on this host (no cgroup v1 "
                       "hierarchy mounts it and the cgroup2 mount does not offer it)"));
  }
  if (p->hierarchy.v2) {
    // The file is only there on cgroupfs; a test tree may leave it out.
    if (Result<std::string> enabled = fs_.Read(StrCat(p->dir, "/cgroup.controllers"))) {
      std::istringstream in(*enabled);
      bool found = false;
      for (std::string c; in >> c;) found = found || c == controller;
      if (!found) {
        return Fail(StrCat(json_path, ": the ", controller, " controller is not enabled in ",
                           p->dir, " (the parent's cgroup.subtree_control lacks +", controller,
                           ")"));
      }
    }
  }
  return p;
}

const Placement* Knobs::Unified() const {
  for (const Placement& p : placements_) {
    if (p.hierarchy.v2) return &p;
  }
  return nullptr;
}

Result<void> Knobs::Write(const Placement& where, std::string_view file, std::string_view value,
                          std::string_view json_path) const {
  RETURN_IF_ERROR_WRAP(fs_.Write(StrCat(where.dir, "/", file), value), json_path);
  return {};
}

Result<std::string> Knobs::Read(const Placement& where, std::string_view file) const {
  ASSIGN_OR_RETURN(std::string text, fs_.Read(StrCat(where.dir, "/", file)));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

Result<std::uint64_t> Knobs::ReadNumber(const Placement& where, std::string_view file) const {
  ASSIGN_OR_RETURN(std::string text, Read(where, file));
  Result<std::uint64_t> n = ParseNumber(text);
  if (!n) return Fail(StrCat(where.dir, "/", file, ": ", n.error().message));
  return n;
}

Result<std::map<std::string, std::uint64_t>> Knobs::ReadKeyed(const Placement& where,
                                                              std::string_view file) const {
  ASSIGN_OR_RETURN(std::string text, Read(where, file));
  return ParseKeyed(text);
}

bool Knobs::Exists(const Placement& where, std::string_view file) const {
  return fs_.Exists(StrCat(where.dir, "/", file));
}

Result<std::uint64_t> ParseNumber(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "max") return kUnlimited;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Fail(StrCat("expected a number, got ", Quote(text)));
  }
  return value;
}

std::map<std::string, std::uint64_t> ParseKeyed(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    if (Result<std::uint64_t> n = ParseNumber(std::string_view(line).substr(space + 1))) {
      out[line.substr(0, space)] = *n;
    }
  }
  return out;
}

}  // namespace vigil::runtime::cgroup
