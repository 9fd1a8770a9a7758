// Running the vigil binary from a test, as a user would from a shell:
// its exit status and what it printed.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "base/file.h"

namespace vigil::test {

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

// A file's text, "" if it cannot be read.
inline std::string Slurp(const std::string& path) { return ReadFile(path, 1 << 20).value_or(""); }

// Runs `vigil ARGS` (a shell-quoted string), its output captured in files
// under `dir`.
inline Outcome RunVigil(const std::string& args, const std::string& dir) {
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const int raw =
      std::system((std::string(VIGIL_BINARY) + " " + args + " >" + out + " 2>" + err).c_str());
  return Outcome{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Slurp(out), Slurp(err)};
}

}  // namespace vigil::test
