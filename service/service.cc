#include "service/service.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <filesystem>

#include "base/json/json_writer.h"
#include "base/random.h"
#include "base/strings.h"
#include "runtime/container/state_dir.h"

namespace vigil::service {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::system_clock;

// How often the tender looks at lifetimes and idle sandboxes.
constexpr std::chrono::milliseconds kTendEvery{250};
// How long the env call of a sandbox taken for a request may take.
constexpr std::chrono::seconds kEnvLimit{10};

tl::unexpected<Error> NotFound(std::string message) {
  return tl::unexpected(Error{.code = ENOENT, .message = std::move(message)});
}

Result<std::string> NewId() {
  ASSIGN_OR_RETURN(std::string random, RandomHex(8));
  return "sb-" + random;
}

// A lifetime a request may ask of a sandbox of `t`.
Result<void> CheckLifetime(const Template& t, std::chrono::seconds lifetime) {
  if (lifetime.count() > 0 && lifetime <= t.max_lifetime) return {};
  return tl::unexpected(
      Error{.code = EINVAL,
            .message = StrCat("timeout: ", lifetime.count(), "s is not within 1 to ",
                              t.max_lifetime.count(), "s (template ", Quote(t.name), ")")});
}

std::string EnvRequest(const std::vector<std::pair<std::string, std::string>>& env) {
  json::Writer w;
  w.BeginObject();
  w.StringMember("op", "env");
  w.Key("env");
  w.BeginObject();
  for (const auto& [name, value] : env) w.StringMember(name, value);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace

bool IsSandboxId(std::string_view id) {
  return id.size() == 19 && id.starts_with("sb-") &&
         id.find_first_not_of("0123456789abcdef", 3) == std::string_view::npos;
}

Service::Service(Runtime runtime, std::vector<Template> templates, std::string state_dir)
    : runtime_(std::move(runtime)),
      templates_(std::move(templates)),
      state_dir_(std::move(state_dir)) {}

Service::~Service() { Close(); }

Result<void> Service::Open() {
  const std::string sandboxes = state_dir_ + "/sandboxes";
  std::error_code ec;
  std::filesystem::create_directories(sandboxes, ec);
  if (ec) return FailErrno(ec.value(), StrCat("create ", sandboxes));
  // The sandboxes' bundles are the service's business alone.
  if (::chmod(state_dir_.c_str(), 0700) != 0) return FailErrno(StrCat("chmod ", state_dir_));
  // One service per state root: a second would take the first's socket
  // and end its sandboxes below.
  const std::string lock_path = state_dir_ + "/lock";
  lock_.Reset(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock_) return FailErrno(StrCat("open ", lock_path));
  if (::flock(lock_.Get(), LOCK_EX | LOCK_NB) != 0) {
    return Fail(StrCat("another vigil serve runs on this state root (", lock_path, " is locked)"));
  }
  // A sandbox of an earlier run: its kernel's service is gone (and with it
  // the only end of the kernel's socket), so it can serve no call again.
  for (const auto& entry : std::filesystem::directory_iterator(sandboxes, ec)) {
    const std::string id = entry.path().filename().string();
    if (IsSandboxId(id)) (void)runtime_.Run({"delete", "--force", id});
    std::filesystem::remove_all(entry.path(), ec);
  }
  tender_ = std::thread([this] { Tend(); });
  return {};
}

void Service::Close() {
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    closing_ = true;
  }
  wake_.notify_all();
  if (tender_.joinable()) tender_.join();
  std::vector<std::shared_ptr<Sandbox>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, live] : live_) all.push_back(live.sandbox);
    for (auto& [name, ready] : ready_) all.insert(all.end(), ready.begin(), ready.end());
    all.insert(all.end(), dead_.begin(), dead_.end());
    live_.clear();
    ready_.clear();
    dead_.clear();
  }
  for (const auto& sandbox : all) sandbox->End();
}

const Template* Service::FindTemplate(const std::string& name) const {
  auto found = std::find_if(templates_.begin(), templates_.end(),
                            [&](const Template& t) { return t.name == name; });
  return found == templates_.end() ? nullptr : &*found;
}

Result<std::shared_ptr<Sandbox>> Service::StartOne(const Template& t) {
  ASSIGN_OR_RETURN(std::string id, NewId());
  return Sandbox::Start(runtime_, t, id, StrCat(state_dir_, "/sandboxes/", id));
}

Result<SandboxInfo> Service::Create(const SandboxRequest& request) {
  const Template* t = FindTemplate(request.template_name);
  if (t == nullptr) return NotFound(StrCat("no template ", Quote(request.template_name)));
  const std::chrono::seconds lifetime = request.lifetime.value_or(t->lifetime);
  RETURN_IF_ERROR(CheckLifetime(*t, lifetime));
  std::shared_ptr<Sandbox> sandbox;
  {
    std::lock_guard lock(mu_);
    if (closing_) return Fail("the service is closing");
    std::deque<std::shared_ptr<Sandbox>>& ready = ready_[t->name];
    while (!sandbox && !ready.empty()) {
      sandbox = std::move(ready.front());
      ready.pop_front();
      // One whose kernel died waiting is the tender's to end.
      if (!sandbox->KernelAlive()) {
        dead_.push_back(std::move(sandbox));
        sandbox = nullptr;
      }
    }
  }
  wake_.notify_all();  // the pool has one to make again
  if (!sandbox) {
    ASSIGN_OR_RETURN(sandbox, StartOne(*t));
  }
  if (!request.env.empty()) {
    Result<void> set = sandbox->Call(EnvRequest(request.env), "", kEnvLimit, ReplySink{});
    if (!set) {
      sandbox->End();
      return tl::unexpected(std::move(set).error().Wrap("env"));
    }
  }
  SandboxInfo info{.id = sandbox->id(),
                   .template_name = t->name,
                   .started = system_clock::now(),
                   .ends = system_clock::now() + lifetime,
                   .metadata = request.metadata};
  std::lock_guard lock(mu_);
  if (closing_) {
    sandbox->End();
    return Fail("the service is closing");
  }
  live_.emplace(info.id, Live{.sandbox = std::move(sandbox), .info = info});
  return info;
}

std::map<std::string, Service::Live>::iterator Service::LiveEntry(const std::string& id) {
  auto found = live_.find(id);
  if (found != live_.end() && !found->second.sandbox->KernelAlive()) {
    if (!found->second.sandbox->ended()) dead_.push_back(std::move(found->second.sandbox));
    live_.erase(found);
    return live_.end();
  }
  return found;
}

std::shared_ptr<Sandbox> Service::Find(const std::string& id) {
  std::lock_guard lock(mu_);
  auto found = LiveEntry(id);
  return found == live_.end() ? nullptr : found->second.sandbox;
}

Result<SandboxInfo> Service::Info(const std::string& id) {
  std::lock_guard lock(mu_);
  auto found = LiveEntry(id);
  if (found == live_.end()) return NotFound(StrCat("no sandbox ", Quote(id)));
  return found->second.info;
}

std::vector<SandboxInfo> Service::List() {
  std::lock_guard lock(mu_);
  std::vector<SandboxInfo> all;
  for (const auto& [id, live] : live_) all.push_back(live.info);
  return all;
}

bool Service::Kill(const std::string& id) {
  std::shared_ptr<Sandbox> sandbox;
  {
    std::lock_guard lock(mu_);
    auto found = LiveEntry(id);
    if (found == live_.end()) return false;
    sandbox = std::move(found->second.sandbox);
    live_.erase(found);
  }
  sandbox->End();
  return true;
}

Result<SandboxInfo> Service::SetLifetime(const std::string& id, std::chrono::seconds lifetime) {
  std::lock_guard lock(mu_);
  auto found = LiveEntry(id);
  if (found == live_.end()) return NotFound(StrCat("no sandbox ", Quote(id)));
  RETURN_IF_ERROR(CheckLifetime(found->second.sandbox->config(), lifetime));
  found->second.info.ends = system_clock::now() + lifetime;
  return found->second.info;
}

std::optional<std::string> Service::AuditPath(const std::string& id) const {
  if (!IsSandboxId(id)) return std::nullopt;
  std::string path = runtime::KeptAuditLogPath(runtime_.root, id);
  if (::access(path.c_str(), F_OK) != 0) return std::nullopt;
  return path;
}

void Service::Tend() {
  std::unique_lock lock(mu_);
  while (!closing_) {
    // Past their lifetime, or their kernel dead: gone, their audit kept.
    std::vector<std::shared_ptr<Sandbox>> ending;
    std::vector<std::shared_ptr<Sandbox>> idle;
    const auto now = system_clock::now();
    ending.swap(dead_);
    for (auto it = live_.begin(); it != live_.end();) {
      if (it->second.info.ends <= now || !it->second.sandbox->KernelAlive()) {
        ending.push_back(std::move(it->second.sandbox));
        it = live_.erase(it);
        continue;
      }
      idle.push_back(it->second.sandbox);
      ++it;
    }
    for (auto& [name, ready] : ready_) {
      for (auto it = ready.begin(); it != ready.end();) {
        if (!(*it)->KernelAlive()) {
          ending.push_back(std::move(*it));
          it = ready.erase(it);
          continue;
        }
        idle.push_back(*it);
        ++it;
      }
    }
    // The first pool short of its size, if any.
    const Template* refill = nullptr;
    for (const Template& t : templates_) {
      if (ready_[t.name].size() < t.pool) {
        refill = &t;
        break;
      }
    }
    lock.unlock();
    for (const auto& sandbox : ending) sandbox->End();
    const auto steady_now = Clock::now();
    for (const auto& sandbox : idle) {
      if (steady_now - sandbox->last_used() >= sandbox->config().idle_pause) sandbox->PauseIfIdle();
    }
    Result<std::shared_ptr<Sandbox>> made =
        refill ? StartOne(*refill) : Result<std::shared_ptr<Sandbox>>(nullptr);
    lock.lock();
    if (made && *made) {
      if (closing_) {
        lock.unlock();
        (*made)->End();
        lock.lock();
      } else {
        ready_[refill->name].push_back(std::move(*made));
      }
      continue;  // the pool may want more
    }
    if (!made) std::fprintf(stderr, "vigil serve: warm pool: %s\n", made.error().message.c_str());
    // A template that cannot start (or nothing to do): wait a while.
    wake_.wait_for(lock, refill ? std::chrono::milliseconds(5000) : kTendEvery);
  }
}

}  // namespace vigil::service
