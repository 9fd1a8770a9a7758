#include "lifecycle/audit_settings.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <filesystem>

#include "base/strings.h"
#include "base/units.h"
#include "config/oci/vigil_annotations.h"

namespace vigil::lifecycle {
namespace {

// A size cap in bytes, 0 for none ("-1").
Result<std::uint64_t> MaxBytes(std::string_view what, std::string_view text) {
  ASSIGN_OR_RETURN(const std::int64_t bytes, ParseBytes(what, text));
  if (bytes == 0) return Fail(StrCat(what, ": 0 bytes would keep no audit (-1: no cap)"));
  return bytes < 0 ? 0 : static_cast<std::uint64_t>(bytes);
}

Result<std::uint32_t> MaxFiles(std::string_view what, std::string_view text) {
  std::uint32_t files = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), files);
  if (error != std::errc() || end != text.data() + text.size() || files == 0) {
    return Fail(StrCat(what, ": expected a number of files of at least 1, got ", Quote(text)));
  }
  return files;
}

}  // namespace

Result<std::string> ResolveAuditPath(const config::Spec& spec, const std::string& flag_path,
                                     const runtime::StateDir& dir,
                                     std::string_view annotation_dir) {
  const std::string* value = spec.FindAnnotation(config::kAuditAnnotation);
  if (!value) {
    if (!flag_path.empty()) return std::filesystem::absolute(flag_path).lexically_normal().string();
    // Only root reads them, as the state root itself.
    const std::string kept = StrCat(dir.root(), "/", runtime::kKeptAuditDir);
    if (::mkdir(kept.c_str(), 0700) != 0 && errno != EEXIST)
      return FailErrno(StrCat("create ", kept));
    return runtime::KeptAuditLogPath(dir.root(), dir.id());
  }
  const std::filesystem::path allowed(annotation_dir);
  std::filesystem::path path = value->find('/') == std::string::npos
                                   ? allowed / *value
                                   : std::filesystem::path(*value).lexically_normal();
  if (value->empty() || *value == "." || *value == ".." || path.parent_path() != allowed) {
    return Fail(StrCat("annotation ", config::kAuditAnnotation, ": ", Quote(*value),
                       " is not a file in ", annotation_dir, " (use --audit for any other path)"));
  }
  std::error_code ec;
  std::filesystem::create_directories(allowed, ec);
  if (ec) return Fail(StrCat("create ", annotation_dir, ": ", ec.message()));
  return path.string();
}

Result<sentry::audit::Rotation> ResolveAuditRotation(const config::Spec& spec,
                                                     const std::string& flag_size,
                                                     const std::string& flag_files) {
  sentry::audit::Rotation rotation{.max_bytes = kDefaultAuditMaxBytes,
                                   .max_files = kDefaultAuditMaxFiles};
  if (!flag_size.empty()) {
    ASSIGN_OR_RETURN(rotation.max_bytes, MaxBytes("--audit-max-size", flag_size));
  }
  if (!flag_files.empty()) {
    ASSIGN_OR_RETURN(rotation.max_files, MaxFiles("--audit-max-files", flag_files));
  }
  if (const std::string* size = spec.FindAnnotation(config::kAuditMaxSizeAnnotation)) {
    const std::string what = StrCat("annotation ", config::kAuditMaxSizeAnnotation);
    ASSIGN_OR_RETURN(const std::uint64_t asked, MaxBytes(what, *size));
    if (rotation.max_bytes != 0 && (asked == 0 || asked > rotation.max_bytes)) {
      return Fail(StrCat(what, ": ", Quote(*size), " is above the runtime's cap of ",
                         rotation.max_bytes, " bytes (--audit-max-size)"));
    }
    rotation.max_bytes = asked;
  }
  if (const std::string* files = spec.FindAnnotation(config::kAuditMaxFilesAnnotation)) {
    const std::string what = StrCat("annotation ", config::kAuditMaxFilesAnnotation);
    ASSIGN_OR_RETURN(const std::uint32_t asked, MaxFiles(what, *files));
    if (asked > rotation.max_files) {
      return Fail(StrCat(what, ": ", asked, " is above the runtime's cap of ", rotation.max_files,
                         " files (--audit-max-files)"));
    }
    rotation.max_files = asked;
  }
  return rotation;
}

}  // namespace vigil::lifecycle
