// linux.resources.devices: the device cgroup.
//
// v1: a new cgroup inherits its parent's list; each rule is written in order
// to devices.allow or devices.deny, which reproduces the spec's "later rules
// win" (a leading deny-all resets the list, as runc's first write does).
//
// cgroup v2 has no devices files: rules are enforced by a BPF_CGROUP_DEVICE
// program attached to the cgroup, which vigil does not build yet. Without
// it every device node in the container's /dev opens, and only a
// capability-less or seccomp-filtered mknod keeps new nodes out. So, when no
// v1 devices hierarchy exists:
//   - allow rules are honoured trivially (nothing is denied), and a leading
//     deny-all -- the default every config starts with -- is dropped with a
//     warning: the container still sees only the nodes vigil put in /dev;
//   - any other deny rule is refused, naming it, rather than silently not
//     enforced.
#include <utility>

#include "base/log.h"
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"
#include "runtime/cgroup/device_rules.h"

namespace vigil::runtime::cgroup {
namespace {

std::string Number(const std::optional<std::int64_t>& n) { return n ? StrCat(*n) : "*"; }

bool AnyType(const config::DeviceRule& rule) { return rule.type.empty() || rule.type == "a"; }

bool AllAccess(const config::DeviceRule& rule) {
  return rule.access.empty() ||
         (rule.access.find('r') != std::string::npos &&
          rule.access.find('w') != std::string::npos && rule.access.find('m') != std::string::npos);
}

// "deny a *:* rwm" or narrower in access only: the "start from nothing" rule.
bool IsDenyAll(const config::DeviceRule& rule) {
  return !rule.allow && AnyType(rule) && !rule.major && !rule.minor;
}

config::DeviceRule Allow(std::string type, std::optional<std::int64_t> major,
                         std::optional<std::int64_t> minor, std::string access) {
  return config::DeviceRule{.allow = true,
                            .type = std::move(type),
                            .major = major,
                            .minor = minor,
                            .access = std::move(access)};
}

}  // namespace

std::vector<config::DeviceRule> DeviceRulesFor(const std::vector<config::DeviceRule>& configured) {
  std::vector<config::DeviceRule> rules = configured;
  rules.push_back(Allow("c", std::nullopt, std::nullopt, "m"));
  rules.push_back(Allow("b", std::nullopt, std::nullopt, "m"));
  static constexpr std::pair<std::int64_t, std::int64_t> kDefaultNodes[] = {{1, 3}, {1, 8}, {1, 7},
                                                                            {5, 0}, {1, 5}, {1, 9}};
  for (const auto& [major, minor] : kDefaultNodes) rules.push_back(Allow("c", major, minor, "rwm"));
  rules.push_back(Allow("c", 136, std::nullopt, "rwm"));
  rules.push_back(Allow("c", 5, 2, "rwm"));
  rules.push_back(Allow("c", 10, 200, "rwm"));
  return rules;
}

bool DeviceAccessAllowed(const std::vector<config::DeviceRule>& rules, char type,
                         std::int64_t major, std::int64_t minor, std::string_view access) {
  for (char letter : access) {
    bool allowed = true;  // what a new cgroup inherits from the root's "a *:* rwm"
    for (const config::DeviceRule& rule : rules) {
      const bool names_device = (AnyType(rule) || rule.type[0] == type) &&
                                (!rule.major || *rule.major == major) &&
                                (!rule.minor || *rule.minor == minor);
      const bool names_letter =
          rule.access.empty() || rule.access.find(letter) != std::string::npos;
      if (names_device && names_letter) allowed = rule.allow;
    }
    if (!allowed) return false;
  }
  return true;
}

std::vector<std::string> V1DeviceLines(const config::DeviceRule& rule) {
  // The kernel takes r, w and m; runc drops any other letter ("rwa" is in
  // configs in use), and so does vigil. A rule left with none says nothing.
  std::string access;
  for (char letter : rule.access.empty() ? std::string_view("rwm") : rule.access) {
    if (letter == 'r' || letter == 'w' || letter == 'm') access += letter;
  }
  if (access.empty()) return {};
  std::string numbers = StrCat(Number(rule.major), ":", Number(rule.minor), " ", access);
  if (!AnyType(rule)) return {StrCat(rule.type, " ", numbers)};
  // The kernel reads any "a" line as "every device, every access".
  if (!rule.major && !rule.minor && AllAccess(rule)) return {"a"};
  return {StrCat("c ", numbers), StrCat("b ", numbers)};
}

Result<void> ApplyDevices(const Knobs& knobs, const config::Resources& r) {
  if (r.devices.empty()) return {};
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const std::string& type = r.devices[i].type;
    if (!type.empty() && type != "a" && type != "c" && type != "b") {
      return Fail(StrCat("linux.resources.devices[", i,
                         "].type: expected \"a\", \"c\" or \"b\", got ", Quote(type)));
    }
  }
  const Placement* p = knobs.Find("devices");
  if (p == nullptr || p->hierarchy.v2) {
    bool dropped_deny_all = false;
    for (std::size_t i = 0; i < r.devices.size(); ++i) {
      const config::DeviceRule& rule = r.devices[i];
      if (rule.allow) continue;
      if (i == 0 && IsDenyAll(rule)) {
        dropped_deny_all = true;
        continue;
      }
      return Fail(StrCat("linux.resources.devices[", i,
                         "]: this host has no cgroup v1 devices controller, and on cgroup v2 deny "
                         "rules need an eBPF device program, which vigil does not load; the rule "
                         "cannot be enforced"));
    }
    if (dropped_deny_all) {
      log::Warning(
          "cgroup v2: the device cgroup's deny-all is not enforced (vigil loads no eBPF device "
          "program); the container's /dev holds only its configured nodes");
    }
    return {};
  }
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const config::DeviceRule& rule = r.devices[i];
    std::string at = StrCat("linux.resources.devices[", i, "]");
    for (const std::string& line : V1DeviceLines(rule)) {
      RETURN_IF_ERROR(knobs.Write(*p, rule.allow ? "devices.allow" : "devices.deny", line, at));
    }
  }
  return {};
}

}  // namespace vigil::runtime::cgroup
