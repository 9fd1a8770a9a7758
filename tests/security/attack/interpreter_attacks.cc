// Programs the exec policy refuses, run not by naming them to execve but by
// having the kernel load them for another program: as the ELF interpreter
// (PT_INTERP) of a small ELF the attack writes where it may execute from,
// as the "#!" interpreter of a script, and through execveat of a
// descriptor. The harness runs these under a policy that allows exec from
// /bin, /tmp and /attack only (tests/security/run, INTERPRETER_ATTACKS) and
// hides /etc/vsec-hidden-bin; the forbidden programs are tiny ELFs that exit
// with kForbiddenRan, so any run of one is seen in its exit status.
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "attack.h"

namespace vigil::security {
namespace {

// Not on the policy's exec allow-list (written by the attack).
constexpr const char* kNotAllowed = "/opt/vsec-forbidden";
// Hidden by the policy's file rules (the harness puts it in the rootfs).
constexpr const char* kHidden = "/etc/vsec-hidden-bin";
// Allowed (under /tmp): the benign side of the race.
constexpr const char* kAllowedInterpreter = "/tmp/vsec-allowed-interpreter";
constexpr int kAllowedRan = 7;

// How a forked child's exec ended.
std::string Ending(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by ") + ::strsignal(WTERMSIG(status));
  if (WEXITSTATUS(status) == kForbiddenRan) return "the forbidden program ran";
  if (WEXITSTATUS(status) == kAllowedRan) return "the allowed interpreter ran";
  if (WEXITSTATUS(status) >= 100) return "refused: " + ErrnoText(WEXITSTATUS(status) - 100);
  return "exited " + std::to_string(WEXITSTATUS(status));
}

// Runs `exec` (which execs, or returns after a failed exec) in a child:
// its status, with errno + 100 as the exit code of a failed exec.
int RunExec(const std::function<void()>& exec) {
  pid_t pid = ::fork();
  if (pid == 0) {
    exec();
    ::_exit(100 + errno);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

bool ForbiddenRan(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == kForbiddenRan; }

void Execv(const char* path) {
  char* const argv[] = {const_cast<char*>(path), nullptr};
  ::execv(path, argv);
}

bool WriteExecutable(const char* path, const std::string& bytes) {
  ::unlink(path);
  std::ofstream(path, std::ios::binary) << bytes;
  return ::chmod(path, 0755) == 0;
}

// One attack's tries: each a name and the exec; ESCAPED if any forbidden
// program ran.
Outcome Try(const std::vector<std::pair<std::string, std::function<void()>>>& tries) {
  std::string detail;
  bool escaped = false;
  for (const auto& [what, exec] : tries) {
    const int status = RunExec(exec);
    escaped |= ForbiddenRan(status);
    detail += what + ": " + (status < 0 ? "fork failed" : Ending(status)) + "; ";
  }
  return escaped ? Escaped(detail) : Contained(detail);
}

bool Prepare(std::string* detail) {
  if (!WriteExecutable(kNotAllowed, TinyElf(std::nullopt, kForbiddenRan)) ||
      !WriteExecutable(kAllowedInterpreter, TinyElf(std::nullopt, kAllowedRan))) {
    *detail = "could not write the test programs: " + ErrnoText(errno);
    return false;
  }
  return true;
}

// A small ELF in /tmp whose PT_INTERP names each forbidden program; then,
// for 1 s, a PT_INTERP symlink flipped between an allowed interpreter and
// a forbidden one while ELFs naming it are exec'd.
Outcome PtInterp(const Context&) {
  std::string detail;
  if (!Prepare(&detail)) return Contained(detail);
  std::vector<std::pair<std::string, std::function<void()>>> tries;
  for (const char* forbidden : {kNotAllowed, kHidden}) {
    const std::string program = std::string("/tmp/vsec-elf-") + (forbidden == kHidden ? "h" : "n");
    WriteExecutable(program.c_str(), TinyElf(forbidden, 0));
    tries.push_back({std::string("PT_INTERP ") + forbidden, [program] { Execv(program.c_str()); }});
  }
  Outcome direct = Try(tries);

  constexpr const char* kLink = "/tmp/vsec-interpreter-link";
  constexpr const char* kFlipped = "/tmp/vsec-elf-flipped";
  ::symlink(kAllowedInterpreter, kLink);
  WriteExecutable(kFlipped, TinyElf(kLink, 0));
  std::optional<Flipper> flipper;
  flipper.emplace([&](long i) {
    ::unlink("/tmp/vsec-interpreter-link.new");
    if (::symlink((i & 1) ? kAllowedInterpreter : kNotAllowed, "/tmp/vsec-interpreter-link.new") ==
        0) {
      ::rename("/tmp/vsec-interpreter-link.new", kLink);
    }
  });
  std::map<std::string, long> tally;
  const long long deadline = NowMs() + 1000;
  while (NowMs() < deadline) ++tally[Ending(RunExec([&] { Execv(kFlipped); }))];
  flipper.reset();
  std::string race = "race for 1 s:";
  for (const auto& [what, n] : tally) race += " " + std::to_string(n) + " " + what + ",";
  const bool race_escaped = tally["the forbidden program ran"] > 0;
  std::string all = direct.detail + race;
  if (direct.escaped || race_escaped) return Escaped(all);
  if (tally["the allowed interpreter ran"] == 0) {
    return Escaped(all + " the allowed interpreter never ran (no race)");
  }
  return Contained(all);
}

// Scripts in /tmp whose "#!" line names each forbidden program.
Outcome Shebang(const Context&) {
  std::string detail;
  if (!Prepare(&detail)) return Contained(detail);
  std::vector<std::pair<std::string, std::function<void()>>> tries;
  for (const char* forbidden : {kNotAllowed, kHidden}) {
    const std::string script =
        std::string("/tmp/vsec-script-") + (forbidden == kHidden ? "h" : "n");
    WriteExecutable(script.c_str(), std::string("#!") + forbidden + "\n");
    tries.push_back({std::string("#!") + forbidden, [script] { Execv(script.c_str()); }});
  }
  return Try(tries);
}

// execveat(fd, "", AT_EMPTY_PATH) of descriptors: the forbidden program
// itself (opened O_PATH, which the policy allows), an ELF naming it as
// PT_INTERP, and a script naming it.
Outcome Execveat(const Context&) {
  std::string detail;
  if (!Prepare(&detail)) return Contained(detail);
  WriteExecutable("/tmp/vsec-elf-at", TinyElf(kNotAllowed, 0));
  WriteExecutable("/tmp/vsec-script-at", std::string("#!") + kNotAllowed + "\n");
  auto by_descriptor = [](const char* path, int flags) {
    return [path, flags] {
      const int fd = ::open(path, flags);
      if (fd < 0) return;
      char* const argv[] = {const_cast<char*>(path), nullptr};
      char* const envp[] = {nullptr};
      ::syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
    };
  };
  return Try(
      {{"the forbidden program by O_PATH descriptor", by_descriptor(kNotAllowed, O_PATH)},
       {"an ELF naming it, by descriptor", by_descriptor("/tmp/vsec-elf-at", O_RDONLY)},
       {"a script naming it, by descriptor", by_descriptor("/tmp/vsec-script-at", O_RDONLY)}});
}

}  // namespace

std::string TinyElf(std::optional<std::string> interpreter, int exit_code) {
  constexpr Elf64_Addr kBase = 0x20000000;
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_EXEC;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof header;
  header.e_ehsize = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = interpreter ? 2 : 1;
  const std::size_t code_at = sizeof header + header.e_phnum * sizeof(Elf64_Phdr);
  // mov edi, exit_code; mov eax, SYS_exit_group; syscall
  std::string code = "\xbf";
  for (int i = 0; i < 4; ++i) code += static_cast<char>((exit_code >> (8 * i)) & 0xff);
  code += std::string("\xb8\xe7\x00\x00\x00\x0f\x05", 7);
  const std::string name = interpreter ? *interpreter + '\0' : std::string();
  header.e_entry = kBase + code_at;
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  load.p_vaddr = load.p_paddr = kBase;
  load.p_filesz = load.p_memsz = code_at + code.size() + name.size();
  load.p_align = 0x1000;
  Elf64_Phdr interp{};
  interp.p_type = PT_INTERP;
  interp.p_flags = PF_R;
  interp.p_offset = code_at + code.size();
  interp.p_vaddr = interp.p_paddr = kBase + interp.p_offset;
  interp.p_filesz = interp.p_memsz = name.size();
  interp.p_align = 1;
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
  if (interpreter) bytes.append(reinterpret_cast<const char*>(&interp), sizeof interp);
  bytes.append(reinterpret_cast<const char*>(&load), sizeof load);
  return bytes + code + name;
}

namespace {

// The system loader, which the harness copies into the image for this
// attack (its policy allows exec of /lib64/* and nothing written).
constexpr const char* kLoader = "/lib64/ld-linux-x86-64.so.2";

// Execs the loader with `program` as its argument.
void ExecLoader(const std::string& program) {
  char* const argv[] = {const_cast<char*>(kLoader), const_cast<char*>(program.c_str()), nullptr};
  ::execv(kLoader, argv);
}

// What an exec check does not see: the loader run as a program maps the
// file it is given itself (mmap PROT_EXEC). Under {"exec": {"allow":
// [..., "/lib64/*"], "fromWritable": false}, "readOnlyRoot": true}: the
// loader runs the image's program the allow-list refuses, one written to
// /tmp, one in a memfd; and a file written to /tmp is mapped executable
// directly, as a loader the workload carries would.
Outcome Loader(const Context&) {
  constexpr const char* kWritten = "/tmp/vsec-loaded";
  const std::string elf = TinyElf(std::nullopt, kForbiddenRan);
  if (!WriteExecutable(kWritten, elf)) {
    return Contained("could not write " + std::string(kWritten) + ": " + ErrnoText(errno));
  }
  const int memfd = static_cast<int>(::syscall(SYS_memfd_create, "vsec", 0));
  if (memfd < 0 || ::write(memfd, elf.data(), elf.size()) != static_cast<ssize_t>(elf.size())) {
    return Contained("memfd: " + ErrnoText(errno));
  }
  Outcome ran = Try({
      {"loader + the image's refused program", [] { ExecLoader(kNotAllowed); }},
      {"loader + a program written to /tmp", [&] { ExecLoader(kWritten); }},
      {"loader + a memfd", [&] { ExecLoader("/proc/self/fd/" + std::to_string(memfd)); }},
  });
  ::close(memfd);
  ChildResult mapped = InChild([&] {
    const int fd = ::open(kWritten, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1L;
    void* at = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    return at == MAP_FAILED ? -1L : 0L;
  });
  const bool mapped_exec = mapped.exited && mapped.ret == 0;
  const std::string detail =
      ran.detail + "mmap PROT_EXEC of a file written to /tmp: " + mapped.Describe();
  return ran.escaped || mapped_exec ? Escaped(detail) : Contained(detail);
}

}  // namespace

const std::vector<Attack>& InterpreterAttacks() {
  static const std::vector<Attack> kAttacks = {
      {"interp-pt-interp", PtInterp,
       "run refused programs as the PT_INTERP of an ELF in /tmp, and race its link (1 s)"},
      {"interp-shebang", Shebang, "run refused programs as the #! interpreter of a script"},
      {"interp-execveat", Execveat,
       "execveat(AT_EMPTY_PATH) of a refused program's descriptor, and of files naming it"},
      {"exec-loader", Loader,
       "the loader runs refused, written and memfd programs; a written file mapped executable"},
  };
  return kAttacks;
}

}  // namespace vigil::security
