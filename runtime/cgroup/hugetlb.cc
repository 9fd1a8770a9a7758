// linux.resources.hugepageLimits: hugetlb.<size>.limit_in_bytes (v1) or
// hugetlb.<size>.max (v2), and the matching reservation limit
// (.rsvd.limit_in_bytes / .rsvd.max, Linux 5.7+) when the kernel has it, so
// that pages reserved by mmap count too (as runc does). On these hybrid
// hosts hugetlb lives on the cgroup2 mount.
#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

// The kernel's names: "64KB", "2MB", "1GB".
bool ValidPageSize(std::string_view size) {
  std::size_t digits = size.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos) return false;
  std::string_view unit = size.substr(digits);
  return unit == "KB" || unit == "MB" || unit == "GB";
}

}  // namespace

Result<void> ApplyHugetlb(const Knobs& knobs, const config::Resources& r) {
  for (std::size_t i = 0; i < r.hugepage_limits.size(); ++i) {
    const config::HugepageLimit& limit = r.hugepage_limits[i];
    std::string at = StrCat("linux.resources.hugepageLimits[", i, "]");
    if (!ValidPageSize(limit.page_size)) {
      return Fail(StrCat(at, ".pageSize: expected a size like \"2MB\" or \"1GB\", got ",
                         Quote(limit.page_size)));
    }
    ASSIGN_OR_RETURN(const Placement* p, knobs.Require("hugetlb", at));
    std::string prefix = StrCat("hugetlb.", limit.page_size);
    const char* suffix = p->hierarchy.v2 ? ".max" : ".limit_in_bytes";
    std::string file = StrCat(prefix, suffix);
    if (!knobs.Exists(*p, file)) {
      return Fail(StrCat(at, ": huge page size ", limit.page_size,
                         " is not supported on this host (no ", p->dir, "/", file, ")"));
    }
    std::string value = StrCat(limit.limit);
    RETURN_IF_ERROR(knobs.Write(*p, file, value, at));
    std::string rsvd = StrCat(prefix, ".rsvd", suffix);
    if (knobs.Exists(*p, rsvd)) RETURN_IF_ERROR(knobs.Write(*p, rsvd, value, at));
  }
  return {};
}

}  // namespace vigil::runtime::cgroup
