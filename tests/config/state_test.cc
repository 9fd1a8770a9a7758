#include "config/oci/state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "base/json/json_reader.h"
#include "base/strings.h"

namespace vigil::config {
namespace {

using ::testing::HasSubstr;

State RunningState() {
  return State{.oci_version = "1.2.0",
               .id = "c1",
               .status = ContainerStatus::kRunning,
               .pid = 4242,
               .bundle = "/srv/bundles/c1",
               .annotations = {{"io.kubernetes.cri.container-type", "sandbox"}}};
}

// The error ParseState reports, or "" if it parsed.
std::string StateError(std::string_view text) {
  Result<State> state = ParseState(text);
  return state ? "" : state.error().message;
}

TEST(StateTest, ParsesTheRuntimeSpecExample) {
  // runtime-spec runtime.md, "State", example.
  auto state = ParseState(R"({
    "ociVersion": "0.2.0",
    "id": "oci-container1",
    "status": "running",
    "pid": 4422,
    "bundle": "/containers/redis",
    "annotations": {"myKey": "myValue"}
  })");
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(*state, (State{.oci_version = "0.2.0",
                           .id = "oci-container1",
                           .status = ContainerStatus::kRunning,
                           .pid = 4422,
                           .bundle = "/containers/redis",
                           .annotations = {{"myKey", "myValue"}}}));
}

TEST(StateTest, DumpWritesCompactJsonInSpecOrder) {
  EXPECT_EQ(DumpState(RunningState()),
            R"({"ociVersion":"1.2.0","id":"c1","status":"running","pid":4242,)"
            R"("bundle":"/srv/bundles/c1",)"
            R"("annotations":{"io.kubernetes.cri.container-type":"sandbox"}})");
}

TEST(StateTest, RoundTrips) {
  State state = RunningState();
  auto again = ParseState(DumpState(state));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, state);
}

TEST(StateTest, EveryStatusRoundTripsByName) {
  const std::pair<ContainerStatus, std::string_view> kStatuses[] = {
      {ContainerStatus::kCreating, "creating"}, {ContainerStatus::kCreated, "created"},
      {ContainerStatus::kRunning, "running"},   {ContainerStatus::kPaused, "paused"},
      {ContainerStatus::kStopped, "stopped"},
  };
  for (const auto& [status, name] : kStatuses) {
    SCOPED_TRACE(name);
    State state = RunningState();
    state.status = status;
    std::string text = DumpState(state);
    EXPECT_THAT(text, HasSubstr(StrCat(R"("status":")", name, "\"")));
    auto again = ParseState(text);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->status, status);
    EXPECT_EQ(NameOf(status), name);
  }
}

TEST(StateTest, UnknownStatusListsTheChoices) {
  EXPECT_EQ(
      StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "exited", "bundle": "/b"})"),
      R"(status: unknown value "exited"; expected one of creating, created, running, paused, )"
      "stopped");
  EXPECT_EQ(
      StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "Running", "bundle": "/b"})"),
      R"(status: unknown value "Running"; expected one of creating, created, running, paused, )"
      "stopped");
}

TEST(StateTest, MissingRequiredFieldsAreNamed) {
  EXPECT_EQ(StateError(R"({"id": "c", "status": "created", "bundle": "/b"})"),
            "ociVersion: required property is missing");
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "status": "created", "bundle": "/b"})"),
            "id: required property is missing");
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "bundle": "/b"})"),
            "status: required property is missing");
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "created"})"),
            "bundle: required property is missing");
  EXPECT_EQ(
      StateError(R"({"ociVersion": "1.2.0", "id": null, "status": "created", "bundle": "/b"})"),
      "id: required property is null");
}

TEST(StateTest, PidAndAnnotationsAreOptional) {
  auto state =
      ParseState(R"({"ociVersion": "1.2.0", "id": "c", "status": "stopped", "bundle": "/b"})");
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(state->pid, 0);
  EXPECT_TRUE(state->annotations.empty());
}

TEST(StateTest, PidZeroIsStillWritten) {
  // A number is always written: hooks read "pid" without checking for it.
  State state = RunningState();
  state.status = ContainerStatus::kStopped;
  state.pid = 0;
  EXPECT_THAT(DumpState(state), HasSubstr(R"("pid":0)"));
}

TEST(StateTest, EmptyAnnotationsAreOmitted) {
  State state = RunningState();
  state.annotations.clear();
  EXPECT_THAT(DumpState(state), testing::Not(HasSubstr("annotations")));
  auto again = ParseState(DumpState(state));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, state);
}

TEST(StateTest, PidMustBeAnInteger) {
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "running", "bundle": "/b",
                           "pid": "42"})"),
            R"(pid: expected 32-bit integer, got string "42")");
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "running", "bundle": "/b",
                           "pid": 42.0})"),
            "pid: expected 32-bit integer, got number 42.0");
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "running", "bundle": "/b",
                           "pid": 2147483648})"),
            "pid: expected 32-bit integer in [-2147483648, 2147483647], got number 2147483648");
}

TEST(StateTest, LargestPidRoundTrips) {
  // /proc/sys/kernel/pid_max is at most 2^22; an int holds every pid.
  State state = RunningState();
  state.pid = 4194304;
  auto again = ParseState(DumpState(state));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->pid, 4194304);
}

TEST(StateTest, IgnoresUnknownKeys) {
  auto state = ParseState(R"({"ociVersion": "1.2.0", "id": "c", "status": "created",
                              "bundle": "/b", "rootfs": "/b/rootfs", "created": "2024-01-01",
                              "owner": ""})");
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(
      *state,
      (State{
          .oci_version = "1.2.0", .id = "c", .status = ContainerStatus::kCreated, .bundle = "/b"}));
}

TEST(StateTest, RefusesWhatIsNotAStateObject) {
  EXPECT_EQ(StateError("[]"), "(root): expected object, got array");
  EXPECT_THAT(StateError(""), HasSubstr("document is empty"));
  EXPECT_THAT(StateError(R"({"id": )"), HasSubstr("invalid JSON"));
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "created", "bundle": "/b",
                           "annotations": {"k": 1}})"),
            "annotations.k: expected string, got number 1");
}

TEST(StateTest, DumpIsValidJson) {
  State state = RunningState();
  state.id = "quote\"and\\backslash";
  state.bundle = "/tmp/caf\xc3\xa9";
  std::string text = DumpState(state);
  auto doc = json::Document::Parse(text);
  ASSERT_TRUE(doc) << doc.error().message << "\n" << text;
  EXPECT_EQ(doc->root().Find("id")->AsString(), "quote\"and\\backslash");
  auto again = ParseState(text);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, state);
}

// What a seccomp agent receives: runc's agents read fds, pid, metadata and
// the state beneath.
TEST(StateTest, ContainerProcessStateCarriesTheStateAndNamesTheDescriptor) {
  const std::string text = DumpContainerProcessState(
      {.oci_version = "1.2.0", .pid = 42, .metadata = "bar", .state = RunningState()});
  auto doc = json::Document::Parse(text);
  ASSERT_TRUE(doc) << doc.error().message << "\n" << text;
  EXPECT_EQ(doc->root().Find("pid")->NumberText(), "42");
  EXPECT_EQ(doc->root().Find("metadata")->AsString(), "bar");
  EXPECT_EQ(doc->root().Find("fds")->size(), 1u);
  EXPECT_EQ(doc->root().Find("fds")->Element(0).AsString(), "seccompFd");
  const std::optional<json::Value> state = doc->root().Find("state");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->Find("id")->AsString(), RunningState().id);
  EXPECT_EQ(state->Find("status")->AsString(), "running");
  EXPECT_EQ(state->Find("bundle")->AsString(), RunningState().bundle);
}

TEST(StateTest, NegativePidIsRefused) {
  // kill(-1, ...) would reach every process the runtime may signal.
  EXPECT_EQ(StateError(R"({"ociVersion": "1.2.0", "id": "c", "status": "running", "bundle": "/b",
                           "pid": -1})"),
            "pid: must not be negative");
}

}  // namespace
}  // namespace vigil::config
