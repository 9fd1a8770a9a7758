// Docker's daemon.json: runtimes.NAME = {path, runtimeArgs}. The file is
// parsed and written back whole, every other member kept in order.
#include <charconv>
#include <cstdint>
#include <string>

#include "base/json/json_reader.h"
#include "base/json/json_writer.h"
#include "base/strings.h"
#include "cli/install_edits.h"

namespace vigil::cli::install {
namespace {

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
      for (std::size_t i = 0; i < value.size(); ++i)
        RETURN_IF_ERROR(CopyJson(value.Element(i), out));
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
  out.StringMember("path", r.path);
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

}  // namespace

Result<Edit> InstallDocker(std::string_view text, const Registration& r) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDaemonJson(text));
  std::optional<json::Value> runtimes = doc.root().Find("runtimes");
  std::optional<json::Value> entry = runtimes ? runtimes->Find(r.name) : std::nullopt;
  if (entry && SameDockerRuntime(*entry, r)) return Edit{std::string(text), false, {}};
  ASSIGN_OR_RETURN(std::string out, RewriteDaemonJson(doc.root(), r.name, &r));
  return Edit{std::move(out), true, {}};
}

Result<Edit> UninstallDocker(std::string_view text, std::string_view name,
                             std::optional<std::string_view> before_install) {
  ASSIGN_OR_RETURN(json::Document doc, ParseDaemonJson(text));
  std::optional<json::Value> runtimes = doc.root().Find("runtimes");
  if (!runtimes || !runtimes->Find(name)) return Edit{std::string(text), false, {}};
  if (std::optional<json::Value> d = doc.root().Find("default-runtime");
      d && d->AsString() == name) {
    return Fail(StrCat("default-runtime is ", Quote(name), "; set another one first"));
  }
  ASSIGN_OR_RETURN(std::string out, RewriteDaemonJson(doc.root(), name, nullptr));
  if (before_install) {
    // Nothing but the runtime changed since: the file goes back to its
    // very bytes (or away). Otherwise the rewrite keeps those changes.
    Result<json::Document> before = ParseDaemonJson(*before_install);
    Result<std::string> same = before ? RewriteDaemonJson(before->root(), name, nullptr)
                                      : Result<std::string>(Fail("unreadable"));
    if (same && *same == out) {
      return Edit{
          .text = std::string(*before_install),
          .changed = true,
          .remove_file = before_install->find_first_not_of(" \t\r\n") == std::string_view::npos};
    }
  }
  return Edit{std::move(out), true, {}};
}

}  // namespace vigil::cli::install
