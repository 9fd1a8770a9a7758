#include "service/template.h"

#include <algorithm>
#include <charconv>

#include "base/json/json_reader.h"
#include "base/strings.h"
#include "base/units.h"
#include "config/policy/policy.h"
#include "lifecycle/host_sandbox.h"

namespace vigil::service {
namespace {

Result<std::string> StringAt(json::Value value, const std::string& path) {
  std::optional<std::string_view> text = value.AsString();
  if (!text) return Fail(StrCat(path, ": expected string, got ", value.Describe()));
  return std::string(*text);
}

Result<std::chrono::seconds> SecondsAt(json::Value value, const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, StringAt(value, path));
  ASSIGN_OR_RETURN(std::chrono::nanoseconds d, ParseGoDuration(path, text));
  if (d < std::chrono::seconds(1)) return Fail(StrCat(path, ": ", Quote(text), " is under 1s"));
  return std::chrono::duration_cast<std::chrono::seconds>(d);
}

Result<void> ParseTemplate(json::Value object, const std::string& path, Template& out) {
  if (object.kind() != json::Kind::kObject) {
    return Fail(StrCat(path, ": expected object, got ", object.Describe()));
  }
  for (std::size_t i = 0; i < object.size(); ++i) {
    const std::string_view key = object.MemberKey(i);
    const json::Value value = object.MemberValue(i);
    const std::string at = StrCat(path, ".", key);
    if (key == "bundle") {
      ASSIGN_OR_RETURN(out.bundle, StringAt(value, at));
    } else if (key == "python") {
      ASSIGN_OR_RETURN(out.python, StringAt(value, at));
    } else if (key == "policy") {
      ASSIGN_OR_RETURN(out.policy, StringAt(value, at));
    } else if (key == "pool") {
      std::optional<std::string_view> number = value.NumberText();
      std::size_t pool = 0;
      if (!number ||
          std::from_chars(number->data(), number->data() + number->size(), pool).ptr !=
              number->data() + number->size() ||
          pool > 64) {
        return Fail(StrCat(at, ": expected an integer from 0 to 64, got ", value.Describe()));
      }
      out.pool = pool;
    } else if (key == "lifetime") {
      ASSIGN_OR_RETURN(out.lifetime, SecondsAt(value, at));
    } else if (key == "maxLifetime") {
      ASSIGN_OR_RETURN(out.max_lifetime, SecondsAt(value, at));
    } else if (key == "idlePause") {
      ASSIGN_OR_RETURN(out.idle_pause, SecondsAt(value, at));
    } else if (key == "egress") {
      if (value.kind() != json::Kind::kArray) {
        return Fail(StrCat(at, ": expected an array of HOST:PORT, got ", value.Describe()));
      }
      out.egress.clear();
      for (std::size_t j = 0; j < value.size(); ++j) {
        ASSIGN_OR_RETURN(std::string entry, StringAt(value.Element(j), StrCat(at, "[", j, "]")));
        out.egress.push_back(std::move(entry));
      }
    } else if (key == "memory") {
      ASSIGN_OR_RETURN(std::string text, StringAt(value, at));
      ASSIGN_OR_RETURN(std::int64_t bytes, ParseBytes(at, text));
      out.memory_limit = bytes;
    } else {
      return Fail(StrCat(at, ": unknown template setting"));
    }
  }
  if (!out.egress.empty()) {
    // Checked now, not at each sandbox's start.
    config::Policy scratch;
    RETURN_IF_ERROR_WRAP(
        lifecycle::ApplyNetworkFlag(lifecycle::DoNetwork::kAllow, out.egress, scratch),
        StrCat(path, ".egress"));
  }
  if (out.lifetime > out.max_lifetime) {
    return Fail(StrCat(path, ".lifetime: longer than its maxLifetime"));
  }
  return {};
}

}  // namespace

std::vector<Template> DefaultTemplates() {
  return {Template{.name = std::string(kHostTemplate)}};
}

Result<std::vector<Template>> ParseTemplates(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document document, json::Document::Parse(text));
  std::vector<Template> templates = DefaultTemplates();
  const json::Value root = document.root();
  if (root.kind() != json::Kind::kObject) {
    return Fail(StrCat("expected an object, got ", root.Describe()));
  }
  std::optional<json::Value> named = root.Find("templates");
  if (!named) return templates;
  if (named->kind() != json::Kind::kObject) {
    return Fail(StrCat("templates: expected object, got ", named->Describe()));
  }
  for (std::size_t i = 0; i < named->size(); ++i) {
    const std::string name(named->MemberKey(i));
    const std::string path = StrCat("templates.", name);
    if (name.empty() || name.size() > 64 ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") != std::string::npos) {
      return Fail(StrCat(path, ": a template's name is 1-64 of a-z, 0-9, '-', '_', '.'"));
    }
    auto found = std::find_if(templates.begin(), templates.end(),
                              [&](const Template& t) { return t.name == name; });
    Template& t = found != templates.end() ? *found : templates.emplace_back(Template{.name = name});
    RETURN_IF_ERROR(ParseTemplate(named->MemberValue(i), path, t));
  }
  return templates;
}

}  // namespace vigil::service
