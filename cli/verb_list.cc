// vigil list: every container under --root.
#include <cstdio>
#include <string>
#include <vector>

#include "base/directory.h"
#include "base/strings.h"
#include "cli/container_json.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "config/oci/spec.h"
#include "lifecycle/lifecycle.h"

namespace vigil::cli {
namespace {

std::vector<std::string> ContainerIds(const std::string& root) {
  std::vector<std::string> ids;
  Result<std::vector<DirectoryEntry>> entries = ListDirectory(root);
  if (!entries) return ids;  // no root yet: no containers
  for (const DirectoryEntry& entry : *entries) {
    // Names starting with '.' are vigil's own (the kept audit logs), and
    // no container's (ValidateId).
    if (!entry.name.starts_with('.') && entry.IsDirectory()) ids.push_back(entry.name);
  }
  return ids;
}

// One line, as runc writes it: scripts read it line by line.
void WriteJson(const std::vector<lifecycle::ContainerView>& views) {
  json::Writer w;
  w.BeginArray();
  for (const lifecycle::ContainerView& v : views) WriteContainerView(w, v, /*detailed=*/false);
  w.EndArray();
  std::printf("%s\n", w.Take().c_str());
}

void WriteTable(const std::vector<lifecycle::ContainerView>& views) {
  std::vector<std::vector<std::string>> rows = {
      {"ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER"}};
  for (const lifecycle::ContainerView& v : views) {
    rows.push_back({v.record.id, std::to_string(v.pid), std::string(config::NameOf(v.status)),
                    v.record.bundle, v.record.created,
                    v.record.owner.empty() ? "root" : v.record.owner});
  }
  PrintTable(rows);
}

}  // namespace

const FlagSpec kListFlags[2] = {
    {"format", "f", true, "FORMAT", "\"table\" (default) or \"json\""},
    {"quiet", "q", false, "", "print only the ids"},
};

Result<int> RunList(const Invocation& invocation) {
  if (!invocation.flags.positional.empty()) {
    return Fail(StrCat("unexpected argument ", Quote(invocation.flags.positional[0])));
  }
  std::string format = invocation.flags.Value("format").value_or("table");
  if (format != "table" && format != "json") {
    return Fail(StrCat("--format: expected \"table\" or \"json\", got ", Quote(format)));
  }
  std::vector<lifecycle::ContainerView> views;
  for (const std::string& id : ContainerIds(invocation.global.root)) {
    // A container being created or deleted right now has no readable record
    // yet (or any more): leave it out rather than fail the listing.
    if (Result<lifecycle::ContainerView> view =
            lifecycle::ViewContainer(invocation.global.root, id)) {
      views.push_back(std::move(*view));
    }
  }
  if (invocation.flags.IsSet("quiet")) {
    for (const lifecycle::ContainerView& v : views) std::printf("%s\n", v.record.id.c_str());
  } else if (format == "json") {
    WriteJson(views);
  } else {
    WriteTable(views);
  }
  return 0;
}

}  // namespace vigil::cli
