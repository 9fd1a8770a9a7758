// vigil install / uninstall: see verb_install.h for the editing rules.
#include "runtime/cli/verb_install.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/strings.h"
#include "runtime/cli/verbs.h"

namespace vigil::cli {
namespace install {
namespace {

constexpr std::size_t kMaxConfigBytes = 4u << 20;

// ---- daemon.json ---------------------------------------------------------

// Copies `value` into `out` as it is. Integers are kept exactly; yajl's writer
// has no way to write another number back unchanged, and daemon.json has none.
Result<void> CopyJson(json::Value value, json::Writer& out) {
  switch (value.kind()) {
    case json::Kind::kNull:
      out.Null();
      return {};
    case json::Kind::kBool:
      out.Bool(*value.AsBool());
      return {};
    case json::Kind::kString:
      out.String(*value.AsString());
      return {};
    case json::Kind::kNumber: {
      std::string_view text = *value.NumberText();
      const char* end = text.data() + text.size();
      if (std::int64_t i = 0; std::from_chars(text.data(), end, i).ptr == end) {
        out.Int(i);
      } else if (std::uint64_t u = 0; std::from_chars(text.data(), end, u).ptr == end) {
        out.Uint(u);
      } else {
        return Fail(StrCat("cannot keep the number ", text,
                           " exactly (only integers); edit the file by hand"));
      }
      return {};
    }
    case json::Kind::kArray:
      out.BeginArray();
      for (std::size_t i = 0; i < value.size(); ++i) RETURN_IF_ERROR(CopyJson(value.Element(i), out));
      out.EndArray();
      return {};
    case json::Kind::kObject:
      out.BeginObject();
      for (std::size_t i = 0; i < value.size(); ++i) {
        out.Key(value.MemberKey(i));
        RETURN_IF_ERROR(CopyJson(value.MemberValue(i), out));
      }
      out.EndObject();
      return {};
  }
  return {};
}

void WriteDockerRuntime(const Registration& r, json::Writer& out) {
  out.BeginObject();
  out.Key("path");
  out.String(r.path);
  if (!r.runtime_args.empty()) {
    out.Key("runtimeArgs");
    out.BeginArray();
    for (const std::string& arg : r.runtime_args) out.String(arg);
    out.EndArray();
  }
  out.EndObject();
}

// Whether daemon.json's entry for the runtime is exactly `r`.
bool SameDockerRuntime(json::Value entry, const Registration& r) {
  if (entry.kind() != json::Kind::kObject) return false;
  std::optional<json::Value> path = entry.Find("path");
  if (!path || path->AsString() != r.path) return false;
  std::vector<std::string> args;
  if (std::optional<json::Value> list = entry.Find("runtimeArgs"); list && !list->IsNull()) {
    if (list->kind() != json::Kind::kArray) return false;
    for (std::size_t i = 0; i < list->size(); ++i) {
      std::optional<std::string_view> arg = list->Element(i).AsString();
      if (!arg) return false;
      args.emplace_back(*arg);
    }
  }
  // Docker reads no other member; one we did not write means the entry is not ours.
  return args == r.runtime_args && entry.size() == (entry.Find("runtimeArgs") ? 2u : 1u);
}

// Parses daemon.json ("" and blank text are an empty object).
Result<json::Document> ParseDaemonJson(std::string_view text) {
  bool blank = std::all_of(text.begin(), text.end(),
                           [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(blank ? "{}" : text));
  if (doc.root().kind() != json::Kind::kObject) {
    return Fail(StrCat("expected a JSON object, got ", doc.root().Describe()));
  }
  if (std::optional<json::Value> runtimes = doc.root().Find("runtimes");
      runtimes && runtimes->kind() != json::Kind::kObject) {
    return Fail(StrCat("runtimes: expected an object, got ", runtimes->Describe()));
  }
  return doc;
}

// Writes daemon.json's root with runtimes.NAME set to `add` (or removed when
// `add` is null); an emptied "runtimes" is dropped.
Result<std::string> RewriteDaemonJson(json::Value root, std::string_view name,
                                      const Registration* add) {
  json::Writer out(json::Writer::Style::kPretty);
  out.BeginObject();
  bool saw_runtimes = false;
  auto write_runtimes = [&](std::optional<json::Value> runtimes) -> Result<void> {
    std::size_t kept = 0;
    bool written = false;
    if (runtimes) {
      for (std::size_t i = 0; i < runtimes->size(); ++i) kept += runtimes->MemberKey(i) != name;
    }
    if (kept == 0 && add == nullptr) return {};
    out.Key("runtimes");
    out.BeginObject();
    for (std::size_t i = 0; runtimes && i < runtimes->size(); ++i) {
      if (runtimes->MemberKey(i) == name) {
        if (add != nullptr && !written) {
          out.Key(name);
          WriteDockerRuntime(*add, out);
          written = true;
        }
        continue;
      }
      out.Key(runtimes->MemberKey(i));
      RETURN_IF_ERROR_WRAP(CopyJson(runtimes->MemberValue(i), out),
                           StrCat("runtimes.", runtimes->MemberKey(i)));
    }
    if (add != nullptr && !written) {
      out.Key(name);
      WriteDockerRuntime(*add, out);
    }
    out.EndObject();
    return {};
  };
  for (std::size_t i = 0; i < root.size(); ++i) {
    std::string_view key = root.MemberKey(i);
    if (key == "runtimes") {
      if (!saw_runtimes) RETURN_IF_ERROR(write_runtimes(root.MemberValue(i)));
      saw_runtimes = true;
      continue;
    }
    out.Key(key);
    RETURN_IF_ERROR_WRAP(CopyJson(root.MemberValue(i), out), std::string(key));
  }
  if (!saw_runtimes) RETURN_IF_ERROR(write_runtimes(std::nullopt));
  out.EndObject();
  return out.Take();
}

Result<Edit> InstallDocker(std::string_view text, const Registration& r) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDaemonJson(text));
  std::optional<json::Value> runtimes = doc.root().Find("runtimes");
  std::optional<json::Value> entry = runtimes ? runtimes->Find(r.name) : std::nullopt;
  if (entry && SameDockerRuntime(*entry, r)) return Edit{std::string(text), false, {}};
  ASSIGN_OR_RETURN(std::string out, RewriteDaemonJson(doc.root(), r.name, &r));
  return Edit{std::move(out), true, {}};
}

Result<Edit> UninstallDocker(std::string_view text, std::string_view name) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDaemonJson(text));
  std::optional<json::Value> runtimes = doc.root().Find("runtimes");
  if (!runtimes || !runtimes->Find(name)) return Edit{std::string(text), false, {}};
  if (std::optional<json::Value> d = doc.root().Find("default-runtime"); d && d->AsString() == name) {
    return Fail(StrCat("default-runtime is ", Quote(name), "; set another one first"));
  }
  ASSIGN_OR_RETURN(std::string out, RewriteDaemonJson(doc.root(), name, nullptr));
  return Edit{std::move(out), true, {}};
}

// ---- TOML, edited line by line ---------------------------------------------

std::string BeginMarker(std::string_view name) {
  return StrCat("# BEGIN vigil-install ", name,
                " (written by `vigil install`; `vigil uninstall` removes it)");
}
std::string EndMarker(std::string_view name) { return StrCat("# END vigil-install ", name); }

bool IsMarker(std::string_view line, std::string_view prefix, std::string_view name) {
  std::string head = StrCat(prefix, name);
  return line.starts_with(head) && (line.size() == head.size() || line[head.size()] == ' ');
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += StrCat(line, "\n");
  return out;
}

// The table a `[header]` line opens, with whitespace outside quotes and the
// quotes themselves removed: `[plugins."io.containerd.grpc.v1.cri"]` gives
// `plugins.io.containerd.grpc.v1.cri`. nullopt for other lines, including
// `[[array.of.tables]]`.
std::optional<std::string> TableName(std::string_view line) {
  line = Trim(line);
  if (!line.starts_with('[') || line.starts_with("[[")) return std::nullopt;
  std::string name;
  char quote = 0;
  for (std::size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        name += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ']') {
      return name;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      name += c;
    }
  }
  return std::nullopt;
}

// The key a `key = value` line sets, unquoted ("" for other lines).
std::string KeyOf(std::string_view line) {
  line = Trim(line);
  if (line.empty() || line.front() == '#' || line.front() == '[') return "";
  std::size_t eq = line.find('=');
  if (eq == std::string_view::npos) return "";
  std::string key;
  for (char c : Trim(line.substr(0, eq))) {
    if (c != '"' && c != '\'' && !std::isspace(static_cast<unsigned char>(c))) key += c;
  }
  return key;
}

Result<std::string> TomlString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') return Fail(StrCat("cannot write ", Quote(s), " in TOML"));
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Removes the NAME blocks; an appended block's blank separator line goes too.
// Reports whether there was one.
Result<bool> StripBlocks(std::vector<std::string>& lines, std::string_view name) {
  bool found = false;
  std::size_t i = 0;
  while (i < lines.size()) {
    if (!IsMarker(lines[i], "# BEGIN vigil-install ", name)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < lines.size() && !IsMarker(lines[end], "# END vigil-install ", name)) ++end;
    if (end == lines.size()) {
      return Fail(StrCat("line ", i + 1, ": the block vigil install began has no \"",
                         EndMarker(name), "\" line; fix the file by hand"));
    }
    bool at_end = std::all_of(lines.begin() + static_cast<std::ptrdiff_t>(end) + 1, lines.end(),
                              [](const std::string& l) { return Trim(l).empty(); });
    std::size_t begin = (at_end && i > 0 && Trim(lines[i - 1]).empty()) ? i - 1 : i;
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                lines.begin() + static_cast<std::ptrdiff_t>(end) + 1);
    found = true;
    i = begin;
  }
  return found;
}

// Appends a block at the end, after a blank line unless the file is empty.
void AppendBlock(std::vector<std::string>& lines, std::vector<std::string> block) {
  while (!lines.empty() && Trim(lines.back()).empty()) lines.pop_back();
  if (!lines.empty()) lines.emplace_back();
  lines.insert(lines.end(), block.begin(), block.end());
}

Result<void> CheckName(std::string_view name) {
  bool bare = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!bare) return Fail(StrCat("runtime name ", Quote(name), ": use letters, digits, - and _"));
  return {};
}

// ---- containerd's config.toml -----------------------------------------------

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
  block.emplace_back("  pod_annotations = [\"dev.vigil.*\"]");
  block.emplace_back("  container_annotations = [\"dev.vigil.*\"]");
  block.push_back(table + ".options]");
  block.push_back(StrCat("  BinaryName = ", binary));
  block.push_back(EndMarker(name));
  AppendBlock(lines, std::move(block));
  edit.text = JoinLines(lines);
  edit.changed = edit.text != text;
  return edit;
}

// ---- podman's containers.conf -----------------------------------------------

// Podman's own list (containers.conf(5)) plus vigil: setting the key replaces
// the default, so the defaults stay in it.
constexpr std::string_view kJsonRuntimes = R"("crun", "runc", "kata", "runsc", "youki", "krun")";

Result<Edit> EditPodman(std::string_view text, const Registration* add, std::string_view name) {
  std::vector<std::string> lines = SplitLines(text);
  ASSIGN_OR_RETURN(bool had_block, StripBlocks(lines, name));
  if (add == nullptr) return Edit{had_block ? JoinLines(lines) : std::string(text), had_block, {}};
  if (!add->runtime_args.empty()) {
    return Fail(
        "containers.conf has no arguments for a runtime: drop --runtime-args (podman run "
        "--runtime-flag passes them)");
  }

  std::optional<std::size_t> engine, engine_runtimes;
  bool json_listed = false;
  std::string table;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (std::optional<std::string> t = TableName(lines[i])) {
      table = *t;
      if (table == "engine" && !engine) engine = i;
      if (table == "engine.runtimes" && !engine_runtimes) engine_runtimes = i;
      continue;
    }
    std::string key = KeyOf(lines[i]);
    if ((table == "engine.runtimes" && key == name) ||
        (table == "engine" && key == StrCat("runtimes.", name))) {
      return Fail(StrCat("line ", i + 1, " already sets engine.runtimes.", name,
                         " outside vigil's block; remove it or keep editing by hand"));
    }
    if (table == "engine" && key == "runtime_supports_json") {
      if (lines[i].find(StrCat("\"", name, "\"")) == std::string::npos) {
        return Fail(StrCat("line ", i + 1, " sets engine.runtime_supports_json: add \"", name,
                           "\" to it, then install again"));
      }
      json_listed = true;
    }
  }
  ASSIGN_OR_RETURN(std::string binary, TomlString(add->path));
  std::string runtime_line = StrCat(name, " = [", binary, "]");
  std::vector<std::string> engine_lines;
  if (!json_listed) {
    engine_lines.push_back(StrCat("runtime_supports_json = [", kJsonRuntimes, ", \"", name, "\"]"));
  }
  if (!engine_runtimes) engine_lines.push_back(StrCat("runtimes.", runtime_line));

  auto insert_after = [&](std::size_t header, std::vector<std::string> body) {
    body.insert(body.begin(), BeginMarker(name));
    body.push_back(EndMarker(name));
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(header) + 1, body.begin(), body.end());
  };
  // The later header first, so the earlier one's index stays right.
  bool runtimes_first = engine_runtimes && (!engine || *engine_runtimes > *engine);
  if (runtimes_first) insert_after(*engine_runtimes, {runtime_line});
  if (engine && !engine_lines.empty()) insert_after(*engine, engine_lines);
  if (engine_runtimes && !runtimes_first) insert_after(*engine_runtimes, {runtime_line});
  if (!engine) {
    engine_lines.insert(engine_lines.begin(), "[engine]");
    engine_lines.insert(engine_lines.begin(), BeginMarker(name));
    engine_lines.push_back(EndMarker(name));
    AppendBlock(lines, std::move(engine_lines));
  }
  Edit edit;
  edit.text = JoinLines(lines);
  edit.changed = edit.text != text;
  return edit;
}

}  // namespace

std::string_view DefaultConfigPath(Target target) {
  switch (target) {
    case Target::kDocker:
      return "/etc/docker/daemon.json";
    case Target::kContainerd:
      return "/etc/containerd/config.toml";
    case Target::kPodman:
      return "/etc/containers/containers.conf";
  }
  return "";
}

Result<Edit> Install(Target target, std::string_view text, const Registration& registration) {
  RETURN_IF_ERROR(CheckName(registration.name));
  if (!registration.path.starts_with('/')) {
    return Fail(StrCat("the runtime's path must be absolute, got ", Quote(registration.path)));
  }
  switch (target) {
    case Target::kDocker:
      return InstallDocker(text, registration);
    case Target::kContainerd:
      return EditContainerd(text, &registration, registration.name);
    case Target::kPodman:
      return EditPodman(text, &registration, registration.name);
  }
  return Fail("unknown target");
}

Result<Edit> Uninstall(Target target, std::string_view text, std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  switch (target) {
    case Target::kDocker:
      return UninstallDocker(text, name);
    case Target::kContainerd:
      return EditContainerd(text, nullptr, name);
    case Target::kPodman:
      return EditPodman(text, nullptr, name);
  }
  return Fail("unknown target");
}

}  // namespace install

// ---- the verbs ---------------------------------------------------------------

const FlagSpec kInstallFlags[8] = {
    {"docker", "", false, "", "register with Docker: /etc/docker/daemon.json"},
    {"containerd", "", false, "",
     "register with containerd's CRI plugin (a RuntimeClass handler): "
     "/etc/containerd/config.toml"},
    {"podman", "", false, "", "register with podman: /etc/containers/containers.conf"},
    {"config", "", true, "FILE", "edit FILE instead of the target's usual file"},
    {"dry-run", "", false, "", "print the edited file instead of writing it"},
    {"runtime", "", true, "NAME", "the runtime's name (default \"vigil\")"},
    {"path", "", true, "PATH", "the vigil binary to register (default: this one)"},
    {"runtime-args", "", true, "ARG",
     "Docker only: an argument for vigil, repeatable (so are arguments after --)"},
};

namespace {

using install::Target;

Result<Target> ChooseTarget(const ParsedFlags& flags) {
  std::vector<Target> chosen;
  if (flags.IsSet("docker")) chosen.push_back(Target::kDocker);
  if (flags.IsSet("containerd")) chosen.push_back(Target::kContainerd);
  if (flags.IsSet("podman")) chosen.push_back(Target::kPodman);
  if (chosen.size() != 1) return Fail("give exactly one of --docker, --containerd, --podman");
  return chosen[0];
}

// The file's text, "" when it does not exist.
Result<std::string> ReadConfig(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::string();
  return ReadFile(path, install::kMaxConfigBytes);
}

// Writes the edit over the file (through a symlink to its target), keeping
// its mode.
Result<void> WriteConfig(const std::string& path, std::string_view text) {
  std::string target = path;
  if (char resolved[PATH_MAX]; ::realpath(path.c_str(), resolved) != nullptr) target = resolved;
  int mode = 0644;
  if (struct stat st {}; ::stat(target.c_str(), &st) == 0) mode = static_cast<int>(st.st_mode & 07777);
  return WriteFileAtomic(target, text, mode, /*overwrite=*/true);
}

std::string_view Reload(Target target) {
  switch (target) {
    case Target::kDocker:
      return "; restart dockerd (or send it SIGHUP) to use it";
    case Target::kContainerd:
      return "; restart containerd to use it";
    case Target::kPodman:
      return "";
  }
  return "";
}

Result<int> RunEdit(const Invocation& invocation, bool installing) {
  const ParsedFlags& flags = invocation.flags;
  ASSIGN_OR_RETURN(Target target, ChooseTarget(flags));
  std::string path =
      flags.Value("config").value_or(std::string(install::DefaultConfigPath(target)));
  install::Registration registration;
  registration.name = flags.Value("runtime").value_or("vigil");
  if (installing) {
    if (std::optional<std::string> given = flags.Value("path")) {
      registration.path = *given;
    } else {
      char self[PATH_MAX];
      ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
      if (n < 0) return FailErrno("readlink /proc/self/exe");
      registration.path.assign(self, static_cast<std::size_t>(n));
    }
    registration.runtime_args = flags.Values("runtime-args");
    registration.runtime_args.insert(registration.runtime_args.end(), flags.positional.begin(),
                                     flags.positional.end());
  } else if (!flags.positional.empty()) {
    return Fail(StrCat("uninstall takes no arguments, got ", Quote(flags.positional[0])));
  }

  ASSIGN_OR_RETURN(std::string text, ReadConfig(path));
  auto edited = installing ? install::Install(target, text, registration)
                           : install::Uninstall(target, text, registration.name);
  if (!edited) return tl::unexpected(std::move(edited).error().Wrap(path));
  for (const std::string& note : edited->notes) {
    std::fprintf(stderr, "vigil: note: %s: %s\n", path.c_str(), note.c_str());
  }
  if (flags.IsSet("dry-run")) {
    std::fwrite(edited->text.data(), 1, edited->text.size(), stdout);
    return 0;
  }
  std::string runtime = Quote(registration.name);
  if (!edited->changed) {
    std::printf("%s: %s\n", path.c_str(),
                StrCat(installing ? "already has runtime " : "has no runtime ", runtime,
                       "; nothing changed")
                    .c_str());
    return 0;
  }
  RETURN_IF_ERROR(WriteConfig(path, edited->text));
  if (installing) {
    std::printf("%s: added runtime %s (%s)%s\n", path.c_str(), runtime.c_str(),
                registration.path.c_str(), std::string(Reload(target)).c_str());
  } else {
    std::printf("%s: removed runtime %s%s\n", path.c_str(), runtime.c_str(),
                std::string(Reload(target)).c_str());
  }
  return 0;
}

}  // namespace

const FlagSpec kUninstallFlags[6] = {
    {"docker", "", false, "", "unregister from Docker: /etc/docker/daemon.json"},
    {"containerd", "", false, "", "unregister from containerd: /etc/containerd/config.toml"},
    {"podman", "", false, "", "unregister from podman: /etc/containers/containers.conf"},
    {"config", "", true, "FILE", "edit FILE instead of the target's usual file"},
    {"dry-run", "", false, "", "print the edited file instead of writing it"},
    {"runtime", "", true, "NAME", "the runtime's name (default \"vigil\")"},
};

Result<int> RunInstall(const Invocation& invocation) { return RunEdit(invocation, true); }
Result<int> RunUninstall(const Invocation& invocation) { return RunEdit(invocation, false); }

}  // namespace vigil::cli
