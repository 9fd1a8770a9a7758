// Bundles: a busybox rootfs and the config.json the tests vary
// (BundleConfig, `runc spec`'s defaults).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "tests/integration/harness/commands.h"

namespace vigil::integration {

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

}  // namespace vigil::integration
