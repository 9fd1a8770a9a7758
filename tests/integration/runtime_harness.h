// A harness for integration tests that drive an OCI runtime binary — vigil or
// runc, given by path — the way containerd and conmon do: one fresh bundle
// (a busybox rootfs and a config.json) and one fresh --root per test, every
// command run with fork/exec (no shell), captured, and killed if it hangs.
//
// Header-only: vigil_test_dir builds one binary per *_test.cc and links only
// the libraries it is given, so shared helpers live here as inline code.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/json/json_reader.h"
#include "base/strings.h"

namespace vigil::integration {

// How long any one runtime command may take before the test calls it hung.
inline constexpr std::chrono::seconds kCommandTimeout{20};
// How long a container may take to reach a state the test is waiting for.
inline constexpr std::chrono::seconds kSettleTimeout{10};

// ---------------------------------------------------------------------------
// Files and processes.

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void WriteWholeFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The process's state letter from /proc/PID/stat ('R', 'S', 'Z', ...), or
// nullopt when there is no such process.
inline std::optional<char> ProcessState(pid_t pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return std::nullopt;
  return stat[paren + 2];
}

// True while `pid` exists and has not exited: a zombie waiting for its
// parent to reap it has ended, so it does not count.
inline bool ProcessRunning(pid_t pid) {
  if (pid <= 0) return false;
  std::optional<char> state = ProcessState(pid);
  return state && *state != 'Z' && *state != 'X';
}

// Polls `done` until it holds or `limit` passes; returns its last answer.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds limit = kSettleTimeout) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// ---------------------------------------------------------------------------
// Running commands.

// How a command ended, and what it wrote.
struct Outcome {
  int status = -1;  // exit code, 128+N for signal N, -1 if it could not run
  bool timed_out = false;
  std::string out;
  std::string err;
  // Where stdout and stderr went: after `create` the container writes there.
  std::string out_file;
  std::string err_file;

  bool ok() const { return status == 0 && !timed_out; }
};

inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "status " << o.status << (o.timed_out ? " (timed out, killed)" : "") << "\n--- stdout\n"
     << o.out << "--- stderr\n"
     << o.err << "---";
  return os;
}

// True if `text` is one line ending in a newline: what a caller that shows
// the runtime's error (containerd, podman) can display as it is.
inline bool IsOneLine(const std::string& text) {
  return !text.empty() && text.back() == '\n' && std::count(text.begin(), text.end(), '\n') == 1;
}

// A started command whose stdout and stderr go to files: a runtime's
// `create` hands its stdio to the container, so a pipe would not see end of
// file until the container exits.
class Child {
 public:
  // Starts argv[0] (an absolute path) with stdin from /dev/null; `fd3`, if
  // given, becomes its descriptor 3 (for --preserve-fds).
  static Child Spawn(const std::vector<std::string>& argv, std::string out_path,
                     std::string err_path, int fd3 = -1) {
    Child child;
    child.out_path_ = std::move(out_path);
    child.err_path_ = std::move(err_path);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return child;
    if (pid == 0) {
      // Its own process group, so a hung command goes with its helpers.
      ::setpgid(0, 0);
      int in = ::open("/dev/null", O_RDONLY);
      int out = ::open(child.out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(child.err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      if (fd3 >= 0) {
        ::dup2(fd3, 3);
        ::fcntl(3, F_SETFD, 0);  // dup2(3, 3) would keep close-on-exec
      }
      ::syscall(SYS_close_range, fd3 >= 0 ? 4u : 3u, ~0u, 0u);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    child.pid_ = pid;
    child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    return child;
  }

  Child(Child&& other) noexcept
      : pid_(std::exchange(other.pid_, -1)),
        pidfd_(std::exchange(other.pidfd_, -1)),
        out_path_(std::move(other.out_path_)),
        err_path_(std::move(other.err_path_)) {}
  Child& operator=(Child&&) = delete;
  ~Child() {
    if (pid_ > 0) (void)Wait(std::chrono::seconds(0));
  }

  pid_t pid() const { return pid_; }

  // Waits up to `limit` for the command to exit; past it, kills its process
  // group and reports a timeout. Either way the child is reaped.
  Outcome Wait(std::chrono::milliseconds limit = kCommandTimeout) {
    Outcome outcome{.out_file = out_path_, .err_file = err_path_};
    if (pid_ <= 0) {
      outcome.err = "fork failed";
      return outcome;
    }
    pollfd p{.fd = pidfd_, .events = POLLIN, .revents = 0};
    int ready;
    do {
      ready = ::poll(&p, 1, static_cast<int>(limit.count()));
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      outcome.timed_out = true;
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
    }
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
    ::close(pidfd_);
    pid_ = pidfd_ = -1;
    if (!outcome.timed_out) {
      outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    }
    outcome.out = ReadWholeFile(out_path_);
    outcome.err = ReadWholeFile(err_path_);
    return outcome;
  }

 private:
  Child() = default;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::string out_path_;
  std::string err_path_;
};

// ---------------------------------------------------------------------------
// Bundles.

// Builds a busybox rootfs at `rootfs`: /bin/busybox plus a symlink for every
// applet, and the directories a container expects to mount on.
inline void BuildBusyboxRootfs(const std::string& rootfs, const std::string& scratch) {
  namespace fs = std::filesystem;
  static const std::vector<std::string> applets = [&] {
    Outcome list =
        Child::Spawn({"/bin/busybox", "--list"}, scratch + "/busybox.out", scratch + "/busybox.err")
            .Wait();
    std::vector<std::string> names;
    std::istringstream lines(list.out);
    for (std::string name; std::getline(lines, name);) {
      if (!name.empty() && name != "busybox") names.push_back(name);
    }
    return names;
  }();
  for (const char* dir : {"bin", "proc", "dev", "sys", "tmp", "etc"}) {
    fs::create_directories(rootfs + "/" + dir);
  }
  fs::permissions(rootfs + "/tmp", fs::perms::all | fs::perms::sticky_bit);
  fs::copy_file("/bin/busybox", rootfs + "/bin/busybox");
  for (const std::string& applet : applets) {
    fs::create_symlink("busybox", rootfs + "/bin/" + applet);
  }
}

// A JSON string literal: base's Quote escapes exactly what JSON needs.
inline std::string JsonString(std::string_view s) { return Quote(s); }
inline std::string JsonStrings(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + JsonString(values[i]);
  }
  return out + "]";
}

struct Rlimit {
  std::string type;
  std::uint64_t hard;
  std::uint64_t soft;
};

struct Capabilities {
  std::vector<std::string> bounding;
  std::vector<std::string> effective;
  std::vector<std::string> permitted;
  std::vector<std::string> inheritable;
  std::vector<std::string> ambient;
};

// The parts of config.json the tests vary. The defaults are `runc spec`'s
// (terminal off), minus the cgroup filesystem mount, which lifecycle tests
// do not need.
struct BundleConfig {
  std::vector<std::string> args = {"sh"};
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  std::string cwd = "/";
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> additional_gids;
  std::vector<Rlimit> rlimits = {{"RLIMIT_NOFILE", 1024, 1024}};
  std::optional<Capabilities> capabilities = Capabilities{
      .bounding = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"},
      .effective = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"},
      .permitted = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"},
  };
  bool no_new_privileges = true;
  std::string hostname = "it-host";
  std::string domainname;  // left out when empty
  std::string root_path = "rootfs";
  bool readonly_root = true;
  std::vector<std::string> namespaces = {"pid", "network", "ipc", "uts", "mount"};
  std::vector<std::string> masked_paths = {
      "/proc/acpi",          "/proc/asound",     "/proc/kcore",       "/proc/keys",
      "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
      "/sys/firmware",       "/proc/scsi"};
  std::vector<std::string> readonly_paths = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                             "/proc/sysrq-trigger"};
  // linux.resources as raw JSON text, e.g. R"({"memory": {"limit": 1}})".
  std::string resources_json = "{}";
  // More mounts as raw JSON objects, appended after the standard ones.
  std::vector<std::string> extra_mounts_json;
  // More members of "process" and "linux", as raw JSON text such as
  // R"("oomScoreAdj": 500)", appended to those objects.
  std::string process_extra_json;
  std::string linux_extra_json;
  // The "hooks" object as raw JSON text; left out when empty.
  std::string hooks_json;
  // The "annotations" object as raw JSON text; left out when empty.
  std::string annotations_json;
};

inline std::string ToJson(const BundleConfig& c) {
  std::string caps;
  if (c.capabilities) {
    const Capabilities& k = *c.capabilities;
    caps = ",\n    \"capabilities\": {\"bounding\": " + JsonStrings(k.bounding) +
           ", \"effective\": " + JsonStrings(k.effective) +
           ", \"permitted\": " + JsonStrings(k.permitted) +
           ", \"inheritable\": " + JsonStrings(k.inheritable) +
           ", \"ambient\": " + JsonStrings(k.ambient) + "}";
  }
  std::string gids;
  for (std::size_t i = 0; i < c.additional_gids.size(); ++i) {
    gids += (i ? ", " : "") + std::to_string(c.additional_gids[i]);
  }
  std::string rlimits;
  for (std::size_t i = 0; i < c.rlimits.size(); ++i) {
    rlimits += std::string(i ? ", " : "") + "{\"type\": " + JsonString(c.rlimits[i].type) +
               ", \"hard\": " + std::to_string(c.rlimits[i].hard) +
               ", \"soft\": " + std::to_string(c.rlimits[i].soft) + "}";
  }
  std::string extra_mounts;
  for (const std::string& mount : c.extra_mounts_json) extra_mounts += ",\n    " + mount;
  // "type", or "type=path" to join an existing namespace.
  std::string namespaces;
  for (std::size_t i = 0; i < c.namespaces.size(); ++i) {
    const std::string& ns = c.namespaces[i];
    std::size_t eq = ns.find('=');
    namespaces += std::string(i ? ", " : "") + "{\"type\": " + JsonString(ns.substr(0, eq)) +
                  (eq == std::string::npos ? "" : ", \"path\": " + JsonString(ns.substr(eq + 1))) +
                  "}";
  }
  return R"({
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": {"uid": )" +
         std::to_string(c.uid) + ", \"gid\": " + std::to_string(c.gid) + ", \"additionalGids\": [" +
         gids + "]},\n    \"args\": " + JsonStrings(c.args) +
         ",\n    \"env\": " + JsonStrings(c.env) + ",\n    \"cwd\": " + JsonString(c.cwd) + caps +
         ",\n    \"rlimits\": [" + rlimits +
         "],\n    \"noNewPrivileges\": " + (c.no_new_privileges ? "true" : "false") +
         (c.process_extra_json.empty() ? "" : ",\n    " + c.process_extra_json) +
         "\n  },\n  \"root\": {\"path\": " + JsonString(c.root_path) +
         ", \"readonly\": " + (c.readonly_root ? "true" : "false") +
         "},\n  \"hostname\": " + JsonString(c.hostname) +
         (c.domainname.empty() ? "" : ",\n  \"domainname\": " + JsonString(c.domainname)) +
         (c.hooks_json.empty() ? "" : ",\n  \"hooks\": " + c.hooks_json) +
         (c.annotations_json.empty() ? "" : ",\n  \"annotations\": " + c.annotations_json) + R"(,
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
     "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
     "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
     "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs",
     "options": ["nosuid", "noexec", "nodev", "ro"]})" +
         extra_mounts + R"(
  ],
  "linux": {
    "resources": )" +
         c.resources_json + ",\n    \"namespaces\": [" + namespaces +
         "],\n    \"maskedPaths\": " + JsonStrings(c.masked_paths) +
         ",\n    \"readonlyPaths\": " + JsonStrings(c.readonly_paths) +
         (c.linux_extra_json.empty() ? "" : ",\n    " + c.linux_extra_json) + "\n  }\n}\n";
}

// ---------------------------------------------------------------------------
// The runtime under test.

struct RuntimeUnderTest {
  std::string name;    // "vigil", "runc": names the test instance
  std::string binary;  // absolute path
  std::vector<std::string> flags = {};  // global flags before the verb: "--platform=ptrace"
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
    std::vector<std::string> argv = {GetParam().binary, "--root", root_};
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

  // Entries in the runtime's --root (none if it does not exist).
  std::vector<std::string> RootEntries() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root_, ec)) {
      names.push_back(entry.path().filename().string());
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

inline std::string RuntimeName(const ::testing::TestParamInfo<RuntimeUnderTest>& info) {
  return info.param.name;
}

}  // namespace vigil::integration
