// The device-cgroup rules a container runs with (linux.resources.devices
// plus the runtime's defaults), and their cgroup v1 spelling.
#pragma once

#include <string>
#include <vector>

#include "config/oci/linux.h"
#include "config/oci/resources.h"

namespace vigil::runtime::cgroup {

// The rules to hand to Cgroup::Apply in Resources::devices, built as runc
// builds them: the config's linux.resources.devices in order, then allows
// that always follow them -- mknod of any char or block device ("c *:* m",
// "b *:* m"), /dev/pts/* (136:*), /dev/ptmx (5:2) -- and an "rwm" allow for
// each node the container's /dev gets (`nodes`: runtime::DevicesFor's list,
// linux.devices plus /dev/null, zero, full, random, urandom, tty). FIFOs
// ("p") are not device-cgroup business and get no rule. Later rules win, so
// a config cannot deny a node the runtime itself puts in /dev.
std::vector<config::DeviceRule> DeviceRulesFor(const std::vector<config::DeviceRule>& configured,
                                               const std::vector<config::Device>& nodes);

// A rule as cgroup v1's devices.allow / devices.deny take it: "c 1:3 rwm",
// "b 8:* r"; a rule for every device with all of "rwm" is just "a". A rule of
// type "a" (or empty) that the kernel cannot express ("a 1:3 r") becomes a
// "c" and a "b" line. Empty access means "rwm".
std::vector<std::string> V1DeviceLines(const config::DeviceRule& rule);

}  // namespace vigil::runtime::cgroup
