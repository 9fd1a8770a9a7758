// Reading and writing config.json: the entry points of the config layer.
#pragma once

#include <string>
#include <string_view>

#include "base/json/json_writer.h"
#include "base/result.h"
#include "config/oci/spec.h"

namespace vigil::config {

// Parses config.json text into a Spec. Checks types and closed value sets;
// cross-field rules are Validate's (validate.h). Unknown properties are
// ignored, as the runtime-spec requires.
Result<Spec> ParseSpec(std::string_view text);

// Parses and validates a process document, as `exec --process FILE` and
// containerd's exec send it: config.json's "process" on its own.
Result<Process> ParseProcess(std::string_view text);

// The canonical JSON form of `spec`; ParseSpec(DumpSpec(s)) == s.
std::string DumpSpec(const Spec& spec, json::Writer::Style style = json::Writer::Style::kPretty);

// Reads BUNDLE/config.json, parses and validates it, and resolves a relative
// root.path against the bundle. Errors name the file and the JSON path.
Result<Spec> LoadBundle(const std::string& bundle_dir);

}  // namespace vigil::config
