// The conformance probe: a static program copied into every case's rootfs at
// /probe. It prints one JSON object on stdout describing what the process
// sees — namespaces, credentials, capabilities, rlimits, NNP, seccomp,
// oom_score_adj, cwd, environment, UTS names, mounts, cgroups, personality,
// terminal — so a case can compare it with config.json.
//
// Optional actions after the program name, each reported in "checks" in order:
//   read PATH      read up to 4 KiB       openw PATH   open for writing (no write)
//   create PATH    O_CREAT|O_EXCL a file  mkdir PATH   mkdir 0755
//   stat PATH      lstat: type, mode, owner, device numbers
//   ls PATH        directory entries      personality N  personality(N)
//   chroot PATH    chroot(2) (a CAP_SYS_CHROOT test)
//   sethostname S  sethostname(2)         getppid        getppid(2)
//   seccomp-listener X  an allow-all filter with a listener of its own
//   syscall NR     syscall(NR, 0, 0, 0), its errno reported
//   sleep SECONDS  sleep before printing  exit CODE    exit with CODE after printing
//   raise SIGNAL   raise SIGNAL after printing
//   wait-stdin     block until stdin reaches end of file before printing
//
// Static, without yajl: the JSON is written by hand, every string escaped.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace {

// A JSON writer that knows only what the probe needs: objects, arrays,
// strings, integers and booleans, with commas placed by a "first" flag.
class Json {
 public:
  void BeginObject() {
    Separator();
    out_ += '{';
    first_ = true;
  }
  void EndObject() {
    out_ += '}';
    first_ = false;
  }
  void BeginArray() {
    Separator();
    out_ += '[';
    first_ = true;
  }
  void EndArray() {
    out_ += ']';
    first_ = false;
  }
  void Key(std::string_view key) {
    Separator();
    String(key);
    out_ += ':';
    first_ = true;  // the value that follows takes no comma
  }
  void Str(std::string_view s) {
    Separator();
    String(s);
  }
  void Int(long long v) {
    Separator();
    out_ += std::to_string(v);
  }
  void Uint(unsigned long long v) {
    Separator();
    out_ += std::to_string(v);
  }
  void Bool(bool v) {
    Separator();
    out_ += v ? "true" : "false";
  }
  void Null() {
    Separator();
    out_ += "null";
  }

  void KeyStr(std::string_view k, std::string_view v) {
    Key(k);
    Str(v);
  }
  void KeyInt(std::string_view k, long long v) {
    Key(k);
    Int(v);
  }
  void KeyUint(std::string_view k, unsigned long long v) {
    Key(k);
    Uint(v);
  }
  void KeyBool(std::string_view k, bool v) {
    Key(k);
    Bool(v);
  }

  const std::string& text() const { return out_; }

 private:
  void Separator() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  void String(std::string_view s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20 || c >= 0x7f) {
            // Bytes outside ASCII are escaped one by one (as Latin-1 code
            // points) so the output is valid JSON whatever the input holds.
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  bool first_ = true;
};

bool ReadFile(const std::string& path, std::string* out, std::size_t limit = 1 << 20) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int saved = errno;
      ::close(fd);
      errno = saved;
      return false;
    }
    if (n == 0) break;
    out->append(buf, static_cast<std::size_t>(n));
    if (out->size() >= limit) break;
  }
  ::close(fd);
  return true;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t at = s.find(sep, start);
    parts.emplace_back(s.substr(start, at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() + 0 && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

void StatusFields(Json& j) {
  std::string status;
  ReadFile("/proc/self/status", &status);
  auto field = [&](std::string_view name) -> std::string {
    for (const std::string& line : Split(status, '\n')) {
      if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
          line[name.size()] == ':') {
        return Trim(line.substr(name.size() + 1));
      }
    }
    return "";
  };
  auto ids = [&](std::string_view key, std::string_view name) {
    j.Key(key);
    j.BeginArray();
    for (const std::string& part : Split(field(name), '\t')) {
      if (!Trim(part).empty()) j.Int(std::atoll(part.c_str()));
    }
    j.EndArray();
  };
  ids("uids", "Uid");  // real, effective, saved, filesystem
  ids("gids", "Gid");
  j.Key("groups");
  j.BeginArray();
  for (const std::string& part : Split(field("Groups"), ' ')) {
    if (!Trim(part).empty()) j.Int(std::atoll(part.c_str()));
  }
  j.EndArray();
  j.KeyInt("umask", std::strtol(field("Umask").c_str(), nullptr, 8));
  j.Key("caps");
  j.BeginObject();
  for (auto [key, name] : {std::pair{"inheritable", "CapInh"},
                           {"permitted", "CapPrm"},
                           {"effective", "CapEff"},
                           {"bounding", "CapBnd"},
                           {"ambient", "CapAmb"}}) {
    j.KeyUint(key, std::strtoull(field(name).c_str(), nullptr, 16));
  }
  j.EndObject();
  j.KeyInt("no_new_privs_status", std::atoi(field("NoNewPrivs").c_str()));
  j.KeyInt("seccomp_mode", std::atoi(field("Seccomp").c_str()));
  j.KeyInt("seccomp_filters", std::atoi(field("Seccomp_filters").c_str()));
}

void Namespaces(Json& j) {
  j.Key("ns");
  j.BeginObject();
  for (const char* name : {"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time",
                           "time_for_children", "user", "uts"}) {
    char target[256];
    std::string path = std::string("/proc/self/ns/") + name;
    ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n < 0) continue;
    target[n] = '\0';
    const char* open = std::strchr(target, '[');
    j.KeyUint(name, open ? std::strtoull(open + 1, nullptr, 10) : 0);
  }
  j.EndObject();
}

void Rlimits(Json& j) {
  static constexpr std::pair<const char*, int> kResources[] = {
      {"RLIMIT_AS", RLIMIT_AS},
      {"RLIMIT_CORE", RLIMIT_CORE},
      {"RLIMIT_CPU", RLIMIT_CPU},
      {"RLIMIT_DATA", RLIMIT_DATA},
      {"RLIMIT_FSIZE", RLIMIT_FSIZE},
      {"RLIMIT_LOCKS", RLIMIT_LOCKS},
      {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
      {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
      {"RLIMIT_NICE", RLIMIT_NICE},
      {"RLIMIT_NOFILE", RLIMIT_NOFILE},
      {"RLIMIT_NPROC", RLIMIT_NPROC},
      {"RLIMIT_RSS", RLIMIT_RSS},
      {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
      {"RLIMIT_RTTIME", RLIMIT_RTTIME},
      {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
      {"RLIMIT_STACK", RLIMIT_STACK},
  };
  j.Key("rlimits");
  j.BeginObject();
  for (auto [name, resource] : kResources) {
    rlimit r{};
    if (::getrlimit(resource, &r) != 0) continue;
    j.Key(name);
    j.BeginObject();
    j.KeyUint("soft", r.rlim_cur);
    j.KeyUint("hard", r.rlim_max);
    j.EndObject();
  }
  j.EndObject();
}

void Mounts(Json& j) {
  std::string text;
  ReadFile("/proc/self/mountinfo", &text);
  j.Key("mounts");
  j.BeginArray();
  for (const std::string& line : Split(text, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string> f = Split(line, ' ');
    if (f.size() < 10) continue;
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 3 >= f.size() + 0 && dash + 2 >= f.size()) continue;
    j.BeginObject();
    j.KeyInt("id", std::atoi(f[0].c_str()));
    j.KeyInt("parent", std::atoi(f[1].c_str()));
    j.KeyStr("root", Unescape(f[3]));
    j.KeyStr("target", Unescape(f[4]));
    j.Key("options");
    j.BeginArray();
    for (const std::string& o : Split(f[5], ',')) j.Str(o);
    j.EndArray();
    j.Key("propagation");
    j.BeginArray();
    for (std::size_t i = 6; i < dash; ++i) j.Str(f[i]);
    j.EndArray();
    j.KeyStr("fstype", f[dash + 1]);
    j.KeyStr("source", dash + 2 < f.size() ? Unescape(f[dash + 2]) : "");
    j.Key("super_options");
    j.BeginArray();
    if (dash + 3 < f.size()) {
      for (const std::string& o : Split(f[dash + 3], ',')) j.Str(o);
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
}

void Cgroups(Json& j) {
  std::string text;
  ReadFile("/proc/self/cgroup", &text);
  j.Key("cgroups");
  j.BeginObject();
  for (const std::string& line : Split(text, '\n')) {
    std::vector<std::string> f = Split(line, ':');
    if (f.size() < 3) continue;
    std::string path = line.substr(f[0].size() + f[1].size() + 2);
    for (const std::string& controller : Split(f[1].empty() ? "unified" : f[1], ',')) {
      j.KeyStr(controller, path);
    }
  }
  j.EndObject();
}

void Terminal(Json& j) {
  j.Key("terminal");
  j.BeginObject();
  j.KeyBool("stdin", ::isatty(0));
  j.KeyBool("stdout", ::isatty(1));
  j.KeyBool("stderr", ::isatty(2));
  winsize ws{};
  if (::ioctl(1, TIOCGWINSZ, &ws) == 0 || ::ioctl(0, TIOCGWINSZ, &ws) == 0) {
    j.KeyInt("rows", ws.ws_row);
    j.KeyInt("cols", ws.ws_col);
  }
  char name[256];
  if (::ttyname_r(1, name, sizeof name) == 0) j.KeyStr("name", name);
  pid_t sid = ::getsid(0);
  j.KeyBool("session_leader", sid == ::getpid());
  j.KeyBool("controlling", ::tcgetpgrp(1) >= 0);
  j.EndObject();
}

// Runs one action from the command line and reports it into "checks".
void Check(Json& j, const std::string& op, const std::string& arg) {
  j.BeginObject();
  j.KeyStr("op", op);
  j.KeyStr("arg", arg);
  errno = 0;
  int rc = 0;
  if (op == "read") {
    std::string data;
    rc = ReadFile(arg, &data, 4096) ? 0 : -1;
    if (rc == 0) j.KeyStr("data", data.substr(0, 4096));
  } else if (op == "openw") {
    int fd = ::open(arg.c_str(), O_WRONLY | O_CLOEXEC);
    rc = fd < 0 ? -1 : 0;
    if (fd >= 0) ::close(fd);
  } else if (op == "create") {
    int fd = ::open(arg.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    rc = fd < 0 ? -1 : 0;
    if (fd >= 0) {
      struct stat st {};
      ::fstat(fd, &st);
      j.KeyInt("mode", st.st_mode & 07777);
      ::close(fd);
    }
  } else if (op == "mkdir") {
    rc = ::mkdir(arg.c_str(), 0755);
  } else if (op == "bind-unix") {
    // Creates a socket file at the path: the kernel's own creation, which
    // no open or mknod is involved in.
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    rc = fd < 0 ? -1 : 0;
    if (fd >= 0) {
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      std::strncpy(address.sun_path, arg.c_str(), sizeof address.sun_path - 1);
      rc = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
      int saved = errno;
      ::close(fd);
      errno = saved;
    }
  } else if (op == "stat") {
    struct stat st {};
    rc = ::lstat(arg.c_str(), &st);
    if (rc == 0) {
      const char* type = S_ISREG(st.st_mode)    ? "file"
                         : S_ISDIR(st.st_mode)  ? "dir"
                         : S_ISLNK(st.st_mode)  ? "symlink"
                         : S_ISCHR(st.st_mode)  ? "char"
                         : S_ISBLK(st.st_mode)  ? "block"
                         : S_ISFIFO(st.st_mode) ? "fifo"
                                                : "other";
      j.KeyStr("type", type);
      j.KeyInt("mode", st.st_mode & 07777);
      j.KeyInt("uid", st.st_uid);
      j.KeyInt("gid", st.st_gid);
      j.KeyInt("major", major(st.st_rdev));
      j.KeyInt("minor", minor(st.st_rdev));
      j.KeyInt("size", st.st_size);
    }
  } else if (op == "ls") {
    DIR* d = ::opendir(arg.c_str());
    rc = d ? 0 : -1;
    if (d) {
      j.Key("entries");
      j.BeginArray();
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) j.Str(e->d_name);
      }
      j.EndArray();
      ::closedir(d);
    }
  } else if (op == "personality") {
    long r = ::syscall(SYS_personality, std::strtoul(arg.c_str(), nullptr, 0));
    rc = r < 0 ? -1 : 0;
    j.KeyInt("result", r);
  } else if (op == "chroot") {
    rc = ::chroot(arg.c_str());
  } else if (op == "sethostname") {
    rc = ::sethostname(arg.data(), arg.size());
  } else if (op == "getppid") {
    long r = ::syscall(SYS_getppid);
    rc = r < 0 ? -1 : 0;
    j.KeyInt("result", r);
  } else if (op == "syscall") {
    rc = ::syscall(std::atol(arg.c_str()), 0, 0, 0) < 0 ? -1 : 0;
  } else if (op == "seccomp-listener") {
    // Sets no_new_privs, which the filter needs, for the rest of the probe.
    sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    sock_fprog program{1, &allow};
    long r = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (r == 0) {
      r = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                    &program);
    }
    rc = r < 0 ? -1 : 0;
    if (r >= 0) ::close(static_cast<int>(r));
  } else if (op == "sleep") {
    ::sleep(static_cast<unsigned>(std::atoi(arg.c_str())));
  } else if (op == "wait-stdin") {
    char buf[256];
    while (::read(0, buf, sizeof buf) > 0) {
    }
  } else if (op == "exit" || op == "raise") {
    // Done after printing, in main.
  } else {
    rc = -1;
    errno = EINVAL;
  }
  int saved = errno;
  j.KeyBool("ok", rc == 0);
  j.KeyInt("errno", rc == 0 ? 0 : saved);
  j.KeyStr("error", rc == 0 ? "" : std::strerror(saved));
  j.EndObject();
}

}  // namespace

int main(int argc, char** argv) {
  // The umask is read before anything could change it; /proc/self/status
  // reports it too, this is for kernels without that line.
  mode_t mask = ::umask(0);
  ::umask(mask);

  Json j;
  j.BeginObject();
  j.Key("checks");
  j.BeginArray();
  int exit_code = 0;
  int raise_signal = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string op = argv[i], arg = argv[i + 1];
    if (op == "exit") exit_code = std::atoi(arg.c_str());
    if (op == "raise") raise_signal = std::atoi(arg.c_str());
    Check(j, op, arg);
  }
  j.EndArray();

  j.KeyInt("pid", ::getpid());
  j.KeyInt("ppid", ::getppid());
  j.KeyInt("pgid", ::getpgid(0));
  j.KeyInt("sid", ::getsid(0));
  j.Key("argv");
  j.BeginArray();
  for (int i = 0; i < argc; ++i) j.Str(argv[i]);
  j.EndArray();
  StatusFields(j);
  j.KeyInt("umask_syscall", mask);
  j.KeyInt("no_new_privs", ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  j.KeyInt("dumpable", ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
  j.KeyInt("personality", ::personality(0xffffffff));
  // IOPRIO_WHO_PROCESS = 1; the class is in bits 13 and up.
  j.KeyInt("ioprio", ::syscall(SYS_ioprio_get, 1, 0));
  std::string text;
  j.KeyStr("oom_score_adj", ReadFile("/proc/self/oom_score_adj", &text) ? Trim(text) : "");
  char cwd[4096];
  j.KeyStr("cwd", ::getcwd(cwd, sizeof cwd) ? cwd : "");
  j.Key("env");
  j.BeginArray();
  for (char** e = environ; e && *e; ++e) j.Str(*e);
  j.EndArray();
  utsname u{};
  ::uname(&u);
  j.KeyStr("hostname", u.nodename);
  j.KeyStr("domainname", u.domainname);
  j.KeyStr("machine", u.machine);
  {
    // Field 19 of /proc/self/stat is the nice value, 41 the policy.
    std::string stat;
    ReadFile("/proc/self/stat", &stat);
    std::size_t paren = stat.rfind(')');
    std::vector<std::string> f =
        Split(paren == std::string::npos ? "" : stat.substr(paren + 2), ' ');
    // f[0] is field 3 (state).
    j.KeyInt("nice", f.size() > 16 ? std::atoi(f[16].c_str()) : 0);
    j.KeyInt("sched_policy", f.size() > 38 ? std::atoi(f[38].c_str()) : -1);
  }
  Namespaces(j);
  Rlimits(j);
  Mounts(j);
  Cgroups(j);
  Terminal(j);
  j.EndObject();

  std::string out = j.text() + "\n";
  for (std::size_t done = 0; done < out.size();) {
    ssize_t n = ::write(1, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 125;
    done += static_cast<std::size_t>(n);
  }
  if (raise_signal != 0) {
    ::signal(raise_signal, SIG_DFL);
    ::raise(raise_signal);
  }
  return exit_code;
}
