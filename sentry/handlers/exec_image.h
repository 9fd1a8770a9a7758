// What an exec of a file makes the kernel open and map, as its binfmt
// handlers would choose: the file itself, or for a "#!" script the
// interpreter its first line names (followed through nested scripts), and
// for an ELF program the interpreter its PT_INTERP names (the dynamic
// loader, or any file a workload writes there). The exec check decides on
// every one of them as on the program itself, and records the images so
// the backend can verify, once the exec is done, that the kernel mapped
// these files and not ones swapped in after the check
// (sentry/handlers/exec.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sentry/core/verdict.h"

namespace vigil::sentry {

// The interpreter a script names, read the way binfmt_script reads the
// first 256 bytes: "#!", optional blanks, then the name up to a blank or
// the end of the line ("#! /bin/sh -e\n" -> "/bin/sh"). nullopt when `head`
// is not a script, or names no interpreter within those bytes (the kernel
// refuses such a script).
std::optional<std::string> ScriptInterpreter(std::string_view head);

// Reads `size` bytes at `offset` of a file; fewer (or none) at its end.
using ReadAt = std::function<std::string(std::uint64_t offset, std::size_t size)>;

// The interpreter an ELF file names, read as binfmt_elf reads it: the
// first PT_INTERP program header of a 32- or 64-bit little-endian ELF, a
// NUL-terminated name of 2 to PATH_MAX bytes. nullopt when the file is no
// ELF, has no PT_INTERP, or one the kernel refuses (ENOEXEC).
std::optional<std::string> ElfInterpreter(const ReadAt& read);

// Whether an ELF file is a shared object (ET_DYN with a DT_SONAME and no
// PT_INTERP): a library, or the dynamic loader itself, which run as a
// program loads and runs any file it is given by mapping it, where no exec
// check sees it. A static PIE program has no DT_SONAME.
bool IsSharedObject(const ReadAt& read);

// One interpreter an exec makes the kernel open besides the program.
struct ExecInterpreter {
  UniqueFd file;     // O_PATH, resolved in the root as the workload
  std::string name;  // as the "#!" line or PT_INTERP gives it
};

// What an exec of one file opens and maps.
struct ExecPlan {
  // Every interpreter the kernel opens besides the program, in its order:
  // each script's "#!" interpreter, then the ELF interpreter.
  std::vector<ExecInterpreter> interpreters;
  // The file /proc/PID/exe becomes: the program, or the last script's
  // interpreter. nullopt: no image is the approved one, because the chain
  // ends in a name that does not resolve (the exec can then only fail), is
  // longer than the kernel follows, or is relative (the kernel would look
  // it up from the working directory, rare enough to refuse rather than
  // read the thread's /proc entries as the workload).
  std::optional<FileId> image;
  // The ELF interpreter the image maps beside itself; nullopt when it
  // names none (a static program).
  std::optional<FileId> elf_interpreter;
  // The image is a shared object (IsSharedObject): the loader as a program.
  bool shared_object = false;
};

// The plan for an exec of `file` (an O_PATH descriptor the sentry resolved
// as the workload), its interpreters resolved in the thread's `root` as
// the workload: the caller acts as it.
Result<ExecPlan> PlanExec(int root, int file);

}  // namespace vigil::sentry
