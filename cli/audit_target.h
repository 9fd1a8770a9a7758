// Which container `vigil audit REFERENCE` means, found the way a Docker user
// names one: its whole id, a prefix of it that is one container's alone (the
// 12 characters `docker ps` shows), or its Docker name. The containers are
// looked for in every state root vigil made containers in
// (runtime/container/known_roots.h): dockerd gives its own, which its users
// do not know.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::cli {

struct AuditTarget {
  std::string root;
  std::string id;
};

// The containers of `root` with an audit: those it holds, and those gone
// whose kept log (ROOT/.audit/ID.jsonl) remains; by id, each once.
std::vector<std::string> AuditedIds(const std::string& root);

// The container id a Docker name stands for, if Docker knows the name.
using NameLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Asks the Docker client the user would (`docker inspect`, its DOCKER_HOST
// and context): Docker 20.10 passes no container name to its runtime.
std::optional<std::string> DockerIdOf(std::string_view name);

// `reference` in `roots`, in that order: an id, then a prefix of exactly
// one id, then the id `lookup` gives the name. The error names what was
// looked for and where; a prefix of several ids lists them.
Result<AuditTarget> FindAuditTarget(std::string_view reference,
                                    const std::vector<std::string>& roots,
                                    const NameLookup& lookup);

}  // namespace vigil::cli
