// libseccomp filter contexts and their export to a classic BPF program,
// shared by the OCI profile compiler (seccomp/profile.h) and the sentry's
// own filter (sentry/table/sentry_filter.h).
#pragma once

#include <linux/filter.h>
#include <seccomp.h>

#include <memory>
#include <vector>

#include "base/result.h"

namespace vigil::seccomp {

struct SeccompContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using SeccompContext = std::unique_ptr<void, SeccompContextDeleter>;

// The program `ctx` describes, as seccomp(SECCOMP_SET_MODE_FILTER) takes it.
Result<std::vector<sock_filter>> ExportBpf(scmp_filter_ctx ctx);

}  // namespace vigil::seccomp
