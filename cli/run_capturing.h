// Running another program and reading what it prints: the host's ps(1) for
// `vigil ps`, the Docker client for `vigil audit NAME`.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil::cli {

struct Captured {
  int status = 0;  // exit code, or 128+N for signal N
  std::string output;
};

// Where the program's standard error goes: into the output with standard
// output (as Go's CombinedOutput, which runc's ps reads), or nowhere.
enum class Stderr { kCaptured, kDiscarded };

// Runs `argv` (argv[0] looked up in PATH) with standard input from
// /dev/null and waits for it. Fails only when it cannot be run at all.
Result<Captured> RunCapturing(const std::vector<std::string>& argv, Stderr stderr_goes);

}  // namespace vigil::cli
