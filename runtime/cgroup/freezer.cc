// Freezing the container (pause/resume): v1 freezer.state when a v1 freezer
// hierarchy exists (these hybrid hosts), else cgroup2's cgroup.freeze, which
// every non-root cgroup2 directory has (Linux 5.2+).
#include <unistd.h>

#include "base/strings.h"
#include "runtime/cgroup/controllers.h"

namespace vigil::runtime::cgroup {
namespace {

// The directory to freeze and whether it is v1's freezer.
Result<const Placement*> FreezerPlacement(const Knobs& knobs) {
  if (const Placement* p = knobs.Find("freezer"); p != nullptr && !p->hierarchy.v2) return p;
  if (const Placement* p = knobs.Unified()) return p;
  return Fail(
      "the freezer cgroup controller is not available on this host (no v1 freezer hierarchy "
      "and no cgroup2 mount)");
}

// freezer.state goes THAWED -> FREEZING -> FROZEN; it can stay FREEZING while
// new tasks keep arriving (fork, a parallel exec), so retry as runc does:
// rewrite FROZEN each round and now and then thaw and start over. If it
// never settles, thaw rather than leave the container half-frozen.
Result<void> FreezeV1(const Knobs& knobs, const Placement& p) {
  const std::string what = StrCat("freeze ", p.dir);
  for (int i = 0; i < 1000; ++i) {
    if (i % 50 == 49) {
      (void)knobs.Write(p, "freezer.state", "THAWED", what);
      ::usleep(10000);
    }
    RETURN_IF_ERROR(knobs.Write(p, "freezer.state", "FROZEN", what));
    if (i % 25 == 24) ::usleep(10);
    ASSIGN_OR_RETURN(std::string state, knobs.Read(p, "freezer.state"));
    if (state == "FROZEN") return {};
    if (state != "FREEZING") {
      return Fail(StrCat(what, ": unexpected freezer.state ", Quote(state), " while freezing"));
    }
  }
  (void)knobs.Write(p, "freezer.state", "THAWED", what);
  return Fail(StrCat(what, ": freezer.state stayed FREEZING (tasks keep appearing?); thawed it"));
}

// cgroup.events "frozen 0|1".
Result<bool> EventsFrozen(const Knobs& knobs, const Placement& p) {
  ASSIGN_OR_RETURN(auto events, knobs.ReadKeyed(p, "cgroup.events"));
  auto it = events.find("frozen");
  return it != events.end() && it->second == 1;
}

// cgroup.freeze is a request; cgroup.events says when every task has
// stopped. Waits up to 5 s.
Result<void> SetFrozenV2(const Knobs& knobs, const Placement& p, bool frozen) {
  const std::string what = StrCat(frozen ? "freeze " : "thaw ", p.dir);
  RETURN_IF_ERROR(knobs.Write(p, "cgroup.freeze", frozen ? "1" : "0", what));
  for (int i = 0; i < 5000; ++i) {
    ASSIGN_OR_RETURN(bool now, EventsFrozen(knobs, p));
    if (now == frozen) return {};
    ::usleep(1000);
  }
  if (frozen) (void)knobs.Write(p, "cgroup.freeze", "0", what);
  return Fail(StrCat(what, ": cgroup.events did not report frozen ", frozen ? 1 : 0, " within 5 s",
                     frozen ? "; thawed it" : ""));
}

}  // namespace

Result<void> FreezeCgroup(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, FreezerPlacement(knobs));
  return p->hierarchy.v2 ? SetFrozenV2(knobs, *p, true) : FreezeV1(knobs, *p);
}

Result<void> ThawCgroup(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, FreezerPlacement(knobs));
  if (p->hierarchy.v2) return SetFrozenV2(knobs, *p, false);
  return knobs.Write(*p, "freezer.state", "THAWED", StrCat("thaw ", p->dir));
}

Result<bool> CgroupFrozen(const Knobs& knobs) {
  ASSIGN_OR_RETURN(const Placement* p, FreezerPlacement(knobs));
  if (p->hierarchy.v2) {
    if (!knobs.Exists(*p, "cgroup.freeze")) return false;  // kernel before 5.2
    ASSIGN_OR_RETURN(std::string requested, knobs.Read(*p, "cgroup.freeze"));
    if (requested != "1") return false;
    return EventsFrozen(knobs, *p);  // "1" but not yet frozen: still freezing
  }
  for (int i = 0; i < 10; ++i) {
    ASSIGN_OR_RETURN(std::string state, knobs.Read(*p, "freezer.state"));
    if (state == "THAWED") return false;
    if (state == "FROZEN") {
      // FROZEN because an ancestor is frozen is not this container's pause.
      if (!knobs.Exists(*p, "freezer.self_freezing")) return true;
      // Compared in place: moving the string out trips a false
      // maybe-uninitialized warning of g++ 12 at -O2.
      Result<std::string> self = knobs.Read(*p, "freezer.self_freezing");
      if (!self) return tl::unexpected(self.error());
      return *self == "1";
    }
    ::usleep(1000);  // FREEZING: give it a moment to settle
  }
  return false;
}

}  // namespace vigil::runtime::cgroup
