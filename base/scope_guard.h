// ScopeGuard: runs a cleanup when the scope ends, unless dismissed. Used to
// undo half-done work on error paths ("never a half-made container").
#pragma once

#include <utility>

namespace vigil {

template <typename Fn>
class ScopeGuard {
 public:
  explicit ScopeGuard(Fn fn) : fn_(std::move(fn)) {}
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
  ~ScopeGuard() {
    if (armed_) fn_();
  }

  // The work succeeded: keep it, skip the cleanup.
  void Dismiss() { armed_ = false; }

 private:
  Fn fn_;
  bool armed_ = true;
};

}  // namespace vigil
