// Docker's default profile, as `docker run` writes it into config.json
// (tests/config/corpus/docker_run.json): it must compile with the library
// here, and a workload under it must see what it sees under runc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/file.h"
#include "config/oci/config.h"
#include "seccomp/profile.h"
#include "tests/seccomp/under_filter.h"

namespace vigil::runtime {
namespace {

using testing::ErrnoOf;
using testing::Exited;
using ::testing::IsEmpty;
using testing::RunUnderFilter;

config::Seccomp DockerProfile() {
  Result<std::string> text =
      ReadFile(std::string(VIGIL_TEST_DATA) + "/../config/corpus/docker_run.json", 1 << 20);
  EXPECT_TRUE(text) << text.error().message;
  if (!text) return {};
  Result<config::Spec> spec = config::ParseSpec(*text);
  EXPECT_TRUE(spec) << spec.error().message;
  if (!spec || !spec->linux_spec || !spec->linux_spec->seccomp) return {};
  return *spec->linux_spec->seccomp;
}

// clone(2) that cannot leave a stray copy of the test running: a child that
// the filter should have stopped exits at once.
long Clone(unsigned long flags) {
  long pid = ::syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) ::_exit(0);
  if (pid > 0) ::syscall(SYS_wait4, pid, nullptr, 0, nullptr);
  return pid;
}

struct Probe {
  const char* what;
  long (*call)();
  int expected_errno;  // 0: succeeds
};

// The arguments of the denied calls would fail in the kernel with another
// errno (EFAULT, EINVAL) or do nothing harmful, should the filter let one by.
const Probe kProbes[] = {
    {"getpid", [] { return ::syscall(SYS_getpid); }, 0},
    {"uname",
     [] {
       utsname u;
       return ::syscall(SYS_uname, &u);
     },
     0},
    {"getcwd",
     [] {
       char buf[4096];
       return ::syscall(SYS_getcwd, buf, sizeof buf);
     },
     0},
    {"personality(0xffffffff)", [] { return ::syscall(SYS_personality, 0xffffffffUL); }, 0},
    {"personality(ADDR_NO_RANDOMIZE)", [] { return ::syscall(SYS_personality, ADDR_NO_RANDOMIZE); },
     EPERM},
    {"socket(AF_UNIX)", [] { return ::syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0); }, 0},
    {"socket(AF_VSOCK)", [] { return ::syscall(SYS_socket, AF_VSOCK, SOCK_STREAM, 0); }, EPERM},
    {"clone(SIGCHLD)", [] { return Clone(0); }, 0},
    {"clone(CLONE_NEWUTS)", [] { return Clone(CLONE_NEWUTS); }, EPERM},
    {"clone3", [] { return ::syscall(SYS_clone3, nullptr, 0); }, ENOSYS},
    {"unshare(0)", [] { return ::syscall(SYS_unshare, 0); }, EPERM},
    {"mount(NULL...)", [] { return ::syscall(SYS_mount, nullptr, nullptr, nullptr, 0, nullptr); },
     EPERM},
    {"kexec_load(bad flags)", [] { return ::syscall(SYS_kexec_load, 0, 0, nullptr, 0x100); },
     EPERM},
    {"bpf(bad cmd)", [] { return ::syscall(SYS_bpf, 0xffff, nullptr, 0); }, EPERM},
};

TEST(DockerProfileTest, Compiles) {
  Result<seccomp::CompiledFilter> filter = seccomp::CompileSeccomp(DockerProfile());
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_FALSE(filter->has_notify);
  EXPECT_EQ(filter->flags, 0u);
  EXPECT_LE(filter->program.size(), 4096u);
  // Every name in the corpus is known to libseccomp 2.5.4.
  EXPECT_THAT(filter->skipped_names, IsEmpty());
}

TEST(DockerProfileTest, WorkloadSeesWhatItSeesUnderRunc) {
  Result<seccomp::CompiledFilter> filter = seccomp::CompileSeccomp(DockerProfile());
  ASSERT_TRUE(filter) << filter.error().message;
  for (const Probe& probe : kProbes) {
    EXPECT_THAT(RunUnderFilter(*filter, [&] { return ErrnoOf(probe.call()); }),
                Exited(probe.expected_errno))
        << probe.what;
  }
}

// Docker's profile lets the init wait for `start` under it, so a Docker
// container's init becomes its process at create (runtime/process/init.h).
TEST(DockerProfileTest, AllowsTheWaitForStart) {
  EXPECT_TRUE(seccomp::AllowsUnconditionally(DockerProfile(), "recvmsg"));
}

}  // namespace
}  // namespace vigil::runtime
