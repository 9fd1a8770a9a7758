// A vigil policy as a bundle's annotation or a --policy file could carry it:
// ParsePolicy must refuse in one line or accept; an accepted policy must
// dump to a document that reads back as the same policy (exec reads the
// recorded one back), grant what its own rules name, match globs by their
// shape on the paths the input names, and shape a valid container into a
// valid one.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "config/oci/default_spec.h"
#include "config/oci/validate.h"
#include "config/policy/container_setup.h"
#include "config/policy/policy.h"
#include "tests/fuzz/check.h"

namespace {

using vigil::config::Cidr;
using vigil::config::EgressRule;
using vigil::config::FileAccess;
using vigil::config::FileRule;
using vigil::config::Policy;
using vigil::fuzz::Die;

// Up to four absolute paths named in the input ("/..." up to a quote,
// space or control character): paths the author had in mind.
std::vector<std::string> PathsIn(std::string_view text) {
  std::vector<std::string> paths;
  for (std::size_t at = text.find('/'); at != std::string_view::npos && paths.size() < 4;
       at = text.find('/', at + 1)) {
    std::size_t end = at;
    while (end < text.size() && text[end] > ' ' && text[end] != '"') ++end;
    paths.emplace_back(text.substr(at, end - at));
    at = end;
    if (at >= text.size()) break;
  }
  return paths;
}

// A path `pattern` matches, for patterns whose wildcards are only '*', '?'
// and a final "/**"; empty for the others ('[' classes, '\' escapes).
std::string PathMatching(const std::string& pattern) {
  if (pattern.find_first_of("[\\") != std::string::npos) return "";
  std::string path = pattern;
  if (path.ends_with("/**")) path.resize(path.size() - 3);
  if (path.empty()) return "/";
  for (char& c : path) {
    if (c == '*' || c == '?') c = 'x';
  }
  return path;
}

// sockaddrs of every family the policy decides on, addressed with the input's
// last bytes, at full length, one byte short, and family-only.
void CheckAddressesFrom(const Policy& policy, std::string_view text) {
  sockaddr_storage storage{};
  const std::size_t take = std::min(text.size(), sizeof storage);
  std::memcpy(&storage, text.data() + text.size() - take, take);
  for (sa_family_t family : {AF_INET, AF_INET6, AF_UNIX, AF_UNSPEC, AF_NETLINK}) {
    storage.ss_family = family;
    const auto* address = reinterpret_cast<const sockaddr*>(&storage);
    const socklen_t full = family == AF_INET    ? sizeof(sockaddr_in)
                           : family == AF_INET6 ? sizeof(sockaddr_in6)
                                                : sizeof(sockaddr_un);
    for (socklen_t length :
         {full, static_cast<socklen_t>(full - 1), static_cast<socklen_t>(sizeof(sa_family_t))}) {
      const bool allowed = EgressAllowed(policy, address, length);
      if (family == AF_UNIX && allowed != policy.unix_sockets) Die("unix ignores the policy", "");
      if (family != AF_UNIX && !policy.egress_default_deny && !allowed) {
        Die("a default-allow policy denied", std::to_string(family));
      }
    }
  }
  if (EgressAllowed(policy, nullptr, 0) == policy.egress_default_deny) {
    Die("no address decided against the default", "");
  }
}

// Each allow rule admits its own network address at its first port. A
// rule by DNS name has none until create resolves it (its family is
// AF_UNSPEC; "10.20-1" is such a name): it admits nothing yet.
void CheckEgressRules(const Policy& policy) {
  for (const EgressRule& rule : policy.egress) {
    const Cidr& cidr = rule.cidr;
    if (cidr.family != AF_INET && cidr.family != AF_INET6) continue;
    const std::uint16_t port = rule.ports.empty() ? 443 : rule.ports.front().first;
    sockaddr_storage storage{};
    socklen_t length;
    if (cidr.family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&storage);
      in->sin_family = AF_INET;
      in->sin_port = htons(port);
      std::memcpy(&in->sin_addr, cidr.address.data(), 4);
      length = sizeof *in;
    } else {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons(port);
      std::memcpy(&in6->sin6_addr, cidr.address.data(), 16);
      length = sizeof *in6;
    }
    if (!EgressAllowed(policy, reinterpret_cast<const sockaddr*>(&storage), length)) {
      Die("an allow rule's own address is denied", DumpPolicy(policy));
    }
  }
}

// Rules name paths they match; the first rule decides its own paths.
void CheckOwnPaths(const Policy& policy) {
  for (std::size_t i = 0; i < policy.files.size(); ++i) {
    std::string path = PathMatching(policy.files[i].pattern);
    if (path.empty()) continue;
    const FileAccess access = FileAccessFor(policy, path);
    if (i == 0 && access != policy.files[0].access) Die("the first rule loses", path);
  }
  for (const std::string& pattern : policy.exec_allow) {
    std::string path = PathMatching(pattern);
    if (!path.empty() && !ExecAllowed(policy, path)) Die("exec.allow refuses its own", path);
  }
}

// Whether `path` is absolute and normalised, as the sentry's resolved
// paths are: no empty, "." or ".." component, no trailing '/'.
bool Normalised(std::string_view path) {
  if (path == "/") return true;
  if (!path.starts_with('/') || path.ends_with('/')) return false;
  for (std::string_view dot : {"//", "/./", "/../"}) {
    if (path.find(dot) != std::string_view::npos) return false;
  }
  return !path.ends_with("/.") && !path.ends_with("/..");
}

// On the paths the input names: a rule ending in "/**" that matches a path
// matches what is below it; any other rule, whose wildcards never match
// '/', matches nothing below a path it matches.
void CheckTreeRules(const Policy& policy, const std::vector<std::string>& paths) {
  for (const FileRule& rule : policy.files) {
    // A policy that decides rule.access exactly where the rule matches.
    Policy only;
    only.files = {rule};
    only.file_default = rule.access == FileAccess::kWrite ? FileAccess::kRead : FileAccess::kWrite;
    const bool tree = rule.pattern.ends_with("/**");
    for (const std::string& path : paths) {
      if (!Normalised(path) || FileAccessFor(only, path) != rule.access) continue;
      const std::string below = (path == "/" ? "" : path) + "/below";
      if ((FileAccessFor(only, below) == rule.access) != tree) {
        Die(tree ? "a tree rule misses what is below a match"
                 : "a rule matches below what it matches",
            rule.pattern + " " + path);
      }
    }
  }
}

// What a container with `cwd` becomes under `policy` (a copy: the setup adds
// a working-directory rule to the policy). A valid spec stays valid.
void CheckContainerSetup(Policy policy, const std::string& cwd) {
  vigil::config::Spec spec = vigil::config::DefaultSpec();
  // Absolute, as after the bundle is resolved, and absent, so that the
  // setup's stat(2) of the working directory finds nothing on the host.
  spec.root->path = "/nonexistent/vigil-fuzz/rootfs";
  spec.process->cwd = cwd;
  const bool valid = vigil::config::Validate(spec).has_value();
  vigil::config::ApplyPolicyToSpec(policy, spec);
  if (!valid) return;
  if (vigil::Result<void> still = vigil::config::Validate(spec); !still) {
    Die("the policy made the container invalid", still.error().message);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vigil::Result<Policy> policy = vigil::config::ParsePolicy(text);
  if (!policy) {
    vigil::fuzz::CheckOneLine(policy.error());
    return 0;
  }
  const std::string dumped = DumpPolicy(*policy);
  vigil::Result<Policy> again = vigil::config::ParsePolicy(dumped);
  if (!again) Die("the dump does not parse", again.error().message + "\n" + dumped);
  if (!(*again == *policy)) {
    Die("the dump parses as another policy",
        "dump:\n" + dumped + "\nre-dump:\n" + DumpPolicy(*again));
  }
  if (DumpPolicy(*again) != dumped) Die("dumping twice differs", dumped);

  std::vector<std::string> paths = PathsIn(text);
  paths.push_back("/");
  CheckAddressesFrom(*policy, text);
  CheckEgressRules(*policy);
  CheckOwnPaths(*policy);
  CheckTreeRules(*policy, paths);
  for (const std::string& cwd : paths) CheckContainerSetup(*policy, cwd);
  return 0;
}
