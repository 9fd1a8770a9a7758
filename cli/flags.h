// Command-line flags parsed the way runc's parser (urfave/cli) reads them, since
// containerd, podman and CRI-O hard-code that syntax: `--flag` and `-flag`,
// `--flag=value` and `--flag value`, `--bool=false`, and flags ending at the
// first positional argument or at `--`.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::cli {

struct FlagSpec {
  std::string_view name;        // long name: "bundle"
  std::string_view alias;       // short name or empty: "b"
  bool takes_value;             // false: a boolean switch
  std::string_view value_name;  // for help: "DIR"
  std::string_view help;
};

// Where flags may stand: before the first positional argument only (a
// command's own arguments follow it, as exec's do), or among the
// positional arguments too (runc's other verbs, whose command-line library
// moves flags after the id in front of it: `runc update ID --memory 1G`).
enum class Positionals { kEndFlags, kMixWithFlags };

class ParsedFlags {
 public:
  // Whether a boolean flag is on (given without a value, or as =true).
  [[nodiscard]] bool IsSet(std::string_view name) const;
  // The value of a value flag; the last one wins when repeated.
  [[nodiscard]] std::optional<std::string> Value(std::string_view name) const;
  // Every value of a repeatable flag (`--env A=1 --env B=2`), in order.
  [[nodiscard]] std::vector<std::string> Values(std::string_view name) const;

  // A flag holding a count (`--preserve-fds 2`): 0 when absent; anything but
  // a non-negative integer is an error naming the flag.
  [[nodiscard]] Result<int> Count(std::string_view name) const;

  std::vector<std::string> positional;

 private:
  friend Result<ParsedFlags> ParseFlags(std::span<const FlagSpec>, std::span<const std::string>,
                                        std::size_t*, Positionals);
  std::multimap<std::string, std::string, std::less<>> values_;
};

// Parses `args` against `specs`. With kEndFlags, the first positional
// argument and everything after go to `positional`; with kMixWithFlags,
// only what follows "--" is taken whole. With `consumed` non-null, it stops
// at the first positional argument and reports how many arguments were
// flags, so the global flags can be parsed before the verb.
Result<ParsedFlags> ParseFlags(std::span<const FlagSpec> specs, std::span<const std::string> args,
                               std::size_t* consumed = nullptr,
                               Positionals positionals = Positionals::kEndFlags);

// Help lines for `specs`, one flag per line.
std::string FlagHelp(std::span<const FlagSpec> specs);

}  // namespace vigil::cli
