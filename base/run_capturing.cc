#include "base/run_capturing.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"
#include "base/unique_fd.h"

namespace vigil {
namespace {

// Starts `argv` with what `actions` says of its descriptors.
Result<pid_t> Spawn(const std::vector<std::string>& argv, posix_spawn_file_actions_t* actions) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(actions);
  if (spawned != 0) return FailErrno(spawned, StrCat("run ", argv[0]));
  return pid;
}

// Its exit code, or 128+N for signal N.
Result<int> Wait(pid_t pid, const std::string& name) {
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0) {
    if (errno != EINTR) return FailErrno(StrCat("wait for ", name));
  }
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

}  // namespace

Result<Captured> RunCapturing(const std::vector<std::string>& argv, Stderr stderr_goes) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return FailErrno("pipe");
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.Get(), 1);
  if (stderr_goes == Stderr::kCaptured) {
    posix_spawn_file_actions_adddup2(&actions, write_end.Get(), 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  ASSIGN_OR_RETURN(const pid_t pid, Spawn(argv, &actions));
  write_end.Reset();
  Captured captured;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(read_end.Get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    captured.output.append(buf, static_cast<std::size_t>(n));
  }
  ASSIGN_OR_RETURN(captured.status, Wait(pid, argv[0]));
  return captured;
}

Result<int> RunWithStdio(const std::vector<std::string>& argv, const int (&stdio)[3]) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd = 0; fd < 3; ++fd) posix_spawn_file_actions_adddup2(&actions, stdio[fd], fd);
  ASSIGN_OR_RETURN(const pid_t pid, Spawn(argv, &actions));
  return Wait(pid, argv[0]);
}

}  // namespace vigil
