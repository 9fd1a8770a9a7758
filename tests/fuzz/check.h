// How the fuzz targets report a broken property: a message naming the
// target, then a trap, which libFuzzer counts as a crash and saves the input.
#pragma once

#include <errno.h>

#include <cstdio>
#include <string>

#include "base/result.h"

namespace vigil::fuzz {

[[noreturn]] inline void Die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n%s\n", program_invocation_short_name, what, detail.c_str());
  __builtin_trap();
}

// Every error is one line: the CLI prints it as is, and the JSON log embeds it.
inline void CheckOneLine(const Error& error) {
  if (error.message.find('\n') != std::string::npos) Die("error spans lines", error.message);
}

}  // namespace vigil::fuzz
