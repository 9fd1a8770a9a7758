// What `vigil serve` makes sandboxes from: templates, named in
// `POST /sandboxes {"template": NAME}`, each with a warm pool of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::service {

struct Template {
  std::string name;
  // An OCI bundle whose root filesystem holds Python; empty: the host's own
  // files, read-only, as `vigil do` shows them (kHostTemplate).
  std::string bundle;
  std::string python = "python3";  // the interpreter, in the sandbox's PATH
  std::string policy = "agent";    // a profile, inline JSON or a policy file
  std::size_t pool = 1;            // sandboxes kept ready for the next request
  // A sandbox's life when its request names none, and the longest one may ask.
  std::chrono::seconds lifetime{300};
  std::chrono::seconds max_lifetime{3600};
  // Idle this long, a sandbox is paused and gives its memory back.
  std::chrono::seconds idle_pause{30};
  std::optional<std::int64_t> memory_limit;  // bytes
  // Where the code may connect ("HOST:PORT", "HOST:FIRST-LAST", HOST an
  // address or a DNS name, as `vigil do --net allow=`): the sandbox's own
  // network reaches the host's through slirp4netns, and the sentry refuses
  // every other destination. Empty: no network.
  std::vector<std::string> egress;
  std::int64_t workspace_bytes = 256 << 20;  // the host template's /workspace
};

// The built-in template, there whatever the configuration says.
inline constexpr std::string_view kHostTemplate = "python";

// The templates a configuration file names, after the built-in one:
//
//   {"templates": {"NAME": {"bundle": DIR, "python": CMD, "policy": P,
//     "pool": N, "lifetime": "5m", "maxLifetime": "1h", "idlePause": "30s",
//     "memory": "512M", "egress": ["pypi.org:443"]}}}
//
// Each member is optional ("python" overrides the built-in's pool and
// lifetimes when it is named). Errors name the JSON path.
Result<std::vector<Template>> ParseTemplates(std::string_view text);

// The built-in template alone.
std::vector<Template> DefaultTemplates();

}  // namespace vigil::service
