#include "config/oci/features.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/json/json_writer.h"
#include "base/strings.h"
#include "config/oci/enums.h"
#include "config/oci/mount_options.h"
#include "config/oci/names.h"
#include "config/oci/spec.h"

namespace vigil::config {
namespace {

// vigil loads filters with seccomp(2) itself, so a flag is supported when
// the running kernel knows it: given a null program, the kernel answers
// EFAULT for a known flag and EINVAL for an unknown one. WAIT_KILLABLE_RECV
// is only valid together with a listener.
std::vector<std::string_view> SupportedSeccompFlags() {
  std::vector<std::string_view> supported;
  for (const NamedValue& flag : kSeccompFlagNames) {
    unsigned long flags = flag.value;
    if (flags == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
    if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, nullptr) != 0 && errno == EFAULT) {
      supported.push_back(flag.name);
    }
  }
  return supported;
}

void WriteNames(json::Writer& w, std::string_view key, const std::vector<std::string_view>& names) {
  w.Key(key);
  w.BeginArray();
  for (std::string_view name : names) w.String(name);
  w.EndArray();
}

void WriteEnabled(json::Writer& w, std::string_view key, bool enabled) {
  w.Key(key);
  w.BeginObject();
  w.BoolMember("enabled", enabled);
  w.EndObject();
}

void WriteSeccomp(json::Writer& w) {
  w.Key("seccomp");
  w.BeginObject();
  w.BoolMember("enabled", true);
  WriteNames(w, "actions", NamesOf<SeccompAction>());
  WriteNames(w, "operators", NamesOf<SeccompOperator>());
  WriteNames(w, "archs", NamesOf(kSeccompArchNames));
  WriteNames(w, "knownFlags", NamesOf(kSeccompFlagNames));
  WriteNames(w, "supportedFlags", SupportedSeccompFlags());
  w.EndObject();
}

void WriteLinux(json::Writer& w) {
  w.Key("linux");
  w.BeginObject();
  WriteNames(w, "namespaces", NamesOf<NamespaceType>());
  WriteNames(w, "capabilities", NamesOf(kCapabilityNames));
  w.Key("cgroup");
  w.BeginObject();
  const std::pair<std::string_view, bool> cgroup[] = {
      {"v1", true}, {"v2", true}, {"systemd", false}, {"systemdUser", false}, {"rdma", false}};
  for (const auto& [key, supported] : cgroup) {
    w.BoolMember(key, supported);
  }
  w.EndObject();
  WriteSeccomp(w);
  WriteEnabled(w, "apparmor", false);
  WriteEnabled(w, "selinux", false);
  WriteEnabled(w, "intelRdt", false);
  w.Key("mountExtensions");
  w.BeginObject();
  WriteEnabled(w, "idmap", false);
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::string FeaturesJson() {
  json::Writer w(json::Writer::Style::kPretty);
  w.BeginObject();
  w.StringMember("ociVersionMin", "1.0.0");
  w.StringMember("ociVersionMax", kOciVersion);
  WriteNames(
      w, "hooks",
      {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"});
  std::vector<std::string_view> mount_options;
  for (const MountOption& option : MountOptions()) mount_options.push_back(option.name);
  for (const RecursiveMountOption& option : RecursiveMountOptions()) {
    mount_options.push_back(option.name);
  }
  for (std::string_view name : NamesOf(kPropagationNames)) mount_options.push_back(name);
  std::sort(mount_options.begin(), mount_options.end());
  WriteNames(w, "mountOptions", mount_options);
  WriteLinux(w);
  w.Key("annotations");
  w.BeginObject();
  const scmp_version* version = seccomp_version();
  w.StringMember("io.github.seccomp.libseccomp.version",
                 StrCat(version->major, '.', version->minor, '.', version->micro));
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace vigil::config
