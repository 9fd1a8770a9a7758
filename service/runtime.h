// How `vigil serve` runs the runtime that makes its sandboxes: the vigil
// binary (or another runtime with runc's command line, to compare).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace vigil::service {

// How the service runs containers: the vigil binary (this one) with the
// state root its sandboxes live under, as any other container of vigil's
// (`vigil list` shows them, `vigil audit` reads them).
struct Runtime {
  std::string binary = "/proc/self/exe";
  std::string root;
  // `vigil --root ROOT args...`. The error is vigil's own line.
  Result<void> Run(const std::vector<std::string>& args) const;
  // The same with `stdio` as its standard input and output and its
  // standard error in the file `log`: for `create`, whose supervisor and
  // container keep them (the container's kernel talks over `stdio`).
  Result<void> RunAttached(const std::vector<std::string>& args, int stdio,
                           const std::string& log) const;

 private:
  std::vector<std::string> Argv(const std::vector<std::string>& args) const;
};

}  // namespace vigil::service
