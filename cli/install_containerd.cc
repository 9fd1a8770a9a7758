// containerd's config.toml: vigil as a runtime handler of the CRI plugin
// (runc shim, BinaryName), the same path a Kubernetes RuntimeClass takes.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "cli/install_edits.h"
#include "cli/install_toml.h"
#include "config/oci/vigil_annotations.h"

namespace vigil::cli::install {

Result<Edit> EditContainerd(std::string_view text, const Registration* add, std::string_view name) {
  std::vector<std::string> lines = SplitLines(text);
  ASSIGN_OR_RETURN(bool had_block, StripBlocks(lines, name));
  if (add == nullptr) return Edit{had_block ? JoinLines(lines) : std::string(text), had_block, {}};

  if (!add->runtime_args.empty()) {
    return Fail(
        "containerd's runc shim passes no arguments to the runtime binary: drop "
        "--runtime-args (a pod chooses a policy with the annotation dev.vigil.policy)");
  }
  // The config's version decides the CRI plugin's table: 1 (no version line)
  // plugins.cri, 2 (containerd 1.x) io.containerd.grpc.v1.cri, 3
  // (containerd 2.x) io.containerd.cri.v1.runtime.
  std::optional<int> version;
  bool blank = true;
  Edit edit;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (!line.empty() && !line.starts_with('#')) blank = false;
    if (std::optional<std::string> table = TableName(line)) {
      if (table->ends_with(StrCat(".runtimes.", name)) ||
          table->ends_with(StrCat(".runtimes.", name, ".options"))) {
        return Fail(StrCat("line ", i + 1, " already defines ", line,
                           " outside vigil's block; remove it or keep editing by hand"));
      }
      continue;
    }
    if (KeyOf(line) == "version") {
      std::string_view value = Trim(line.substr(line.find('=') + 1));
      int v = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), v).ptr == value.data()) {
        return Fail(StrCat("line ", i + 1, ": cannot read the config version ", Quote(value)));
      }
      if (!version) version = v;
    }
    if (KeyOf(line) == "disabled_plugins" &&
        (line.find("\"cri\"") != std::string_view::npos ||
         line.find("io.containerd.grpc.v1.cri\"") != std::string_view::npos)) {
      edit.notes.push_back(StrCat("line ", i + 1,
                                  " disables the CRI plugin: Kubernetes will not see runtime ",
                                  Quote(name), " until it is enabled"));
    }
  }
  std::vector<std::string> block = {BeginMarker(name)};
  if (blank) {
    block.emplace_back("version = 2");
    version = 2;
  }
  std::string plugin;
  switch (version.value_or(1)) {
    case 1:
      plugin = "plugins.cri";
      break;
    case 2:
      plugin = "plugins.\"io.containerd.grpc.v1.cri\"";
      break;
    case 3:
      plugin = "plugins.\"io.containerd.cri.v1.runtime\"";
      break;
    default:
      return Fail(StrCat("config version ", *version, " is not one vigil knows (1, 2 or 3)"));
  }
  ASSIGN_OR_RETURN(std::string binary, TomlString(add->path));
  std::string table = StrCat("[", plugin, ".containerd.runtimes.", name);
  block.push_back(table + "]");
  block.emplace_back("  runtime_type = \"io.containerd.runc.v2\"");
  block.emplace_back("  # Pass the vigil annotations (dev.vigil.policy) from pods to vigil.");
  const std::string all = StrCat("[\"", config::kVigilAnnotationPrefix, "*\"]");
  block.push_back(StrCat("  pod_annotations = ", all));
  block.push_back(StrCat("  container_annotations = ", all));
  block.push_back(table + ".options]");
  block.push_back(StrCat("  BinaryName = ", binary));
  block.push_back(EndMarker(name));
  AppendBlock(lines, std::move(block));
  edit.text = JoinLines(lines);
  edit.changed = edit.text != text;
  return edit;
}

}  // namespace vigil::cli::install
