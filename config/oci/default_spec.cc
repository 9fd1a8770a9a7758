#include "config/oci/default_spec.h"

#include <algorithm>

namespace vigil::config {

Spec DefaultSpec() {
  Spec spec;
  spec.oci_version = std::string(kOciVersion);
  spec.root = Root{.path = "rootfs", .readonly = true};
  spec.hostname = "vigil";

  Process& p = spec.process.emplace();
  p.terminal = true;
  p.args = {"sh"};
  p.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"};
  p.cwd = "/";
  std::vector<std::string> caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  p.capabilities = Capabilities{
      .bounding = caps, .effective = caps, .inheritable = {}, .permitted = caps, .ambient = {}};
  p.rlimits = {Rlimit{.type = "RLIMIT_NOFILE", .hard = 1024, .soft = 1024}};
  p.no_new_privileges = true;

  spec.mounts = {
      {.destination = "/proc", .type = "proc", .source = "proc"},
      {.destination = "/dev",
       .type = "tmpfs",
       .source = "tmpfs",
       .options = {"nosuid", "strictatime", "mode=755", "size=65536k"}},
      {.destination = "/dev/pts",
       .type = "devpts",
       .source = "devpts",
       .options = {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
      {.destination = "/dev/shm",
       .type = "tmpfs",
       .source = "shm",
       .options = {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
      {.destination = "/dev/mqueue",
       .type = "mqueue",
       .source = "mqueue",
       .options = {"nosuid", "noexec", "nodev"}},
      {.destination = "/sys",
       .type = "sysfs",
       .source = "sysfs",
       .options = {"nosuid", "noexec", "nodev", "ro"}},
      {.destination = "/sys/fs/cgroup",
       .type = "cgroup",
       .source = "cgroup",
       .options = {"nosuid", "noexec", "nodev", "relatime", "ro"}},
  };

  Linux& linux_spec = spec.linux_spec.emplace();
  linux_spec.resources = Resources{.devices = {DeviceRule{.allow = false, .access = "rwm"}}};
  // runc spec's five: tools that add a cgroup namespace themselves must not
  // meet a duplicate.
  for (NamespaceType type : {NamespaceType::kPid, NamespaceType::kNetwork, NamespaceType::kIpc,
                             NamespaceType::kUts, NamespaceType::kMount}) {
    linux_spec.namespaces.push_back(Namespace{.type = type});
  }
  linux_spec.masked_paths = {"/proc/acpi",        "/proc/asound",        "/proc/kcore",
                             "/proc/keys",        "/proc/latency_stats", "/proc/timer_list",
                             "/proc/timer_stats", "/proc/sched_debug",   "/sys/firmware",
                             "/proc/scsi"};
  linux_spec.readonly_paths = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                               "/proc/sysrq-trigger"};
  return spec;
}

Spec RootlessSpec(uid_t uid, gid_t gid) {
  Spec spec = DefaultSpec();
  Linux& linux_spec = *spec.linux_spec;
  std::erase_if(linux_spec.namespaces, [](const Namespace& ns) {
    return ns.type == NamespaceType::kNetwork || ns.type == NamespaceType::kUser;
  });
  linux_spec.namespaces.push_back(Namespace{.type = NamespaceType::kUser});
  linux_spec.uid_mappings = {IdMapping{.container_id = 0, .host_id = uid, .size = 1}};
  linux_spec.gid_mappings = {IdMapping{.container_id = 0, .host_id = gid, .size = 1}};
  linux_spec.resources.reset();

  // An unprivileged user cannot mount a fresh sysfs or cgroupfs, nor ask
  // devpts for a gid outside its mapping.
  std::erase_if(spec.mounts, [](const Mount& m) { return m.destination == "/sys/fs/cgroup"; });
  for (Mount& m : spec.mounts) {
    if (m.destination == "/sys") {
      m = Mount{.destination = "/sys",
                .type = "none",
                .source = "/sys",
                .options = {"rbind", "nosuid", "noexec", "nodev", "ro"}};
    }
    std::erase_if(m.options, [](const std::string& o) { return o.starts_with("gid="); });
  }
  return spec;
}

}  // namespace vigil::config
