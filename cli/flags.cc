#include "cli/flags.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "base/strings.h"

namespace vigil::cli {
namespace {

const FlagSpec* FindFlag(std::span<const FlagSpec> specs, std::string_view name) {
  for (const FlagSpec& spec : specs) {
    if (spec.name == name || (!spec.alias.empty() && spec.alias == name)) return &spec;
  }
  return nullptr;
}

Result<bool> ParseBool(std::string_view flag, std::string_view text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return Fail(StrCat("flag --", flag, ": expected true or false, got ", Quote(text)));
}

}  // namespace

bool ParsedFlags::IsSet(std::string_view name) const {
  auto [first, last] = values_.equal_range(name);
  if (first == last) return false;
  return std::prev(last)->second == "true";
}

std::optional<std::string> ParsedFlags::Value(std::string_view name) const {
  auto [first, last] = values_.equal_range(name);
  if (first == last) return std::nullopt;
  return std::prev(last)->second;
}

std::vector<std::string> ParsedFlags::Values(std::string_view name) const {
  std::vector<std::string> out;
  auto [first, last] = values_.equal_range(name);
  for (auto it = first; it != last; ++it) out.push_back(it->second);
  return out;
}

Result<int> ParsedFlags::Count(std::string_view name) const {
  std::string text = Value(name).value_or("0");
  int count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end != text.data() + text.size() || count < 0) {
    return Fail(StrCat("--", name, ": expected a count, got ", Quote(text)));
  }
  return count;
}

Result<ParsedFlags> ParseFlags(std::span<const FlagSpec> specs, std::span<const std::string> args,
                               std::size_t* consumed, Positionals positionals) {
  ParsedFlags parsed;
  const bool mixed = positionals == Positionals::kMixWithFlags && consumed == nullptr;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!mixed) break;  // the first positional argument ends the flags
      parsed.positional.emplace_back(arg);
      continue;
    }
    std::string_view body = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::optional<std::string_view> inline_value;
    if (std::size_t eq = body.find('='); eq != std::string_view::npos) {
      inline_value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const FlagSpec* spec = FindFlag(specs, body);
    if (spec == nullptr) return Fail(StrCat("flag provided but not defined: ", Quote(arg)));
    std::string value;
    if (!spec->takes_value) {
      bool on = true;
      if (inline_value) {
        ASSIGN_OR_RETURN(on, ParseBool(spec->name, *inline_value));
      }
      value = on ? "true" : "false";
    } else if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Fail(StrCat("flag needs an argument: --", spec->name));
    }
    parsed.values_.emplace(std::string(spec->name), std::move(value));
  }
  if (consumed != nullptr) {
    *consumed = i;
  } else {
    parsed.positional.insert(parsed.positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                             args.end());
  }
  return parsed;
}

std::string FlagHelp(std::span<const FlagSpec> specs) {
  // "--name VALUE, -a VALUE" as urfave/cli (runc) writes them, help aligned
  // two columns after the widest.
  std::vector<std::string> names;
  size_t width = 0;
  for (const FlagSpec& spec : specs) {
    const std::string value = spec.takes_value ? StrCat(" ", spec.value_name) : "";
    std::string name = StrCat("--", spec.name, value);
    if (!spec.alias.empty()) name += StrCat(", -", spec.alias, value);
    width = std::max(width, name.size());
    names.push_back(std::move(name));
  }
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i) {
    out +=
        StrCat("   ", names[i], std::string(width + 2 - names[i].size(), ' '), specs[i].help, "\n");
  }
  return out;
}

}  // namespace vigil::cli
