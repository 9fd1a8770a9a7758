// Running another program and reading what it prints: the host's ps(1) for
// `vigil ps`, the Docker client for `vigil audit NAME`, the vigil binary
// itself for `vigil serve`.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil {

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

// Runs `argv` with `stdio` as its standard input, output and error and
// waits for it: for a program whose children keep them (the vigil create
// that leaves a supervisor behind), where a pipe would never end. Returns
// its exit status as Captured's.
Result<int> RunWithStdio(const std::vector<std::string>& argv, const int (&stdio)[3]);

}  // namespace vigil
