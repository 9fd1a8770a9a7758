// `ps`, `update` and `events`: the verbs containerd's shim, Docker and podman
// call on a live container (ps --format json, update --resources=-, events
// --stats). Every case runs against vigil and runc; limits are checked in
// the host's cgroup files of the container's init.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <charconv>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/runtime_harness.h"

namespace vigil::integration {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The number at `path` (keys from `root`), if it is there and a number.
std::optional<std::uint64_t> NumberAt(json::Value root, std::vector<std::string_view> path) {
  json::Value v = root;
  for (std::string_view key : path) {
    std::optional<json::Value> next = v.Find(key);
    if (!next) return std::nullopt;
    v = *next;
  }
  std::optional<std::string_view> text = v.NumberText();
  if (!text) return std::nullopt;
  std::uint64_t n = 0;
  std::from_chars(text->data(), text->data() + text->size(), n);
  return n;
}

std::optional<std::string> StringAt(json::Value root, std::string_view key) {
  std::optional<json::Value> v = root.Find(key);
  if (!v || !v->AsString()) return std::nullopt;
  return std::string(*v->AsString());
}

// The mount point of the cgroup2 hierarchy, if the host has one.
std::string UnifiedMount() {
  std::istringstream mounts(ReadWholeFile("/proc/self/mounts"));
  for (std::string line; std::getline(mounts, line);) {
    std::vector<std::string> f = Words(line);
    if (f.size() > 2 && f[2] == "cgroup2") return f[1];
  }
  return "";
}

// The host file `file_v1` (or, where `controller` lives on cgroup2,
// `file_v2`) of the cgroup that process `pid` is in, from /proc/PID/cgroup.
std::string HostCgroupFile(pid_t pid, const std::string& controller, const std::string& file_v1,
                           const std::string& file_v2) {
  std::istringstream lines(ReadWholeFile("/proc/" + std::to_string(pid) + "/cgroup"));
  std::string unified_path;
  for (std::string line; std::getline(lines, line);) {
    std::size_t first = line.find(':');
    std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    std::string path = line.substr(second + 1);
    if (controllers == ",,") unified_path = path;
    if (controllers.find("," + controller + ",") != std::string::npos) {
      return "/sys/fs/cgroup/" + controller + path + "/" + file_v1;
    }
  }
  return UnifiedMount() + unified_path + "/" + file_v2;
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

class PsUpdateEventsTest : public RuntimeTest {
 protected:
  // A running container whose init runs `sleep 1000`; returns its id.
  std::string StartSleeper(const std::string& resources_json = "{}") {
    BundleConfig config;
    config.args = {"sleep", "1000"};
    config.resources_json = resources_json;
    WriteConfig(config);
    std::string id = NewId();
    CreateAndStart(id);
    return id;
  }

  // The host pids of this test's container processes whose command line is
  // exactly `argv` (vigil's `state` pid is its supervisor's, so the tests
  // find the init by what it runs).
  std::vector<pid_t> PidsRunning(const std::vector<std::string>& argv) const {
    std::string cmdline;
    for (const std::string& arg : argv) cmdline += arg + '\0';
    std::vector<pid_t> pids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::string name = entry.path().filename().string();
      pid_t pid = 0;
      auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
      if (ec != std::errc() || end != name.data() + name.size() || !ProcessRunning(pid)) continue;
      if (ReadWholeFile("/proc/" + name + "/cmdline") == cmdline &&
          Contains(ReadWholeFile("/proc/" + name + "/environ"), marker_)) {
        pids.push_back(pid);
      }
    }
    return pids;
  }

  pid_t InitPid() {
    std::vector<pid_t> pids = PidsRunning({"sleep", "1000"});
    EXPECT_THAT(pids, SizeIs(1));
    return pids.empty() ? 0 : pids[0];
  }

  // `exec --detach ID sleep SECONDS`; returns the new process's pid.
  pid_t ExecSleep(const std::string& id, const std::string& seconds) {
    Outcome exec = Runtime({"exec", "--detach", id, "sleep", seconds});
    EXPECT_TRUE(exec.ok()) << exec;
    std::vector<pid_t> pids;
    Eventually([&] {
      pids = PidsRunning({"sleep", seconds});
      return pids.size() == 1;
    });
    EXPECT_THAT(pids, SizeIs(1));
    return pids.empty() ? 0 : pids[0];
  }

  // Runs the runtime with `input` on its standard input (the harness gives
  // commands /dev/null), through sh's redirection.
  Outcome RuntimeWithInput(const std::vector<std::string>& args, const std::string& input) {
    std::string file = scratch_ + "/stdin-" + std::to_string(commands_ + 1);
    WriteWholeFile(file, input);
    std::vector<std::string> argv = {"/bin/sh", "-c", "f=$1; shift; exec \"$@\" < \"$f\"",
                                     "sh",      file, GetParam().binary,
                                     "--root",  root_};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string base = scratch_ + "/" + std::to_string(++commands_);
    return Child::Spawn(argv, base + ".out", base + ".err").Wait();
  }

  std::string MemoryLimit(pid_t pid) {
    return Trimmed(
        ReadWholeFile(HostCgroupFile(pid, "memory", "memory.limit_in_bytes", "memory.max")));
  }
  std::string PidsMax(pid_t pid) {
    return Trimmed(ReadWholeFile(HostCgroupFile(pid, "pids", "pids.max", "pids.max")));
  }

  // `ps --format json ID`, parsed.
  std::vector<pid_t> PsJson(const std::string& id) {
    Outcome ps = Runtime({"ps", "--format", "json", id});
    EXPECT_TRUE(ps.ok()) << ps;
    std::vector<pid_t> pids;
    Result<json::Document> doc = json::Document::Parse(ps.out);
    EXPECT_TRUE(doc) << ps.out;
    if (!doc) return pids;
    for (std::size_t i = 0; i < doc->root().size(); ++i) {
      std::string_view text = doc->root().Element(i).NumberText().value_or("");
      pid_t pid = 0;
      std::from_chars(text.data(), text.data() + text.size(), pid);
      pids.push_back(pid);
    }
    return pids;
  }
};

// ---------------------------------------------------------------------------
// ps

TEST_P(PsUpdateEventsTest, PsJsonListsTheInitAndAnExecedProcess) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  pid_t exec = ExecSleep(id, "900");
  ASSERT_GT(init, 0);
  ASSERT_GT(exec, 0);
  EXPECT_THAT(PsJson(id), UnorderedElementsAre(init, exec));
}

TEST_P(PsUpdateEventsTest, PsTableKeepsTheHeaderAndOneLinePerProcess) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  pid_t exec = ExecSleep(id, "900");

  Outcome table = Runtime({"ps", id});  // ps -ef
  ASSERT_TRUE(table.ok()) << table;
  std::vector<std::string> lines = Lines(table.out);
  ASSERT_THAT(lines, SizeIs(3)) << table.out;
  EXPECT_THAT(Words(lines[0]), AllOf(::testing::Contains("PID"), ::testing::Contains("CMD")));
  std::vector<std::string> pids;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_THAT(lines[i], HasSubstr("sleep"));
    pids.push_back(Words(lines[i]).at(1));  // -ef: UID PID PPID ...
  }
  EXPECT_THAT(pids, UnorderedElementsAre(std::to_string(init), std::to_string(exec)));

  // Arguments after the id go to ps; the PID column is found by its title.
  Outcome custom = Runtime({"ps", id, "-o", "comm,pid"});
  ASSERT_TRUE(custom.ok()) << custom;
  lines = Lines(custom.out);
  ASSERT_THAT(lines, SizeIs(3)) << custom.out;
  EXPECT_EQ(Words(lines[0]), (std::vector<std::string>{"COMMAND", "PID"}));
  EXPECT_EQ(Words(lines[1]).at(0), "sleep");
  EXPECT_EQ(Words(lines[2]).at(0), "sleep");
}

TEST_P(PsUpdateEventsTest, PsWithoutAPidColumnFails) {
  std::string id = StartSleeper();
  Outcome ps = Runtime({"ps", id, "-o", "comm"});
  EXPECT_NE(ps.status, 0) << ps;
  EXPECT_THAT(ps.err, HasSubstr("PID"));
}

TEST_P(PsUpdateEventsTest, PsOfAStoppedContainerListsNothing) {
  std::string id = StartSleeper();
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  Outcome table = Runtime({"ps", id});
  ASSERT_TRUE(table.ok()) << table;
  EXPECT_THAT(Lines(table.out), SizeIs(1)) << table.out;
  EXPECT_THAT(table.out, HasSubstr("PID"));
  Outcome json = Runtime({"ps", "--format", "json", id});
  ASSERT_TRUE(json.ok()) << json;
  // runc encodes Go's nil slice; vigil prints the empty array. Both decode
  // to an empty []int.
  EXPECT_EQ(json.out, IsRunc() ? "null\n" : "[]\n");
}

TEST_P(PsUpdateEventsTest, UnknownFormatIsRefused) {
  std::string id = StartSleeper();
  Outcome ps = Runtime({"ps", "--format", "xml", id});
  EXPECT_NE(ps.status, 0) << ps;
  EXPECT_THAT(ps.err, HasSubstr("format"));
}

TEST_P(PsUpdateEventsTest, UnknownContainersDoNotExist) {
  std::string none = "it-" + unique_ + "-none";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"ps", none},
                                             {"ps", "--format", "json", none},
                                             {"update", "--memory", "64m", none},
                                             {"events", "--stats", none}}) {
    Outcome outcome = Runtime(args);
    EXPECT_NE(outcome.status, 0) << args[0] << ": " << outcome;
    EXPECT_THAT(outcome.err, HasSubstr("does not exist")) << args[0];
  }
}

// ---------------------------------------------------------------------------
// update

TEST_P(PsUpdateEventsTest, UpdateFlagsChangeTheCgroupLimits) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  Outcome update = Runtime({"update", "--memory", "64m", "--pids-limit", "42", id});
  ASSERT_TRUE(update.ok()) << update;
  EXPECT_EQ(MemoryLimit(init), "67108864");
  EXPECT_EQ(PidsMax(init), "42");

  // Bytes without a suffix, and a limit raised again.
  update = Runtime({"update", "--memory", "100663296", id});
  ASSERT_TRUE(update.ok()) << update;
  EXPECT_EQ(MemoryLimit(init), "100663296");
  EXPECT_EQ(PidsMax(init), "42");
}

TEST_P(PsUpdateEventsTest, UpdateReadsLinuxResourcesFromStandardInput) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  Outcome update = RuntimeWithInput({"update", "--resources=-", id},
                                    R"({"memory": {"limit": 33554432}, "pids": {"limit": 17}})");
  ASSERT_TRUE(update.ok()) << update;
  EXPECT_EQ(MemoryLimit(init), "33554432");
  EXPECT_EQ(PidsMax(init), "17");
}

TEST_P(PsUpdateEventsTest, UpdateReadsLinuxResourcesFromAFile) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  std::string file = scratch_ + "/resources.json";
  WriteWholeFile(file, R"({"pids": {"limit": 23}})");
  Outcome update = Runtime({"update", "--resources", file, id});
  ASSERT_TRUE(update.ok()) << update;
  EXPECT_EQ(PidsMax(init), "23");
}

// A later update starts from the limits the earlier one set, not from the
// bundle's config: the pids limit set by the first update survives the
// second, which only touches memory.
TEST_P(PsUpdateEventsTest, UpdatesAreRemembered) {
  std::string id = StartSleeper(R"({"pids": {"limit": 100}})");
  pid_t init = InitPid();
  ASSERT_EQ(PidsMax(init), "100");
  Outcome first = Runtime({"update", "--pids-limit", "30", id});
  ASSERT_TRUE(first.ok()) << first;
  Outcome second = Runtime({"update", "--memory", "64m", id});
  ASSERT_TRUE(second.ok()) << second;
  EXPECT_EQ(PidsMax(init), "30");
  EXPECT_EQ(MemoryLimit(init), "67108864");
  if (!IsRunc()) {
    // vigil keeps the container's config in its state directory.
    std::string saved = ReadWholeFile(root_ + "/" + id + "/config.json");
    EXPECT_THAT(saved, HasSubstr(R"("pids":{"limit":30})")) << saved;
    EXPECT_THAT(saved, HasSubstr(R"("limit":67108864)")) << saved;
  }
}

TEST_P(PsUpdateEventsTest, UpdateWorksOnAPausedContainer) {
  std::string id = StartSleeper();
  pid_t init = InitPid();
  ASSERT_TRUE(Runtime({"pause", id}).ok());
  Outcome update = Runtime({"update", "--pids-limit", "25", id});
  EXPECT_TRUE(update.ok()) << update;
  EXPECT_EQ(PidsMax(init), "25");
  ASSERT_TRUE(Runtime({"resume", id}).ok());
}

TEST_P(PsUpdateEventsTest, UpdateNamesTheBadProperty) {
  std::string id = StartSleeper();
  Outcome update =
      RuntimeWithInput({"update", "--resources=-", id}, R"({"memory": {"limit": "1g"}})");
  EXPECT_NE(update.status, 0) << update;
  // vigil: linux.resources.memory.limit: expected integer, got string "1g"
  // runc:  json: cannot unmarshal string into Go struct field
  //        LinuxMemory.memory.limit of type int64
  EXPECT_THAT(update.err, HasSubstr("memory.limit"));

  Outcome size = Runtime({"update", "--memory", "1x", id});
  EXPECT_NE(size.status, 0) << size;
  EXPECT_THAT(size.err, HasSubstr("1x"));
}

TEST_P(PsUpdateEventsTest, UpdateRefusesAStoppedContainer) {
  std::string id = StartSleeper();
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  Outcome update = Runtime({"update", "--memory", "64m", id});
  EXPECT_NE(update.status, 0) << update;
  EXPECT_THAT(update.err, HasSubstr("not running"));
}

// ---------------------------------------------------------------------------
// events

TEST_P(PsUpdateEventsTest, EventsStatsPrintsOneStatsLine) {
  std::string id = StartSleeper();
  ExecSleep(id, "900");
  Outcome events = Runtime({"events", "--stats", id});
  ASSERT_TRUE(events.ok()) << events;
  ASSERT_THAT(Lines(events.out), SizeIs(1)) << events.out;
  Result<json::Document> doc = json::Document::Parse(events.out);
  ASSERT_TRUE(doc) << events.out;
  json::Value root = doc->root();
  EXPECT_EQ(StringAt(root, "type"), "stats");
  EXPECT_EQ(StringAt(root, "id"), id);
  EXPECT_EQ(NumberAt(root, {"data", "pids", "current"}), 2u) << events.out;
  EXPECT_GT(NumberAt(root, {"data", "memory", "usage", "usage"}).value_or(0), 0u) << events.out;
  EXPECT_TRUE(NumberAt(root, {"data", "memory", "usage", "limit"})) << events.out;
  EXPECT_TRUE(NumberAt(root, {"data", "memory", "usage", "failcnt"})) << events.out;
  EXPECT_TRUE(NumberAt(root, {"data", "cpu", "usage", "kernel"})) << events.out;
  EXPECT_TRUE(NumberAt(root, {"data", "cpu", "usage", "user"})) << events.out;
  std::optional<json::Value> data = root.Find("data");
  ASSERT_TRUE(data);
  std::optional<json::Value> throttling = data->Find("cpu")->Find("throttling");
  ASSERT_TRUE(throttling);
  EXPECT_EQ(throttling->kind(), json::Kind::kObject);
}

TEST_P(PsUpdateEventsTest, EventsStatsShowsAnUpdatedLimit) {
  std::string id = StartSleeper();
  ASSERT_TRUE(Runtime({"update", "--memory", "64m", "--pids-limit", "50", id}).ok());
  Outcome events = Runtime({"events", "--stats", id});
  ASSERT_TRUE(events.ok()) << events;
  Result<json::Document> doc = json::Document::Parse(events.out);
  ASSERT_TRUE(doc) << events.out;
  EXPECT_EQ(NumberAt(doc->root(), {"data", "memory", "usage", "limit"}), 67108864u);
  EXPECT_EQ(NumberAt(doc->root(), {"data", "pids", "limit"}), 50u);
}

TEST_P(PsUpdateEventsTest, EventsPrintsAStatsLineEveryIntervalUntilTheContainerStops) {
  std::string id = StartSleeper();
  Child events = SpawnRuntime({"events", "--interval", "200ms", id});
  std::string out_file = scratch_ + "/" + std::to_string(commands_) + ".out";
  ASSERT_TRUE(Eventually([&] { return Lines(ReadWholeFile(out_file)).size() >= 3; }))
      << ReadWholeFile(out_file);
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  if (IsRunc()) {
    // runc 1.1.5 ends `events` when its OOM notifier sees the cgroup
    // removed, i.e. at delete, not when the container stops.
    ASSERT_TRUE(Runtime({"delete", id}).ok());
  }
  Outcome outcome = events.Wait();
  ASSERT_TRUE(outcome.ok()) << outcome;
  std::vector<std::string> lines = Lines(outcome.out);
  EXPECT_GE(lines.size(), 3u);
  for (const std::string& line : lines) {
    Result<json::Document> doc = json::Document::Parse(line);
    ASSERT_TRUE(doc) << line;
    EXPECT_EQ(StringAt(doc->root(), "type"), "stats") << line;
    EXPECT_EQ(StringAt(doc->root(), "id"), id) << line;
  }
}

TEST_P(PsUpdateEventsTest, EventsRefusesABadIntervalAndAStoppedContainer) {
  std::string id = StartSleeper();
  for (const char* interval : {"0", "-1s", "5x", "fast"}) {
    Outcome events = Runtime({"events", "--interval", interval, id});
    EXPECT_NE(events.status, 0) << interval << ": " << events;
    // No stats line (runc prints its usage text on stdout).
    EXPECT_THAT(events.out, Not(HasSubstr(R"("type":"stats")"))) << interval;
  }
  ASSERT_TRUE(Runtime({"kill", id, "KILL"}).ok());
  ASSERT_TRUE(WaitForStatus(id, "stopped"));
  for (const char* flag : {"--stats", "--interval=1s"}) {
    Outcome events = Runtime({"events", flag, id});
    EXPECT_NE(events.status, 0) << flag << ": " << events;
    EXPECT_THAT(events.err, HasSubstr("not running")) << flag;
  }
}

INSTANTIATE_TEST_SUITE_P(Runtimes, PsUpdateEventsTest, ::testing::ValuesIn(RuntimesUnderTest()),
                         RuntimeName);

}  // namespace
}  // namespace vigil::integration
