#include "service/sandbox_spec.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "base/strings.h"
#include "config/oci/config.h"
#include "config/oci/vigil_annotations.h"
#include "config/policy/policy.h"
#include "lifecycle/host_sandbox.h"

namespace vigil::service {
namespace {

// Who runs a host template's code as root: nobody, so that what the host
// shows it read-only is not writable by ownership either.
constexpr uid_t kNobody = 65534;

std::vector<std::string> KernelCommand(const Template& t) {
  // -I: no PYTHON* variables, no user site; -u: replies as they come.
  return {t.python, "-I", "-u", "-c", std::string(kKernelScript)};
}

Result<config::Spec> HostTemplateSpec(const Template& t, const std::string& bundle_dir) {
  lifecycle::DoRequest request{
      .command = KernelCommand(t),
      .cwd = std::string(kWorkspace),
      .uid = ::geteuid(),
      .gid = ::getegid(),
  };
  const std::string rootfs = bundle_dir + "/rootfs";
  std::error_code ec;
  std::filesystem::create_directories(rootfs, ec);
  if (ec) return FailErrno(ec.value(), StrCat("create ", rootfs));
  ASSIGN_OR_RETURN(std::vector<lifecycle::HostRootEntry> host_root, lifecycle::ReadHostRoot());
  RETURN_IF_ERROR(lifecycle::MakeHostRootLinks(rootfs, host_root));
  ASSIGN_OR_RETURN(config::Spec spec,
                   lifecycle::HostSandboxSpec(request, host_root, rootfs, lifecycle::HostPathExists,
                                              lifecycle::ReadHostDirectory));
  config::Process& process = *spec.process;
  const bool as_root = request.uid == 0;
  const uid_t uid = as_root ? kNobody : request.uid;
  const gid_t gid = as_root ? kNobody : request.gid;
  if (as_root) {
    process.user = config::User{.uid = uid, .gid = gid};
    process.capabilities = config::Capabilities{};
  }
  process.env.push_back(StrCat("HOME=", kWorkspace));
  // vigil do binds the working directory from the host; here it is the
  // sandbox's own.
  for (config::Mount& mount : spec.mounts) {
    if (mount.destination != kWorkspace) continue;
    mount = config::Mount{.destination = std::string(kWorkspace),
                          .type = "tmpfs",
                          .source = "tmpfs",
                          .options = {"nosuid", "nodev", StrCat("size=", t.workspace_bytes),
                                      "mode=0700", StrCat("uid=", uid), StrCat("gid=", gid)}};
  }
  return spec;
}

Result<config::Spec> BundleTemplateSpec(const Template& t) {
  ASSIGN_OR_RETURN(config::Spec spec, config::LoadBundle(t.bundle));
  if (!spec.process) spec.process = config::Process{};
  spec.process->args = KernelCommand(t);
  spec.process->terminal = false;
  return spec;
}

}  // namespace

Result<config::Spec> SandboxSpec(const Template& t, const std::string& bundle_dir) {
  ASSIGN_OR_RETURN(config::Spec spec,
                   t.bundle.empty() ? HostTemplateSpec(t, bundle_dir) : BundleTemplateSpec(t));
  ASSIGN_OR_RETURN(config::Policy policy, config::PolicyFromFlag(t.policy));
  if (!t.egress.empty()) {
    RETURN_IF_ERROR_WRAP(
        lifecycle::ApplyNetworkFlag(lifecycle::DoNetwork::kAllow, t.egress, policy),
        StrCat("template ", Quote(t.name), " egress"));
  }
  if (t.bundle.empty()) {
    // The sandbox's own sockets only, as vigil do's (lifecycle/host_sandbox.h).
    policy.unix_paths.assign(std::begin(lifecycle::kSandboxSockets),
                             std::end(lifecycle::kSandboxSockets));
    policy.name += "+serve";
  }
  spec.annotations[std::string(config::kPolicyAnnotation)] = config::DumpPolicy(policy);
  spec.annotations[std::string(config::kPauseReleaseMemoryAnnotation)] = "true";
  if (t.memory_limit) {
    config::Linux& linux_spec = *spec.linux_spec;
    if (!linux_spec.resources) linux_spec.resources = config::Resources{};
    if (!linux_spec.resources->memory) linux_spec.resources->memory = config::Memory{};
    linux_spec.resources->memory->limit = *t.memory_limit;
  }
  return spec;
}

}  // namespace vigil::service
