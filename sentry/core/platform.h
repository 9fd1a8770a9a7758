// Which backend serves a sandbox's mediated syscalls: seccomp user
// notification (the default, sentry/notify/), or ptrace (sentry/ptrace/:
// for kernels without user notification, and a reference for it).
#pragma once

#include <string_view>

#include "base/result.h"
#include "config/oci/names.h"

namespace vigil::sentry {

enum class Platform { kUnotify, kPtrace };

}  // namespace vigil::sentry

// The one list of the platforms' names: PlatformName, ParsePlatform and the
// state file's "platform" (runtime/container/record.cc) all read it.
template <>
struct vigil::config::NameTable<vigil::sentry::Platform> {
  static constexpr std::pair<std::string_view, vigil::sentry::Platform> kEntries[] = {
      {"unotify", vigil::sentry::Platform::kUnotify},
      {"ptrace", vigil::sentry::Platform::kPtrace},
  };
};

namespace vigil::sentry {

// On the ptrace platform, the descriptor every process of the container
// keeps its end of the descriptor channel as (sentry/ptrace/
// descriptor_channel.h): the highest that the common RLIMIT_NOFILE of 1024
// allows, out of the way of the lowest-free numbers new descriptors get.
inline constexpr int kDescriptorChannelFd = 1023;

// "unotify" or "ptrace", as --platform and dev.vigil.platform spell it.
std::string_view PlatformName(Platform platform);

// The inverse of PlatformName; an error names `what` (the flag or the
// annotation) and the choices.
Result<Platform> ParsePlatform(std::string_view what, std::string_view name);

}  // namespace vigil::sentry
