// The runtime under test (vigil or runc, by path) and the fixture every
// integration test derives from: a fresh bundle and --root per test.
#pragma once

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/json/json_reader.h"
#include "base/strings.h"
#include "tests/integration/harness/bundle.h"
#include "tests/integration/harness/commands.h"
#include "tests/integration/harness/files.h"

namespace vigil::integration {

struct RuntimeUnderTest {
  std::string name;                     // "vigil", "runc": names the test instance
  std::string binary;                   // absolute path
  std::vector<std::string> flags = {};  // global flags before the verb: "--platform=ptrace"
  // Arguments before the runtime's own: a wrapper's (cgroup2_only.sh VIGIL).
  std::vector<std::string> wrapped = {};
};

inline void PrintTo(const RuntimeUnderTest& runtime, std::ostream* os) {
  *os << runtime.name << " (" << runtime.binary << ")";
}

// The fields of `state` the tests read.
struct ContainerState {
  std::string id;
  std::string status;
  pid_t pid = 0;
  std::string bundle;
};

// Parses a runtime's `state` output; nullopt if it is not the OCI state.
inline std::optional<ContainerState> ParseState(const std::string& text) {
  Result<json::Document> doc = json::Document::Parse(text);
  if (!doc) return std::nullopt;
  json::Value root = doc->root();
  auto text_of = [&](std::string_view key) -> std::optional<std::string> {
    std::optional<json::Value> v = root.Find(key);
    if (!v || !v->AsString()) return std::nullopt;
    return std::string(*v->AsString());
  };
  ContainerState state;
  std::optional<std::string> id = text_of("id");
  std::optional<std::string> status = text_of("status");
  std::optional<json::Value> pid = root.Find("pid");
  if (!id || !status || !pid || !pid->NumberText()) return std::nullopt;
  state.id = *id;
  state.status = *status;
  state.bundle = text_of("bundle").value_or("");
  std::string_view digits = *pid->NumberText();
  std::from_chars(digits.data(), digits.data() + digits.size(), state.pid);
  return state;
}

// One test against one runtime: a private temporary directory holding the
// bundle (DIR/bundle/{config.json,rootfs}), the runtime's --root (DIR/root)
// and captured output (DIR/scratch). Every container process carries a
// marker environment variable, so anything left behind can be found.
class RuntimeTest : public ::testing::TestWithParam<RuntimeUnderTest> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "creating containers needs root";
    if (::access(GetParam().binary.c_str(), X_OK) != 0) {
      GTEST_SKIP() << GetParam().name << " is not installed at " << GetParam().binary;
    }
    if (::access("/bin/busybox", X_OK) != 0) {
      GTEST_SKIP() << "no /bin/busybox (busybox-static) to build a rootfs from";
    }
    char tmpl[] = "/tmp/vigil-it-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr) << "mkdtemp: " << std::strerror(errno);
    dir_ = tmpl;
    unique_ = dir_.substr(dir_.rfind('-') + 1);
    bundle_ = dir_ + "/bundle";
    root_ = dir_ + "/root";
    scratch_ = dir_ + "/scratch";
    marker_ = "VIGIL_IT_MARKER=" + dir_;
    std::filesystem::create_directories(scratch_);
    std::filesystem::create_directories(bundle_);
    BuildBusyboxRootfs(bundle_ + "/rootfs", scratch_);
    WriteConfig(BundleConfig{});
  }

  void TearDown() override {
    if (dir_.empty()) return;
    for (const std::string& id : ids_) (void)Runtime({"delete", "--force", id});
    std::vector<pid_t> left = WaitForNoLeftovers();
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    EXPECT_TRUE(left.empty()) << "processes left after delete --force: " << Describe(left);
    EXPECT_EQ(RootEntries(), std::vector<std::string>{}) << "state left after delete --force";
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  bool IsRunc() const { return GetParam().name == "runc"; }

  // A container id unique to this test (ids name cgroups, which are global),
  // remembered so TearDown deletes the container.
  std::string NewId() {
    std::string id = "it-" + unique_ + "-" + std::to_string(ids_.size());
    ids_.push_back(id);
    return id;
  }

  // Writes config.json; the marker joins the environment.
  void WriteConfig(BundleConfig config) {
    config.env.push_back(marker_);
    WriteWholeFile(bundle_ + "/config.json", ToJson(config));
  }

  // Starts `RUNTIME --root ROOT args...` without waiting for it.
  Child SpawnRuntime(const std::vector<std::string>& args, int fd3 = -1) {
    std::vector<std::string> argv = {GetParam().binary};
    argv.insert(argv.end(), GetParam().wrapped.begin(), GetParam().wrapped.end());
    argv.insert(argv.end(), {"--root", root_});
    argv.insert(argv.end(), GetParam().flags.begin(), GetParam().flags.end());
    argv.insert(argv.end(), args.begin(), args.end());
    std::string base = scratch_ + "/" + std::to_string(++commands_);
    return Child::Spawn(argv, base + ".out", base + ".err", fd3);
  }

  // Runs `RUNTIME --root ROOT args...` to completion (or its timeout).
  Outcome Runtime(const std::vector<std::string>& args) { return SpawnRuntime(args).Wait(); }

  std::string PidFile(const std::string& id) const { return scratch_ + "/" + id + ".pid"; }

  // `create --bundle B --pid-file P id`.
  Outcome Create(const std::string& id) {
    return Runtime({"create", "--bundle", bundle_, "--pid-file", PidFile(id), id});
  }

  // `run --bundle B id`: the container's output is the outcome's.
  Outcome Run(const std::string& id) { return Runtime({"run", "--bundle", bundle_, id}); }

  // Writes `config`, runs it, and returns what it printed.
  Outcome RunWith(BundleConfig config) {
    WriteConfig(std::move(config));
    return Run(NewId());
  }

  // A config whose process runs `script` with sh -c.
  static BundleConfig Script(const std::string& script) {
    BundleConfig config;
    config.args = {"sh", "-c", script};
    return config;
  }

  // RunWith, the process being `sh -c script`.
  Outcome RunScript(BundleConfig config, const std::string& script) {
    config.args = {"sh", "-c", script};
    return RunWith(std::move(config));
  }

  // The pid written to --pid-file, or 0.
  pid_t PidFromFile(const std::string& id) const {
    std::string text = ReadWholeFile(PidFile(id));
    pid_t pid = 0;
    std::from_chars(text.data(), text.data() + text.size(), pid);
    return pid;
  }

  // vigil's supervisor: the process above the init the pid file names.
  pid_t SupervisorPid(const std::string& id) const { return ParentOf(PidFromFile(id)); }

  // `state id`, parsed; nullopt (with the reason in *failure) if it failed.
  std::optional<ContainerState> State(const std::string& id, Outcome* failure = nullptr) {
    Outcome state = Runtime({"state", id});
    if (failure != nullptr) *failure = state;
    if (!state.ok()) return std::nullopt;
    return ParseState(state.out);
  }

  std::string StatusOf(const std::string& id) {
    std::optional<ContainerState> state = State(id);
    return state ? state->status : "(state failed)";
  }

  // Waits for `id` to reach `status`.
  bool WaitForStatus(const std::string& id, const std::string& status) {
    return Eventually([&] { return StatusOf(id) == status; });
  }

  // Creates and starts `id` from the current config; fails the test unless
  // it ends up running.
  void CreateAndStart(const std::string& id) {
    Outcome created = Create(id);
    ASSERT_TRUE(created.ok()) << created;
    Outcome started = Runtime({"start", id});
    ASSERT_TRUE(started.ok()) << started;
    ASSERT_EQ(StatusOf(id), "running");
  }

  // After a failed create of `id`: nothing of it remains, and no pid file
  // was written for a caller to act on.
  void ExpectFailedCreateLeftNothing(const std::string& id) {
    EXPECT_FALSE(std::filesystem::exists(PidFile(id))) << "the pid file was written";
    ExpectNothingLeftOf(id);
  }

  // Entries in the runtime's --root (none if it does not exist), but for
  // vigil's kept audit logs (ROOT/.audit), which outlive the containers.
  std::vector<std::string> RootEntries() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root_, ec)) {
      std::string name = entry.path().filename().string();
      if (name != ".audit") names.push_back(std::move(name));
    }
    return names;
  }

  // Processes that belong to this test: a container process (the marker is
  // in its environment), a runtime process (our directory is on its command
  // line: vigil's supervisor is a fork of `vigil --root DIR/root create`), or
  // a process in a cgroup named after one of our ids (runc's init before
  // exec). Zombies have ended and do not count.
  std::vector<pid_t> Leftovers() const {
    std::vector<pid_t> found;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return found;
    while (dirent* entry = ::readdir(proc)) {
      pid_t pid = 0;
      std::string_view name = entry->d_name;
      auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
      if (ec != std::errc() || end != name.data() + name.size() || pid == ::getpid()) continue;
      if (!ProcessRunning(pid)) continue;
      std::string base = "/proc/" + std::string(name);
      std::string environ = ReadWholeFile(base + "/environ");
      std::string cmdline = ReadWholeFile(base + "/cmdline");
      std::string cgroup = ReadWholeFile(base + "/cgroup");
      bool ours = Contains(environ, marker_) || Contains(cmdline, dir_);
      for (const std::string& id : ids_) ours = ours || Contains(cgroup, "/" + id + "\n");
      if (ours) found.push_back(pid);
    }
    ::closedir(proc);
    return found;
  }

  // How many processes of this test's containers run `program` (their
  // argv[0]): how a test knows the workload got as far as starting them.
  int CountContainerProcesses(std::string_view program) const {
    int count = 0;
    std::string prefix = std::string(program) + '\0';
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return 0;
    while (dirent* entry = ::readdir(proc)) {
      pid_t pid = 0;
      std::string_view name = entry->d_name;
      auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
      if (ec != std::errc() || end != name.data() + name.size() || !ProcessRunning(pid)) continue;
      std::string base = "/proc/" + std::string(name);
      if (ReadWholeFile(base + "/cmdline").starts_with(prefix) &&
          Contains(ReadWholeFile(base + "/environ"), marker_)) {
        ++count;
      }
    }
    ::closedir(proc);
    return count;
  }

  // Waits for this test's processes to be gone; returns those that stay.
  std::vector<pid_t> WaitForNoLeftovers() const {
    std::vector<pid_t> left;
    Eventually([&] {
      left = Leftovers();
      return left.empty();
    });
    return left;
  }

  static std::string Describe(const std::vector<pid_t>& pids) {
    std::string out;
    for (pid_t pid : pids) {
      std::string cmdline = ReadWholeFile("/proc/" + std::to_string(pid) + "/cmdline");
      for (char& c : cmdline) c = c == '\0' ? ' ' : c;
      out += "\n  " + std::to_string(pid) + ": " + cmdline;
    }
    return out;
  }

  // Once `id` is gone (deleted, or never created): no state, no entry under
  // --root, no process.
  void ExpectNothingLeftOf(const std::string& id) {
    Outcome state;
    EXPECT_FALSE(State(id, &state)) << state;
    EXPECT_THAT(state.err, ::testing::HasSubstr("does not exist"));
    EXPECT_EQ(RootEntries(), std::vector<std::string>{}) << "under " << root_;
    std::vector<pid_t> left = WaitForNoLeftovers();
    EXPECT_TRUE(left.empty()) << "processes left behind:" << Describe(left);
  }

  static bool Contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
  }

  std::string dir_;
  std::string unique_;
  std::string bundle_;
  std::string root_;
  std::string scratch_;
  std::string marker_;
  std::vector<std::string> ids_;
  int commands_ = 0;
};

// The runtimes every suite runs against.
inline std::vector<RuntimeUnderTest> RuntimesUnderTest() {
  return {{"vigil", VIGIL_BINARY}, {"runc", "/usr/sbin/runc"}};
}

#ifdef VIGIL_CGROUP2_ONLY
// The runtimes, and vigil as a cgroup v2-only host runs it: started through
// cgroup2_only.sh, it sees only the cgroup2 hierarchy (mounted alone at
// /sys/fs/cgroup in a mount namespace of its own), whatever this host has.
inline std::vector<RuntimeUnderTest> CgroupRuntimes() {
  std::vector<RuntimeUnderTest> runtimes = RuntimesUnderTest();
  runtimes.push_back({"vigil_cgroup2", VIGIL_CGROUP2_ONLY, {}, {VIGIL_BINARY}});
  return runtimes;
}
#endif

// For vigil_cgroup2: why the host's cgroup2 hierarchy cannot give a test
// the controllers it needs (on a hybrid host they may be bound to v1
// hierarchies), or "" when it can. Other runtimes: always "".
inline std::string Cgroup2Lacks(const RuntimeUnderTest& runtime,
                                std::initializer_list<std::string_view> controllers) {
  if (runtime.name != "vigil_cgroup2") return "";
  std::istringstream mounts(ReadWholeFile("/proc/self/mountinfo"));
  std::string mount_point;
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string field; fields >> field;) f.push_back(field);
    auto dash = std::find(f.begin(), f.end(), "-");
    if (dash != f.end() && dash + 1 != f.end() && *(dash + 1) == "cgroup2" && f.size() > 4) {
      mount_point = f[4];
    }
  }
  if (mount_point.empty()) return "this host mounts no cgroup2 hierarchy";
  std::string offered = ReadWholeFile(mount_point + "/cgroup.controllers");
  while (!offered.empty() && offered.back() == '\n') offered.pop_back();
  std::istringstream names(offered);
  std::set<std::string> have;
  for (std::string name; names >> name;) have.insert(name);
  for (std::string_view needed : controllers) {
    if (!have.count(std::string(needed))) {
      return "needs the " + std::string(needed) +
             " controller on cgroup2; this host's cgroup2 "
             "hierarchy (" +
             mount_point + ") offers only \"" + offered +
             "\": the rest are bound to its cgroup v1 hierarchies, and a controller is in one "
             "hierarchy at a time";
    }
  }
  return "";
}

inline std::string RuntimeName(const ::testing::TestParamInfo<RuntimeUnderTest>& info) {
  return info.param.name;
}

}  // namespace vigil::integration
