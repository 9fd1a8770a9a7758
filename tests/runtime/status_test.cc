// A container's status as `state` and the verbs read it: from the
// supervisor, and, as runc reads it, from the init.
#include "runtime/container/status.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"

namespace vigil::runtime {
namespace {

// A child that sleeps until killed; reaped by the destructor.
struct Child {
  Child() {
    pid = ::fork();
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
    start = ProcessStartTime(pid).value_or(0);
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  pid_t pid = -1;
  std::uint64_t start = 0;
};

// Kills `child` and waits for its exit without reaping it: a zombie, as an
// init is until its reaper waits.
void EndWithoutReaping(const Child& child) {
  ::kill(child.pid, SIGKILL);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT), 0);
}

ContainerRecord RunningRecord(const Child& supervisor, const Child& init) {
  ContainerRecord record;
  record.status = ContainerStatus::kRunning;
  record.supervisor_pid = supervisor.pid;
  record.supervisor_start = supervisor.start;
  record.init_pid = init.pid;
  record.init_start = init.start;
  return record;
}

TEST(CurrentStatus, RunningWhileTheInitRuns) {
  Child supervisor, init;
  EXPECT_EQ(CurrentStatus(RunningRecord(supervisor, init)), ContainerStatus::kRunning);
}

// The init has exited (a zombie until its reaper waits) while the
// supervisor is still recording it: stopped already, as runc says, so that
// `delete` right after the init's exit is not refused.
TEST(CurrentStatus, StoppedOnceTheInitExitsEvenBeforeTheSupervisor) {
  Child supervisor, init;
  const ContainerRecord record = RunningRecord(supervisor, init);
  EndWithoutReaping(init);
  EXPECT_EQ(CurrentStatus(record), ContainerStatus::kStopped);
  ContainerRecord created = record;
  created.status = ContainerStatus::kCreated;
  EXPECT_EQ(CurrentStatus(created), ContainerStatus::kStopped);
}

TEST(CurrentStatus, StoppedWhenTheSupervisorIsGone) {
  Child supervisor, init;
  const ContainerRecord record = RunningRecord(supervisor, init);
  EndWithoutReaping(supervisor);
  EXPECT_EQ(CurrentStatus(record), ContainerStatus::kStopped);
}

}  // namespace
}  // namespace vigil::runtime
