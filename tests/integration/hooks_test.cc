// OCI hooks: each of the six kinds runs at its point of the lifecycle with
// the container's state on stdin; a failing or slow hook stops create or
// start, a failing poststop hook does not stop delete. Every case runs
// against vigil and runc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/json/json_reader.h"
#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::HasSubstr;

class HooksTest : public RuntimeTest {
 protected:
  // A hook that appends its kind to `log` and saves its stdin as `kind.json`
  // in the same directory; `sh` is the shell to run it with (the host's for
  // hooks in the runtime's namespaces, the image's for startContainer).
  static std::string Recorder(const std::string& sh, const std::string& dir,
                              const std::string& kind) {
    return R"({"path": ")" + sh + R"(", "args": ["sh", "-c", "cat > )" + dir + "/" + kind +
           ".json; echo " + kind + " >> " + dir + R"(/order"]})";
  }
};

TEST_P(HooksTest, AllSixKindsRunInOrderWithTheStateOnStdin) {
  std::string host_dir = scratch_;
  BundleConfig config;
  config.readonly_root = false;
  config.args = {"sh", "-c", "echo main >> /tmp/order"};
  // startContainer runs in the container after pivot_root: it sees the
  // image's /bin/sh and /tmp, which is bundle/rootfs/tmp on the host.
  config.hooks_json = "{\"prestart\": [" + Recorder("/bin/sh", host_dir, "prestart") +
                      "], \"createRuntime\": [" + Recorder("/bin/sh", host_dir, "createRuntime") +
                      "], \"createContainer\": [" +
                      Recorder("/bin/sh", host_dir, "createContainer") +
                      "], \"startContainer\": [" + Recorder("/bin/sh", "/tmp", "startContainer") +
                      "], \"poststart\": [" + Recorder("/bin/sh", host_dir, "poststart") +
                      "], \"poststop\": [" + Recorder("/bin/sh", host_dir, "poststop") + "]}";
  WriteConfig(config);
  std::string id = NewId();
  ASSERT_TRUE(Create(id).ok());
  std::string after_create = ReadWholeFile(host_dir + "/order");
  if (IsRunc()) {
    // A documented runc 1.1 deviation: it runs poststart hooks during
    // create, before the program starts (fixed in runc 1.2).
    EXPECT_THAT(after_create, ::testing::StartsWith("prestart\ncreateRuntime\ncreateContainer\n"));
  } else {
    EXPECT_EQ(after_create, "prestart\ncreateRuntime\ncreateContainer\n");
  }
  ASSERT_TRUE(Runtime({"start", id}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  EXPECT_EQ(ReadWholeFile(bundle_ + "/rootfs/tmp/order"), "startContainer\nmain\n");
  ASSERT_TRUE(Runtime({"delete", id}).ok());
  EXPECT_EQ(ReadWholeFile(host_dir + "/order"),
            "prestart\ncreateRuntime\ncreateContainer\npoststart\npoststop\n");

  // The state on stdin: this container, its bundle, a status fitting the
  // moment, and (before it stops) the pid of a process in its namespaces.
  for (const char* kind : {"prestart", "createRuntime", "poststart", "poststop"}) {
    SCOPED_TRACE(kind);
    auto doc = json::Document::Parse(ReadWholeFile(host_dir + "/" + kind + ".json"));
    ASSERT_TRUE(doc) << doc.error().message;
    EXPECT_EQ(doc->root().Find("id")->AsString(), id);
    EXPECT_EQ(doc->root().Find("bundle")->AsString(), bundle_);
    EXPECT_TRUE(doc->root().Find("ociVersion"));
  }
  auto created = json::Document::Parse(ReadWholeFile(host_dir + "/createRuntime.json"));
  ASSERT_TRUE(created);
  EXPECT_EQ(created->root().Find("status")->AsString(), "creating");
  EXPECT_NE(created->root().Find("pid")->NumberText(), "0");
  auto stopped = json::Document::Parse(ReadWholeFile(host_dir + "/poststop.json"));
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->root().Find("status")->AsString(), "stopped");
}

TEST_P(HooksTest, FailingCreateRuntimeHookFailsCreateLeavingNothing) {
  BundleConfig config;
  config.hooks_json = R"({"createRuntime": [{"path": "/bin/sh", "args": ["sh", "-c", "exit 4"]}]})";
  WriteConfig(config);
  std::string id = NewId();
  Outcome create = Create(id);
  EXPECT_NE(create.status, 0);
  if (!IsRunc()) {
    EXPECT_THAT(create.err, HasSubstr("hooks.createRuntime[0] /bin/sh: exit status 4"));
  }
  ExpectFailedCreateLeftNothing(id);
}

// A poststart hook runs while the container's program does, and under
// vigil the sentry keeps answering the program's syscalls meanwhile (its
// loop once sat in the hook's wait, so a hook waiting for the program
// stalled both). The program writes a file through an open the file policy
// sends to the sentry; the hook waits up to 10 s to see it.
TEST_P(HooksTest, PoststartHookRunsAlongsideTheProgram) {
  if (IsRunc()) GTEST_SKIP() << "runc 1.1 runs poststart hooks during create, before the program";
  BundleConfig config;
  config.readonly_root = false;
  config.annotations_json =
      R"({"dev.vigil.policy": "{\"files\": {\"default\": \"write\", )"
      R"(\"rules\": [{\"path\": \"/etc/secret\", \"access\": \"hidden\"}]}}"})";
  config.args = {"sh", "-c", "echo up > /ready; sleep 1"};
  const std::string ready = bundle_ + "/rootfs/ready";
  const std::string seen = scratch_ + "/poststart";
  config.hooks_json = R"({"poststart": [{"path": "/bin/sh", "args": ["sh", "-c", )"
                      R"("i=0; while [ $i -lt 100 ]; do if [ -e )" +
                      ready + R"( ]; then echo seen > )" + seen +
                      R"(; exit 0; fi; sleep 0.1; i=$((i+1)); done; echo stalled > )" + seen +
                      R"("]}]})";
  WriteConfig(config);
  std::string id = NewId();
  ASSERT_TRUE(Create(id).ok());
  ASSERT_TRUE(Runtime({"start", id}).ok());
  EXPECT_EQ(ReadWholeFile(seen), "seen\n");
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  ASSERT_TRUE(Runtime({"delete", id}).ok());
}

TEST_P(HooksTest, HookOutlivingItsTimeoutFails) {
  BundleConfig config;
  config.hooks_json =
      R"({"createRuntime": [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": 1}]})";
  WriteConfig(config);
  std::string id = NewId();
  Outcome create = Create(id);
  EXPECT_NE(create.status, 0);
  EXPECT_FALSE(create.timed_out);
  if (!IsRunc()) {
    EXPECT_THAT(create.err, HasSubstr("timed out after 1 s"));
  }
  ExpectFailedCreateLeftNothing(id);
}

TEST_P(HooksTest, FailingPoststopHookDoesNotStopDelete) {
  BundleConfig config;
  config.args = {"true"};
  config.hooks_json = R"({"poststop": [{"path": "/bin/sh", "args": ["sh", "-c", "exit 1"]}]})";
  WriteConfig(config);
  std::string id = NewId();
  ASSERT_TRUE(Create(id).ok());
  ASSERT_TRUE(Runtime({"start", id}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  Outcome del = Runtime({"delete", id});
  EXPECT_TRUE(del.ok()) << del;
  ExpectNothingLeftOf(id);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, HooksTest, ::testing::ValuesIn(RuntimesUnderTest()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
