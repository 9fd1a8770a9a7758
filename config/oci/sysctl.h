// linux.sysctl keys: "net.ipv4.ip_forward", or with slashes as sysctl(8)
// and runc accept them, "net/ipv4/ip_forward" (where a dot is part of a
// name, e.g. an interface "eth0.100").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vigil::config {

// The file under /proc/sys that `key` names, relative to it; nullopt for a
// key with an empty, "." or ".." component (which could reach elsewhere).
std::optional<std::string> SysctlRelativePath(std::string_view key);

// `key` in dotted form, for deciding which namespace owns it.
std::string DottedSysctl(std::string_view key);

}  // namespace vigil::config
