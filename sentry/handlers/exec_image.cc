#include "sentry/handlers/exec_image.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "base/strings.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// What binfmt_script reads of a file (BINPRM_BUF_SIZE) and how deep the
// kernel follows interpreters that are scripts themselves (its recursion
// limit is 5 binfmt handlers in all).
constexpr std::size_t kHeadSize = 256;
constexpr int kMaxInterpreters = 4;

bool Blank(char c) { return c == ' ' || c == '\t'; }

// The first bytes of the regular file behind the O_PATH `file`; empty when
// it cannot be read (an execute-only binary: then it is no script either
// for an interpreter, which could not read it).
std::string Head(int file) {
  UniqueFd readable(::open(StrCat("/proc/self/fd/", file).c_str(),
                           O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!readable) return {};
  std::array<char, kHeadSize> head{};
  const ssize_t n = ::pread(readable.Get(), head.data(), head.size(), 0);
  return n > 0 ? std::string(head.data(), static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

std::optional<std::string> ScriptInterpreter(std::string_view head) {
  if (!head.starts_with("#!")) return std::nullopt;
  std::string_view line = head.substr(2);
  const std::size_t end = line.find('\n');
  const bool whole_line = end != std::string_view::npos;
  if (whole_line) line = line.substr(0, end);
  std::size_t start = 0;
  while (start < line.size() && Blank(line[start])) ++start;
  std::size_t stop = start;
  while (stop < line.size() && !Blank(line[stop]) && line[stop] != '\0') ++stop;
  if (stop == start) return std::nullopt;
  // A name running to the end of the bytes read may be cut short: the
  // kernel refuses it rather than guess.
  if (!whole_line && stop == line.size()) return std::nullopt;
  return std::string(line.substr(start, stop - start));
}

Result<std::optional<FileId>> ExecImage(int root, int file) {
  UniqueFd interpreter;
  int current = file;
  for (int depth = 0;; ++depth) {
    struct stat st {};
    if (::fstat(current, &st) != 0) return FailErrno("fstat of the file to execute");
    const FileId id{.dev = st.st_dev, .ino = st.st_ino};
    if (!S_ISREG(st.st_mode)) return std::optional(id);  // the exec fails: nothing maps
    std::optional<std::string> name = ScriptInterpreter(Head(current));
    if (!name) return std::optional(id);
    if (depth == kMaxInterpreters || !name->starts_with('/')) return std::optional<FileId>();
    Result<UniqueFd> next = ResolveInRoot(root, *name, O_PATH);
    if (!next) return std::optional<FileId>();
    interpreter = std::move(*next);
    current = interpreter.Get();
  }
}

}  // namespace vigil::sentry
