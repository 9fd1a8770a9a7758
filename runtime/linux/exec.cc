#include "runtime/linux/exec.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/strings.h"

namespace vigil::runtime {
namespace {

constexpr std::string_view kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<std::string> LookPath(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) {
    if (IsExecutableFile(name)) return name;
    return Fail(StrCat("exec: ", Quote(name), ": no such executable file"));
  }
  std::string_view path = kDefaultPath;
  for (const std::string& entry : env) {
    if (entry.starts_with("PATH=")) path = std::string_view(entry).substr(5);
  }
  while (true) {
    std::string_view dir = path.substr(0, path.find(':'));
    std::string candidate = StrCat(dir.empty() ? "." : dir, "/", name);
    if (IsExecutableFile(candidate)) return candidate;
    if (dir.size() == path.size()) break;
    path.remove_prefix(dir.size() + 1);
  }
  return Fail(StrCat("exec: ", Quote(name), ": executable file not found in $PATH"));
}

Result<void> Exec(const std::string& path, const std::vector<std::string>& args,
                  const std::vector<std::string>& env) {
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);
  ::execve(path.c_str(), argv.data(), envp.data());
  return FailErrno(StrCat("exec ", Quote(path)));
}

}  // namespace vigil::runtime
