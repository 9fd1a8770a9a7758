// `exec`: another process in a running container, as containerd (--process
// FILE --detach --pid-file) and a person (ARGS...) start one. Every case runs
// against vigil and runc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

class ExecTest : public RuntimeTest {
 protected:
  // A running container whose init sleeps; returns its id.
  std::string StartSleeper() {
    BundleConfig config;
    config.args = {"sleep", "100"};
    WriteConfig(config);
    std::string id = NewId();
    CreateAndStart(id);
    return id;
  }
};

TEST_P(ExecTest, RunsInTheContainerAndReturnsTheExitCode) {
  std::string id = StartSleeper();
  Outcome exec =
      Runtime({"exec", id, "sh", "-c", "echo \"$(hostname) $(cat /proc/1/comm)\"; exit 5"});
  EXPECT_EQ(exec.status, 5) << exec;
  // The container's UTS and pid namespaces: its hostname, its init as pid 1.
  EXPECT_EQ(exec.out, "it-host sleep\n") << exec;
}

TEST_P(ExecTest, FlagsSetEnvCwdAndUser) {
  std::string id = StartSleeper();
  Outcome exec = Runtime({"exec", "--env", "GREETING=hi", "--cwd", "/tmp", "--user", "1000:1001",
                          id, "sh", "-c", "echo $GREETING $(pwd) $(id -u) $(id -g)"});
  ASSERT_TRUE(exec.ok()) << exec;
  EXPECT_EQ(exec.out, "hi /tmp 1000 1001\n");
}

TEST_P(ExecTest, ProcessFileDescribesTheWholeProcess) {
  std::string id = StartSleeper();
  std::string process = scratch_ + "/process.json";
  WriteWholeFile(process, R"({"terminal": false, "user": {"uid": 2000, "gid": 2000},
      "args": ["sh", "-c", "echo $FROM_FILE $(id -u); exit 3"],
      "env": ["PATH=/bin", "FROM_FILE=yes"], "cwd": "/", "noNewPrivileges": true})");
  Outcome exec = Runtime({"exec", "--process", process, id});
  EXPECT_EQ(exec.status, 3) << exec;
  EXPECT_EQ(exec.out, "yes 2000\n");
}

TEST_P(ExecTest, DetachedWritesThePidFileAndLeavesTheProcessRunning) {
  std::string id = StartSleeper();
  std::string pid_file = scratch_ + "/exec.pid";
  Outcome exec = Runtime({"exec", "--detach", "--pid-file", pid_file, id, "sleep", "100"});
  ASSERT_TRUE(exec.ok()) << exec;
  pid_t pid = 0;
  std::string text = ReadWholeFile(pid_file);
  std::from_chars(text.data(), text.data() + text.size(), pid);
  ASSERT_GT(pid, 0) << "pid file: " << text;
  EXPECT_TRUE(ProcessRunning(pid));
  // runc writes the pid file before its process has exec'd.
  EXPECT_TRUE(Eventually(
      [&] { return ReadWholeFile("/proc/" + std::to_string(pid) + "/comm") == "sleep\n"; }));
  // It belongs to the container: killing the container takes it along.
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  EXPECT_TRUE(Eventually([&] { return !ProcessRunning(pid); }));
}

TEST_P(ExecTest, MissingProgramFailsWithItsName) {
  std::string id = StartSleeper();
  Outcome exec = Runtime({"exec", id, "no-such-program"});
  EXPECT_NE(exec.status, 0);
  EXPECT_THAT(exec.err + exec.out, HasSubstr("no-such-program"));
}

TEST_P(ExecTest, StoppedOrUnknownContainersAreRefused) {
  std::string id = StartSleeper();
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  Outcome stopped = Runtime({"exec", id, "true"});
  EXPECT_NE(stopped.status, 0) << stopped;
  Outcome unknown = Runtime({"exec", "it-" + unique_ + "-none", "true"});
  EXPECT_NE(unknown.status, 0);
  EXPECT_THAT(unknown.err, HasSubstr("does not exist"));
}

INSTANTIATE_TEST_SUITE_P(Runtimes, ExecTest, ::testing::ValuesIn(RuntimesUnderTest()), RuntimeName);

}  // namespace
}  // namespace vigil::integration
