// The edit of each client's configuration file behind install::Install and
// install::Uninstall (verb_install.h), one source file per format:
// install_docker.cc (JSON), install_containerd.cc and install_podman.cc (TOML,
// through the marker blocks of install_toml.h).
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "cli/verb_install.h"

namespace vigil::cli::install {

// daemon.json: runtimes.NAME added or updated, or removed; removed by
// giving `before_install` back when the file is that text plus the runtime.
Result<Edit> InstallDocker(std::string_view text, const Registration& r);
Result<Edit> UninstallDocker(std::string_view text, std::string_view name,
                             std::optional<std::string_view> before_install);

// config.toml and containers.conf: `add`'s block written, or with `add`
// null, `name`'s block removed.
Result<Edit> EditContainerd(std::string_view text, const Registration* add, std::string_view name);
Result<Edit> EditPodman(std::string_view text, const Registration* add, std::string_view name);

}  // namespace vigil::cli::install
