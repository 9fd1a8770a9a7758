#include "lifecycle/sandbox_names.h"

#include <fcntl.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "base/strings.h"
#include "runtime/linux/path_in_root.h"
#include "runtime/policy/resolv_conf.h"

namespace vigil::lifecycle {
namespace {

constexpr std::string_view kResolvConf = "/etc/resolv.conf";
// A resolv.conf is a few lines; anything bigger is not one.
constexpr std::size_t kMostResolvConf = 64 * 1024;

bool IsResolvConf(const config::Mount& mount) {
  return std::filesystem::path(mount.destination).lexically_normal() == kResolvConf;
}

// The container's own resolv.conf: the source of the engine's mount, or
// the image's file, looked up inside the rootfs (an image's symlink there
// must not lead to the host's). None at all reads as empty.
std::string OriginalResolvConf(const config::Spec& spec) {
  auto mount = std::find_if(spec.mounts.rbegin(), spec.mounts.rend(), IsResolvConf);
  if (mount != spec.mounts.rend()) return ReadFile(mount->source, kMostResolvConf).value_or("");
  UniqueFd root(::open(spec.root->path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return "";
  Result<UniqueFd> file = runtime::OpenInRoot(root.Get(), kResolvConf);
  if (!file) return "";
  return ReadFile(runtime::FdPath(file->Get()), kMostResolvConf).value_or("");
}

}  // namespace

Result<void> PointNamesAtResolver(const runtime::StateDir& dir, config::Spec& spec,
                                  std::string_view resolver,
                                  const std::optional<std::string>& upstream) {
  runtime::SandboxResolvConf made =
      runtime::MakeSandboxResolvConf(OriginalResolvConf(spec), resolver);
  if (upstream) made.upstream = *upstream;
  RETURN_IF_ERROR(WriteFileAtomic(dir.ResolvConfPath(), made.workload, 0644, /*overwrite=*/false,
                                  Durability::kSkipFsync));
  RETURN_IF_ERROR(WriteFileAtomic(dir.UpstreamResolvConfPath(), made.upstream, 0600,
                                  /*overwrite=*/false, Durability::kSkipFsync));
  // Read-only: the workload cannot point itself elsewhere (it could reach
  // no other nameserver anyway), nor grow a file on the host's /run.
  config::Mount ours{.destination = std::string(kResolvConf),
                     .type = "bind",
                     .source = dir.ResolvConfPath(),
                     .options = {"bind", "ro", "nosuid", "nodev", "noexec"}};
  std::erase_if(spec.mounts, IsResolvConf);
  spec.mounts.push_back(std::move(ours));
  return {};
}

}  // namespace vigil::lifecycle
