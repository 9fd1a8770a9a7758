#include "sentry/handlers/exec_image.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/strings.h"
#include "sentry/handlers/resolve.h"

namespace vigil::sentry {
namespace {

// What binfmt_script reads of a file (BINPRM_BUF_SIZE) and how deep the
// kernel follows interpreters that are scripts themselves (its recursion
// limit is 5 binfmt handlers in all).
constexpr std::size_t kHeadSize = 256;
constexpr int kMaxInterpreters = 4;
// load_elf_phdrs refuses a program header table larger than a page.
constexpr std::size_t kMaxProgramHeaders = 4096;

bool Blank(char c) { return c == ' ' || c == '\t'; }

// The regular file behind the O_PATH `file`, opened for reading as the
// caller; none when it cannot be (an execute-only binary: then it is no
// script either for an interpreter, which could not read it, and its ELF
// interpreter is unknown, so none is approved and one it maps is killed).
UniqueFd Readable(int file) {
  return UniqueFd(
      ::open(StrCat("/proc/self/fd/", file).c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
}

std::string ReadBytes(int fd, std::uint64_t offset, std::size_t size) {
  std::string bytes(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, bytes.data() + got, size - got, static_cast<off_t>(offset + got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

template <typename T>
std::optional<T> As(std::string_view bytes, std::size_t at = 0) {
  if (bytes.size() < at + sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// PT_INTERP of an ELF of class Ehdr/Phdr (32 or 64 bits).
template <typename Ehdr, typename Phdr>
std::optional<std::string> InterpreterOf(const std::string& head, const ReadAt& read) {
  std::optional<Ehdr> header = As<Ehdr>(head);
  if (!header || (header->e_type != ET_EXEC && header->e_type != ET_DYN) ||
      header->e_phentsize != sizeof(Phdr)) {
    return std::nullopt;
  }
  const std::size_t table = std::size_t{header->e_phnum} * sizeof(Phdr);
  if (table == 0 || table > kMaxProgramHeaders) return std::nullopt;
  const std::string headers = read(header->e_phoff, table);
  for (std::size_t i = 0; i < header->e_phnum; ++i) {
    std::optional<Phdr> ph = As<Phdr>(headers, i * sizeof(Phdr));
    if (!ph) return std::nullopt;  // a short table: the kernel's read fails too
    if (ph->p_type != PT_INTERP) continue;
    if (ph->p_filesz < 2 || ph->p_filesz > PATH_MAX) return std::nullopt;
    const std::string name = read(ph->p_offset, ph->p_filesz);
    if (name.size() != ph->p_filesz || name.back() != '\0') return std::nullopt;
    return std::string(name.c_str());  // up to the first NUL, as the kernel opens it
  }
  return std::nullopt;
}

// What the dynamic section may take of a file: far more than any loader's.
constexpr std::size_t kMaxDynamicSection = 64 << 10;

// IsSharedObject for an ELF of class Ehdr/Phdr/Dyn (32 or 64 bits).
template <typename Ehdr, typename Phdr, typename Dyn>
bool SharedObjectOf(const std::string& head, const ReadAt& read) {
  std::optional<Ehdr> header = As<Ehdr>(head);
  if (!header || header->e_type != ET_DYN || header->e_phentsize != sizeof(Phdr)) return false;
  const std::size_t table = std::size_t{header->e_phnum} * sizeof(Phdr);
  if (table == 0 || table > kMaxProgramHeaders) return false;
  const std::string headers = read(header->e_phoff, table);
  std::optional<Phdr> dynamic;
  for (std::size_t i = 0; i < header->e_phnum; ++i) {
    std::optional<Phdr> ph = As<Phdr>(headers, i * sizeof(Phdr));
    if (!ph || ph->p_type == PT_INTERP) return false;
    if (ph->p_type == PT_DYNAMIC) dynamic = ph;
  }
  if (!dynamic || dynamic->p_filesz > kMaxDynamicSection) return false;
  const std::string entries = read(dynamic->p_offset, dynamic->p_filesz);
  for (std::size_t at = 0; at + sizeof(Dyn) <= entries.size(); at += sizeof(Dyn)) {
    const std::optional<Dyn> entry = As<Dyn>(entries, at);
    if (entry->d_tag == DT_NULL) break;
    if (entry->d_tag == DT_SONAME) return true;
  }
  return false;
}

std::optional<FileId> IdOf(int file) {
  struct stat st {};
  if (::fstat(file, &st) != 0) return std::nullopt;
  return FileId{.dev = st.st_dev, .ino = st.st_ino};
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

std::optional<std::string> ElfInterpreter(const ReadAt& read) {
  const std::string head = read(0, sizeof(Elf64_Ehdr));
  if (head.size() < EI_NIDENT || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0 ||
      head[EI_DATA] != ELFDATA2LSB) {
    return std::nullopt;
  }
  if (head[EI_CLASS] == ELFCLASS64) return InterpreterOf<Elf64_Ehdr, Elf64_Phdr>(head, read);
  if (head[EI_CLASS] == ELFCLASS32) return InterpreterOf<Elf32_Ehdr, Elf32_Phdr>(head, read);
  return std::nullopt;
}

bool IsSharedObject(const ReadAt& read) {
  const std::string head = read(0, sizeof(Elf64_Ehdr));
  if (head.size() < EI_NIDENT || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0 ||
      head[EI_DATA] != ELFDATA2LSB) {
    return false;
  }
  if (head[EI_CLASS] == ELFCLASS64)
    return SharedObjectOf<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(head, read);
  if (head[EI_CLASS] == ELFCLASS32)
    return SharedObjectOf<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(head, read);
  return false;
}

Result<ExecPlan> PlanExec(int root, int file) {
  ExecPlan plan;
  int current = file;
  UniqueFd readable;
  for (int depth = 0;; ++depth) {
    struct stat st {};
    if (::fstat(current, &st) != 0) return FailErrno("fstat of the file to execute");
    if (!S_ISREG(st.st_mode)) {  // the exec fails: nothing maps
      plan.image = FileId{.dev = st.st_dev, .ino = st.st_ino};
      return plan;
    }
    readable = Readable(current);
    std::optional<std::string> name =
        readable ? ScriptInterpreter(ReadBytes(readable.Get(), 0, kHeadSize)) : std::nullopt;
    if (!name) {
      plan.image = FileId{.dev = st.st_dev, .ino = st.st_ino};
      break;
    }
    if (depth == kMaxInterpreters || !name->starts_with('/')) return plan;
    Result<UniqueFd> next = ResolveInRoot(root, *name, O_PATH);
    if (!next) return plan;
    plan.interpreters.push_back({std::move(*next), std::move(*name)});
    current = plan.interpreters.back().file.Get();
  }
  if (!readable) return plan;
  const ReadAt read = [&](std::uint64_t offset, std::size_t size) {
    return ReadBytes(readable.Get(), offset, size);
  };
  std::optional<std::string> elf = ElfInterpreter(read);
  if (!elf) {
    plan.shared_object = IsSharedObject(read);
    return plan;
  }
  // A relative name is looked up from the working directory (see image).
  Result<UniqueFd> interpreter = FailErrno(ENOENT, "a relative ELF interpreter");
  if (elf->starts_with('/')) interpreter = ResolveInRoot(root, *elf, O_PATH);
  if (interpreter) plan.elf_interpreter = IdOf(interpreter->Get());
  if (!plan.elf_interpreter) {
    plan.image.reset();  // the exec fails, or maps what no check saw
    return plan;
  }
  plan.interpreters.push_back({std::move(*interpreter), std::move(*elf)});
  return plan;
}

}  // namespace vigil::sentry
