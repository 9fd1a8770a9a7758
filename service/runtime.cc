#include "service/runtime.h"

#include <fcntl.h>

#include "base/file.h"
#include "base/run_capturing.h"
#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil::service {

namespace {

// The runtime's last line of standard error when it failed: its message.
Result<void> Ran(const std::vector<std::string>& args, int status, std::string message) {
  if (status == 0) return {};
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (const std::size_t last = message.rfind('\n'); last != std::string::npos) {
    message.erase(0, last + 1);
  }
  if (message.empty()) message = StrCat("vigil ", args.front(), " exited with ", status);
  return Fail(message);
}

}  // namespace

std::vector<std::string> Runtime::Argv(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {binary, "--root", root};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Result<void> Runtime::Run(const std::vector<std::string>& args) const {
  ASSIGN_OR_RETURN(Captured run, RunCapturing(Argv(args), Stderr::kCaptured));
  return Ran(args, run.status, std::move(run.output));
}

Result<void> Runtime::RunAttached(const std::vector<std::string>& args, int stdio,
                                  const std::string& log) const {
  UniqueFd log_fd(::open(log.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!log_fd) return FailErrno(StrCat("open ", log));
  ASSIGN_OR_RETURN(const int status, RunWithStdio(Argv(args), {stdio, stdio, log_fd.Get()}));
  if (status == 0) return {};
  Result<std::string> said = ReadFile(log, 1 << 16);
  return Ran(args, status, said ? *said : "");
}

}  // namespace vigil::service
