// The sentry acting with a workload thread's credentials (DESIGN.md §2
// rule 6): for as long as an ActingAs lives, the supervisor's filesystem
// uid and gid, supplementary groups, effective capabilities and umask are
// the thread's, so the kernel checks permissions as it would for the
// workload. Handlers run on the supervisor's loop thread, and these are that
// thread's own credentials (changed with raw system calls, which glibc's
// wrappers would broadcast to every thread; the audit writer's keep the
// supervisor's), restored when the ActingAs ends (and never changed
// otherwise, so they are read once).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "base/result.h"
#include "sentry/core/thread_status.h"

namespace vigil::sentry {

class ActingAs {
 public:
  // `in_user_namespace`: the workload's capabilities are its user
  // namespace's, worth nothing on the host's files; none are kept then.
  static Result<ActingAs> Begin(const ThreadStatus& thread, bool in_user_namespace);
  // The sentry's own identity without CAP_NET_ADMIN over a container's
  // network: what a NETLINK_ROUTE socket opened now remembers as its
  // opener (file->f_cred), so that rtnetlink refuses every change sent on
  // it. `over_user_namespace`: the container's network belongs to a user
  // namespace the sentry's euid owns, and the owner of a user namespace
  // holds every capability in it whatever its effective set
  // (user_namespaces(7)), so the euid is an outsider's for the call too
  // (needs CAP_SETUID).
  static Result<ActingAs> WithoutNetworkAdmin(bool over_user_namespace);
  // The workload's standing for a bind of an IP or netlink socket made by
  // the sentry: there the kernel checks nothing of the caller but two
  // capabilities over the socket's network namespace, CAP_NET_BIND_SERVICE
  // (a port below its ip_unprivileged_port_start) and CAP_NET_ADMIN
  // (rtnetlink's multicast-routing groups). The effective set is those of
  // the two the thread holds — none when `capabilities_count` is false (a
  // workload's capabilities in a user namespace are worth nothing in a
  // network namespace it shares with the host). `over_user_namespace`: the
  // euid is an outsider's, as for WithoutNetworkAdmin, or the sentry would
  // own the namespace and hold them all.
  static Result<ActingAs> ForBind(const ThreadStatus& thread, bool over_user_namespace,
                                  bool capabilities_count);
  ActingAs(ActingAs&& other) noexcept;
  ActingAs& operator=(ActingAs&&) = delete;
  ~ActingAs();

 private:
  ActingAs() = default;
  // The sentry's own ids, effective set (its own & `keep`) | (its permitted
  // & `take`), and with `outsider_euid` the overflow uid as euid.
  static Result<ActingAs> WithEffective(std::uint64_t keep, std::uint64_t take, bool outsider_euid);
  bool active_ = false;
  // What differed from the supervisor's own and was changed (the rest is
  // left alone: each change is a syscall and a new credentials struct).
  bool umask_changed_ = false;
  bool groups_changed_ = false;
  bool ids_changed_ = false;
  bool caps_changed_ = false;
  bool euid_changed_ = false;
};

}  // namespace vigil::sentry
