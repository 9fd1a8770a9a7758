// Bundles: a busybox rootfs and the config.json the tests vary
// (BundleConfig, from the template every harness starts from,
// tests/bundle/runc_spec.json).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/json/json_writer.h"
#include "base/strings.h"
#include "config/oci/config.h"
#include "config/oci/names.h"
#include "config/oci/sections.h"
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

// tests/bundle/runc_spec.json, read once; a test binary without it cannot
// run any case, so it stops with the reason.
// A bind mount for extra_mounts_json: host directory `source` at
// `destination` in the container, "rw" or "ro" (a test's /out, where the
// workload writes what the test reads from the host).
inline std::string BindMountJson(const std::string& destination, const std::string& source,
                                 std::string_view mode = "rw") {
  return StrCat(R"({"destination": )", JsonString(destination), R"(, "type": "bind", "source": )",
                JsonString(source), R"(, "options": ["rbind", ")", mode, R"("]})");
}

inline const config::Spec& RuncSpec() {
  static const config::Spec spec = [] {
    const std::string path = std::string(VIGIL_TEST_DATA) + "/../bundle/runc_spec.json";
    Result<config::Spec> parsed = [&]() -> Result<config::Spec> {
      ASSIGN_OR_RETURN(std::string text, ReadFile(path, 1 << 20));
      return config::ParseSpec(text);
    }();
    if (!parsed) {
      std::cerr << path << ": " << parsed.error().message << "\n";
      std::abort();
    }
    return *std::move(parsed);
  }();
  return spec;
}

inline std::vector<std::string> RuncSpecNamespaces() {
  std::vector<std::string> names;
  for (const config::Namespace& ns : RuncSpec().linux_spec->namespaces) {
    names.emplace_back(config::NameOf(ns.type));
  }
  return names;
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

// The parts of config.json the tests vary. The defaults are the template's.
struct BundleConfig {
  std::vector<std::string> args = {"sh"};
  std::vector<std::string> env = RuncSpec().process->env;
  std::string cwd = "/";
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> additional_gids;
  std::vector<Rlimit> rlimits = {{"RLIMIT_NOFILE", 1024, 1024}};
  std::optional<Capabilities> capabilities = Capabilities{
      .bounding = RuncSpec().process->capabilities->bounding,
      .effective = RuncSpec().process->capabilities->effective,
      .permitted = RuncSpec().process->capabilities->permitted,
  };
  bool no_new_privileges = true;
  std::string hostname = "it-host";
  std::string domainname;  // left out when empty
  std::string root_path = "rootfs";
  bool readonly_root = true;
  std::vector<std::string> namespaces = RuncSpecNamespaces();
  std::vector<std::string> masked_paths = RuncSpec().linux_spec->masked_paths;
  std::vector<std::string> readonly_paths = RuncSpec().linux_spec->readonly_paths;
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

// The template's mounts, as JSON objects one to a line.
inline std::string RuncSpecMountsJson() {
  std::string out;
  for (const config::Mount& mount : RuncSpec().mounts) {
    json::Writer w;
    config::Encode(w, mount);
    out += (out.empty() ? "" : ",\n    ") + w.Take();
  }
  return out;
}

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
    )" + RuncSpecMountsJson() +
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
