// TOML edited line by line, as vigil install does it: vigil's lines sit in
// blocks between two marker comments that install replaces and uninstall
// removes; nothing outside them changes (verb_install.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vigil::cli::install {

std::string BeginMarker(std::string_view name);
std::string EndMarker(std::string_view name);
// `line` is the marker `prefix`NAME, alone or followed by a space.
bool IsMarker(std::string_view line, std::string_view prefix, std::string_view name);

std::string_view Trim(std::string_view s);
std::vector<std::string> SplitLines(std::string_view text);
std::string JoinLines(const std::vector<std::string>& lines);

// The table a `[header]` line opens, with whitespace outside quotes and the
// quotes themselves removed: `[plugins."io.containerd.grpc.v1.cri"]` gives
// `plugins.io.containerd.grpc.v1.cri`. nullopt for other lines, including
// `[[array.of.tables]]`.
std::optional<std::string> TableName(std::string_view line);

// The key a `key = value` line sets, unquoted ("" for other lines).
std::string KeyOf(std::string_view line);

// `s` as a TOML basic string; an error for a character it cannot hold.
Result<std::string> TomlString(std::string_view s);

// Removes the NAME blocks; an appended block's blank separator line goes too.
// Reports whether there was one.
Result<bool> StripBlocks(std::vector<std::string>& lines, std::string_view name);

// Appends a block at the end, after a blank line unless the file is empty.
void AppendBlock(std::vector<std::string>& lines, std::vector<std::string> block);

}  // namespace vigil::cli::install
