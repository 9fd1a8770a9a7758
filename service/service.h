// `vigil serve`'s sandboxes: made from templates (taken from a warm pool
// when one is ready), found by id, ended at the end of their lifetime or
// on request, paused when idle; their audit kept after them. Everything
// here is safe to call from the HTTP server's threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "service/sandbox.h"
#include "service/template.h"

namespace vigil::service {

struct SandboxRequest {
  std::string template_name = std::string(kHostTemplate);
  std::optional<std::chrono::seconds> lifetime;      // the template's when absent
  std::vector<std::pair<std::string, std::string>> env;  // set in its kernel
  std::vector<std::pair<std::string, std::string>> metadata;  // kept, shown back
};

struct SandboxInfo {
  std::string id;
  std::string template_name;
  std::chrono::system_clock::time_point started;
  std::chrono::system_clock::time_point ends;
  std::vector<std::pair<std::string, std::string>> metadata;
};

// Errors carry ENOENT for a sandbox or template that does not exist and
// EINVAL for a request that cannot be met, as the HTTP answer tells them.
class Service {
 public:
  // `state_dir` holds the sandboxes' bundles (state_dir/sandboxes); their
  // audits are kept where vigil keeps every container's, after them too.
  Service(Runtime runtime, std::vector<Template> templates, std::string state_dir);
  ~Service();

  // Ends what an earlier run of the service left (its sandboxes' kernels
  // lost their service with it), then starts filling the pools and the
  // clock that ends and pauses sandboxes.
  Result<void> Open();
  // Ends every sandbox, the pools' too.
  void Close();

  // A sandbox for `request`: a ready one of its template's pool, or a new one.
  Result<SandboxInfo> Create(const SandboxRequest& request);
  std::shared_ptr<Sandbox> Find(const std::string& id);
  Result<SandboxInfo> Info(const std::string& id);
  std::vector<SandboxInfo> List();
  // Ends it now; false when there is no such sandbox.
  bool Kill(const std::string& id);
  // Ends it `lifetime` from now instead.
  Result<SandboxInfo> SetLifetime(const std::string& id, std::chrono::seconds lifetime);
  // The audit of a sandbox, live or ended, if it had one.
  std::optional<std::string> AuditPath(const std::string& id) const;

  [[nodiscard]] const std::vector<Template>& templates() const { return templates_; }

 private:
  struct Live {
    std::shared_ptr<Sandbox> sandbox;
    SandboxInfo info;
  };
  const Template* FindTemplate(const std::string& name) const;
  // Under mu_: the entry of `id`, forgotten (end()) when its kernel is gone
  // (a call that lost it ended the sandbox, or it died between calls: then
  // the tender ends it).
  std::map<std::string, Live>::iterator LiveEntry(const std::string& id);
  Result<std::shared_ptr<Sandbox>> StartOne(const Template& t);
  void Tend();  // the background thread: pools, lifetimes, idle pauses

  const Runtime runtime_;
  const std::vector<Template> templates_;
  const std::string state_dir_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool closing_ = false;
  std::map<std::string, Live> live_;
  std::map<std::string, std::deque<std::shared_ptr<Sandbox>>> ready_;  // by template
  // Found with their kernel dead outside the tender; it ends them.
  std::vector<std::shared_ptr<Sandbox>> dead_;
  std::thread tender_;
  UniqueFd lock_;  // flock(2)ed while the service runs
};

// A sandbox id as the service makes them: "sb-" and 16 hex digits.
bool IsSandboxId(std::string_view id);

}  // namespace vigil::service
