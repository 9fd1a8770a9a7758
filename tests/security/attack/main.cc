// /attack NAME   runs one attack and prints its JSON line
// /attack list   prints every attack's name and summary
// /attack noop   exits 0 (what the harness execs during exe-overwrite)
// /attack forbidden-ran   exits 42 (the forbidden binary of exec-path-flip)
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "attack.h"

namespace vigil::security {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

long EnvLong(const char* name) { return std::strtol(Env(name).c_str(), nullptr, 0); }

Context FromEnvironment() {
  Context c;
  c.secret = Env("VIGIL_SEC_SECRET");
  c.marker = Env("VIGIL_SEC_MARKER");
  c.port = static_cast<int>(EnvLong("VIGIL_SEC_PORT"));
  c.abstract = Env("VIGIL_SEC_ABSTRACT");
  c.caps = std::strtoull(Env("VIGIL_SEC_CAPS").c_str(), nullptr, 16);
  c.pids_limit = EnvLong("VIGIL_SEC_PIDS");
  c.memory_limit = EnvLong("VIGIL_SEC_MEMORY");
  c.tmpfs_size = EnvLong("VIGIL_SEC_TMPFS");
  c.cpu_percent = static_cast<int>(EnvLong("VIGIL_SEC_CPU"));
  return c;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20 || ch >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

std::vector<Attack> AllAttacks() {
  std::vector<Attack> all;
  for (const auto* family :
       {&FsAttacks(), &KernelAttacks(), &NetAttacks(), &ProcessAttacks(), &ResourceAttacks(),
        &InterpreterAttacks(), &LeftToKernelAttacks(), &DeputyAttacks()}) {
    all.insert(all.end(), family->begin(), family->end());
  }
  return all;
}

}  // namespace
}  // namespace vigil::security

int main(int argc, char** argv) {
  using namespace vigil::security;
  if (argc < 2) {
    std::fprintf(stderr, "usage: attack NAME | list | noop\n");
    return 2;
  }
  std::string name = argv[1];
  if (name == "noop") return 0;
  if (name == kForbiddenRanArg) return kForbiddenRan;
  if (name == "tiny-elf" && argc == 3) {
    const std::string elf = TinyElf(std::nullopt, kForbiddenRan);
    const int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    const bool written =
        fd >= 0 && ::write(fd, elf.data(), elf.size()) == static_cast<ssize_t>(elf.size());
    if (fd >= 0) ::close(fd);
    return written ? 0 : 1;
  }
  std::vector<Attack> all = AllAttacks();
  if (name == "list") {
    for (const Attack& a : all) {
      std::printf("%-24s %.*s\n", std::string(a.name).c_str(), static_cast<int>(a.summary.size()),
                  a.summary.data());
    }
    return 0;
  }
  for (const Attack& a : all) {
    if (a.name != name) continue;
    Outcome o = a.fn(FromEnvironment());
    std::string line = "{\"attack\":" + JsonString(a.name) + ",\"result\":\"" +
                       (o.escaped ? "ESCAPED" : "CONTAINED") +
                       "\",\"detail\":" + JsonString(o.detail) + "}\n";
    // One write, so a line is never interleaved with a child's output.
    (void)!::write(1, line.data(), line.size());
    return 0;
  }
  std::fprintf(stderr, "attack: unknown attack %s\n", name.c_str());
  return 2;
}
