// The device-cgroup rules a container runs with (linux.resources.devices
// plus the runtime's defaults), and their cgroup v1 spelling.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/oci/resources.h"

namespace vigil::runtime::cgroup {

// The rules to hand to Cgroup::Apply in Resources::devices, built as runc
// 1.1 builds them: the config's linux.resources.devices in order, then the
// allows that always follow them -- mknod of any char or block device
// ("c *:* m", "b *:* m"), the nodes every container's /dev gets (null 1:3,
// random 1:8, full 1:7, tty 5:0, zero 1:5, urandom 1:9), /dev/pts/*
// (136:*), /dev/ptmx (5:2) and /dev/net/tun (10:200). Later rules win, so a
// config cannot deny those; but a node linux.devices adds gets no rule of
// its own: it opens only as far as linux.resources.devices allows (Docker's
// --device writes both).
std::vector<config::DeviceRule> DeviceRulesFor(const std::vector<config::DeviceRule>& configured);

// Whether `rules` grant a device of `type` ('c' or 'b') and number
// major:minor every access in `access` (letters of "rwm"), as the device
// cgroup judges them: for each letter the last rule that names the device
// and the letter decides, and a letter no rule names is allowed (a new
// cgroup starts from the root's allow-all; the usual first rule, deny-all,
// names them all).
bool DeviceAccessAllowed(const std::vector<config::DeviceRule>& rules, char type,
                         std::int64_t major, std::int64_t minor, std::string_view access);

// A rule as cgroup v1's devices.allow / devices.deny take it: "c 1:3 rwm",
// "b 8:* r"; a rule for every device with all of "rwm" is just "a". A rule of
// type "a" (or empty) that the kernel cannot express ("a 1:3 r") becomes a
// "c" and a "b" line. Empty access means "rwm".
std::vector<std::string> V1DeviceLines(const config::DeviceRule& rule);

}  // namespace vigil::runtime::cgroup
