// Which program image an exec of a file ends up mapping, as the kernel's
// binfmt handlers would choose it: the file itself, or for a "#!" script
// the interpreter its first line names (followed through nested scripts).
// The exec check records it so the backend can verify, once the exec is
// done, that the kernel mapped this file and not one swapped in after the
// check (sentry/handlers/exec.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "sentry/core/verdict.h"

namespace vigil::sentry {

// The interpreter a script names, read the way binfmt_script reads the
// first 256 bytes: "#!", optional blanks, then the name up to a blank or
// the end of the line ("#! /bin/sh -e\n" -> "/bin/sh"). nullopt when `head`
// is not a script, or names no interpreter within those bytes (the kernel
// refuses such a script).
std::optional<std::string> ScriptInterpreter(std::string_view head);

// The image an exec of `file` (an O_PATH descriptor the sentry resolved as
// the workload) maps, its interpreters resolved in the thread's `root` as
// the workload: the caller acts as it. nullopt when the chain ends in a
// name that does not resolve (the exec can then only fail), is longer than
// the kernel follows, or is relative: the kernel would look that up from
// the working directory, which is rare enough to refuse rather than read
// the thread's /proc entries as the workload.
Result<std::optional<FileId>> ExecImage(int root, int file);

}  // namespace vigil::sentry
