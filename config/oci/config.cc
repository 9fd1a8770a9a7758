#include "config/oci/config.h"

#include <filesystem>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "base/strings.h"
#include "config/oci/sections.h"
#include "config/oci/validate.h"

namespace vigil::config {
namespace {

// Real configs are a few KiB; Docker's default seccomp profile makes ~20.
constexpr std::size_t kMaxConfigBytes = 4u << 20;

}  // namespace

Result<Spec> ParseSpec(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(text));
  Spec spec;
  RETURN_IF_ERROR(Decode(doc.root(), JsonPath(), spec));
  return spec;
}

Result<Process> ParseProcess(std::string_view text) {
  ASSIGN_OR_RETURN(json::Document doc, json::Document::Parse(text));
  Process process;
  RETURN_IF_ERROR(Decode(doc.root(), JsonPath(), process));
  RETURN_IF_ERROR(ValidateProcess(process, JsonPath()));
  return process;
}

std::string DumpSpec(const Spec& spec, json::Writer::Style style) {
  json::Writer w(style);
  Encode(w, spec);
  return w.Take();
}

Result<Spec> LoadBundle(const std::string& bundle_dir) {
  std::error_code ec;
  std::filesystem::path bundle = std::filesystem::absolute(bundle_dir, ec).lexically_normal();
  if (ec) return FailErrno(ec.value(), StrCat("bundle ", bundle_dir));
  std::string config_path = (bundle / "config.json").string();
  ASSIGN_OR_RETURN(std::string text, ReadFile(config_path, kMaxConfigBytes));
  Result<Spec> spec = ParseSpec(text);
  if (!spec) return tl::unexpected(std::move(spec).error().Wrap(config_path));
  RETURN_IF_ERROR_WRAP(Validate(*spec), config_path);
  std::filesystem::path root = spec->root->path;
  if (root.is_relative()) spec->root->path = (bundle / root).lexically_normal().string();
  return spec;
}

}  // namespace vigil::config
