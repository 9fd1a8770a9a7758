// The sentry acting with a workload thread's credentials (docs/design.md
// rule 6): for as long as an ActingAs lives, the supervisor's filesystem
// uid and gid, supplementary groups, effective capabilities and umask are
// the thread's, so the kernel checks permissions as it would for the
// workload. Handlers run on the supervisor's loop thread, and these are that
// thread's own credentials (changed with raw system calls, which glibc's
// wrappers would broadcast to every thread; the audit writer's keep the
// supervisor's).
//
// Credentials are given back lazily: changing them costs a new credentials
// struct per call (capset, setgroups, setfsuid), and the next mediated call
// is almost always the same workload's, so when an ActingAs from Begin ends
// the thread keeps the workload's ids, groups and capabilities (never its
// umask, which the process shares with its other threads) until something
// asks for the sentry's own with AsSentry. Holding them is never more than
// the sentry's own privilege (Begin takes only capabilities the sentry has),
// so an act that forgot to ask fails closed; but whatever the sentry does as
// itself asks first (ptrace, setns, signals, files of its own), or, where
// the answer is the same whoever gets it (another process's /proc files,
// pidfd_getfd), tries the held ones first (AsHeldThenAsSentry). The event
// loop asks before everything but a listener's notifications, and when it
// returns (EventLoop::SetPrologue).
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
  // One at a time: a second while one lives is refused.
  static Result<ActingAs> Begin(const ThreadStatus& thread, bool in_user_namespace);
  // The sentry's own identity without CAP_NET_ADMIN over a container's
  // network: what a NETLINK_ROUTE socket opened now remembers as its
  // opener (file->f_cred), so that rtnetlink refuses every change sent on
  // it. `over_user_namespace`: the container's network belongs to a user
  // namespace the sentry's euid owns, and the owner of a user namespace
  // holds every capability in it whatever its effective set
  // (user_namespaces(7)), so the euid is an outsider's for the call too
  // (needs CAP_SETUID). Given back as soon as it ends.
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
  // own the namespace and hold them all. Given back as soon as it ends.
  static Result<ActingAs> ForBind(const ThreadStatus& thread, bool over_user_namespace,
                                  bool capabilities_count);
  // The thread's whole identity, as the peer of a unix socket learns it
  // from whoever connects or sends: Begin's, and the real and effective
  // uid and gid as well. The kernel gives a connecting socket's peer the
  // caller's euid and egid (SO_PEERCRED) and a receiver with SO_PASSCRED
  // the sender's real ids (SCM_CREDENTIALS); with the sentry's own, a
  // workload would pass for root to a server that trusts them. The pid a
  // connecting socket's peer learns stays the supervisor's, outside the
  // container's pid namespace, where it reads 0; a message carries the
  // thread's (AddSenderCredentials), which `vouch_for_pid` lets the kernel
  // take: it asks CAP_SYS_ADMIN of a sender claiming a pid not its own, and
  // the sentry claims only the thread's, checked by TranslateControl. Given
  // back as soon as it ends.
  static Result<ActingAs> AsPeer(const ThreadStatus& thread, bool in_user_namespace,
                                 bool vouch_for_pid = false);

  // The sentry's own credentials back on the loop thread, for an act of its
  // own. Refused while an ActingAs lives (its owner means to act as the
  // workload). A failure to restore ends the supervisor (exit 125): it must
  // not go on with a workload's identity.
  static Result<void> AsSentry();
  // The same where a refusal can only be a bug: it ends the supervisor.
  static void AsSentryOrExit();

  // For an act of the sentry's own that the kernel checks like a ptrace
  // access and that gets the same answer whoever makes it (another
  // process's /proc files and links, pidfd_getfd): made with whatever this
  // thread holds, and only when that is refused (EPERM, EACCES) once more
  // as the sentry. What it holds never exceeds the sentry's own, so this
  // changes nothing but how often credentials are given back: a container
  // running as root can be read with its own.
  template <typename Act>
  static auto AsHeldThenAsSentry(const Act& act) -> decltype(act()) {
    auto done = act();
    if (done || !HoldsWorkloadCredentials() ||
        (done.error().code != EPERM && done.error().code != EACCES)) {
      return done;
    }
    if (Result<void> own = AsSentry(); !own) return tl::unexpected(own.error());
    return act();
  }

  ActingAs(ActingAs&& other) noexcept;
  ActingAs& operator=(ActingAs&&) = delete;
  ~ActingAs();

 private:
  ActingAs() = default;
  // Live, from the sentry's own identity, giving everything back when it
  // ends (WithEffective, AsPeer).
  static Result<ActingAs> FromOwn();
  // The thread's umask for as long as this lives (the process shares it).
  void TakeUmask(mode_t umask);
  // Whether this thread holds credentials other than its own.
  static bool HoldsWorkloadCredentials();
  // The sentry's own ids, effective set (its own & `keep`) | (its permitted
  // & `take`), and with `outsider_euid` the overflow uid as euid.
  static Result<ActingAs> WithEffective(std::uint64_t keep, std::uint64_t take, bool outsider_euid);
  bool active_ = false;
  bool umask_changed_ = false;
  // WithEffective's and AsPeer's: everything is given back when it ends.
  bool restore_on_end_ = false;
  bool euid_changed_ = false;
  bool real_ids_changed_ = false;  // AsPeer's: real and effective uid and gid
  bool groups_changed_ = false;    // AsPeer's: the supplementary groups
};

}  // namespace vigil::sentry
