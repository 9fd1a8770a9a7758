"""config.json `process`: args, env, cwd, user, capabilities, rlimits,
noNewPrivileges, oomScoreAdj, terminal, exit status."""

from harness import (CAPS, DEFAULT_CAPS, case, cap_names, host_rlimit, register)


@case("process.args")
def _(c):
    p = c.probe("read", "/proc/self/comm", "getppid", "x y")
    c.eq(p["argv"], ["/probe", "read", "/proc/self/comm", "getppid", "x y"], "argv")


@case("process.args.path-lookup")
def _(c):
    # A bare args[0] is looked up in the container's PATH.
    c.process["env"][0] = "PATH=/bin:/"
    c.process["args"] = ["probe"]
    p = c.probe()
    c.eq(p["argv"][0], "probe", "argv[0]")


@case("process.args.missing-executable")
def _(c):
    c.process["args"] = ["/no/such/program"]
    r = c.run()
    c.expect(r.rc not in (0, None), "run of a missing executable succeeded: %s" % r)


@case("process.args.empty")
def _(c):
    c.process["args"] = []
    r = c.run()
    c.expect(r.rc not in (0, None), "run with empty args succeeded: %s" % r)


@case("process.env")
def _(c):
    # HOME is set so that a runtime adding a default HOME changes nothing.
    c.process["env"] += ["HOME=/home/x", "FOO=bar", "EMPTY=", "SPACES=a b  c", "EQUALS=x=y=z"]
    p = c.probe()
    c.eq(p["env"], c.process["env"], "environment")


@case("process.cwd")
def _(c):
    c.process["cwd"] = "/tmp"
    c.eq(c.probe()["cwd"], "/tmp", "cwd")


@case("process.cwd.through-symlink")
def _(c):
    import os
    os.symlink("/tmp", c.rootfs + "/tmplink")
    c.process["cwd"] = "/tmplink"
    c.eq(c.probe()["cwd"], "/tmp", "cwd")


@case("process.cwd.created")
def _(c):
    c.config["root"]["readonly"] = False
    c.process["cwd"] = "/work/deep/er"
    c.eq(c.probe()["cwd"], "/work/deep/er", "cwd")


@case("process.user.uid")
def _(c):
    c.process["user"] = {"uid": 1000, "gid": 0}
    c.eq(c.probe()["uids"], [1000] * 4, "real, effective, saved, fs uid")


@case("process.user.gid")
def _(c):
    c.process["user"] = {"uid": 1000, "gid": 1001}
    c.eq(c.probe()["gids"], [1001] * 4, "real, effective, saved, fs gid")


@case("process.user.additionalGids")
def _(c):
    c.process["user"] = {"uid": 1000, "gid": 1001, "additionalGids": [10, 20, 30]}
    c.eq(sorted(c.probe()["groups"]), [10, 20, 30], "supplementary groups")


@case("process.user.no-additionalGids")
def _(c):
    c.process["user"] = {"uid": 1000, "gid": 1001}
    c.eq(c.probe()["groups"], [], "supplementary groups")


@case("process.user.umask")
def _(c):
    c.process["user"]["umask"] = 0o027
    c.config["root"]["readonly"] = False
    p = c.probe("create", "/tmp/f")
    c.eq(p["umask"], 0o027, "umask")
    c.eq(c.check(p)["mode"], 0o640, "mode of a file created 0644")


@case("process.user.umask.default")
def _(c):
    c.eq(c.probe()["umask"], 0o022, "umask")


@case("process.user.nonroot-cannot-write-root-owned")
def _(c):
    c.config["root"]["readonly"] = False
    c.process["user"] = {"uid": 1000, "gid": 1000}
    p = c.probe("create", "/etc/x")
    c.eq(c.check(p)["errno"], 13, "errno of creating /etc/x as uid 1000 (EACCES)")


# -- capabilities -------------------------------------------------------------

def caps_of(p):
    return {k: cap_names(v) for k, v in p["caps"].items()}


@case("process.capabilities.default")
def _(c):
    got = caps_of(c.probe())
    want = sorted(DEFAULT_CAPS)
    for s in ("bounding", "effective", "permitted"):
        c.eq(got[s], want, s)
    c.eq(got["inheritable"], [], "inheritable")
    c.eq(got["ambient"], [], "ambient")


def capability_set_case(which):
    def fn(c):
        caps = c.process["capabilities"]
        chosen = ["CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT"]
        caps["bounding"] = list(chosen)
        caps["permitted"] = list(chosen)
        caps["effective"] = list(chosen)
        caps["inheritable"] = []
        caps["ambient"] = []
        narrowed = ["CAP_KILL", "CAP_SYS_CHROOT"]
        if which == "ambient":
            caps["inheritable"] = list(narrowed)
        caps[which] = list(narrowed)
        if which in ("bounding", "permitted"):
            # permitted/effective outside bounding are dropped by the kernel
            # or refused; keep them inside.
            caps["permitted"] = list(narrowed)
            caps["effective"] = list(narrowed)
        got = caps_of(c.probe())
        c.eq(got[which], sorted(narrowed), which)
        if which not in ("bounding",):
            c.eq(got["bounding"], sorted(chosen), "bounding")
    return fn


# effective is not narrowed on its own here: for uid 0 execve makes the
# effective set equal to the permitted set, whatever the runtime did.
for _which in ("bounding", "permitted", "inheritable", "ambient"):
    register("process.capabilities." + _which, capability_set_case(_which))


@case("process.capabilities.empty")
def _(c):
    c.process["capabilities"] = {k: [] for k in
                                 ("bounding", "effective", "permitted", "inheritable", "ambient")}
    p = c.probe()
    for s, v in p["caps"].items():
        c.eq(cap_names(v), [], s)


@case("process.capabilities.all-host")
def _(c):
    import harness
    with open("/proc/self/status") as f:
        bnd = int([l for l in f if l.startswith("CapBnd:")][0].split()[1], 16)
    host = cap_names(bnd)
    c.process["capabilities"] = {k: list(host) for k in ("bounding", "effective", "permitted")}
    got = caps_of(c.probe())
    for s in ("bounding", "effective", "permitted"):
        c.eq(got[s], host, s)


@case("process.capabilities.effective-root-is-permitted")
def _(c):
    caps = c.process["capabilities"]
    caps["effective"] = ["CAP_KILL"]
    got = caps_of(c.probe())
    c.eq(got["effective"], sorted(DEFAULT_CAPS), "effective of uid 0 after execve (= permitted)")


@case("process.capabilities.nonroot-without-ambient")
def _(c):
    # execve as uid 1000 without ambient capabilities clears permitted and
    # effective; the bounding set stays the config's.
    c.process["user"] = {"uid": 1000, "gid": 1000}
    got = caps_of(c.probe())
    c.eq(got["effective"], [], "effective of uid 1000")
    c.eq(got["permitted"], [], "permitted of uid 1000")
    c.eq(got["bounding"], sorted(DEFAULT_CAPS), "bounding of uid 1000")


@case("process.capabilities.nonroot-ambient")
def _(c):
    c.process["user"] = {"uid": 1000, "gid": 1000}
    caps = c.process["capabilities"]
    caps["inheritable"] = ["CAP_KILL"]
    caps["ambient"] = ["CAP_KILL"]
    got = caps_of(c.probe())
    c.eq(got["ambient"], ["CAP_KILL"], "ambient")
    c.expect("CAP_KILL" in got["effective"], "CAP_KILL not effective: %s" % got["effective"])


@case("process.capabilities.sys_chroot-denied")
def _(c):
    p = c.probe("chroot", "/tmp")
    c.eq(c.check(p)["errno"], 1, "errno of chroot without CAP_SYS_CHROOT (EPERM)")


@case("process.capabilities.sys_chroot-granted")
def _(c):
    for s in ("bounding", "effective", "permitted"):
        c.process["capabilities"][s].append("CAP_SYS_CHROOT")
    p = c.probe("chroot", "/tmp")
    c.expect(c.check(p)["ok"], "chroot with CAP_SYS_CHROOT failed: %s" % c.check(p))


@case("process.capabilities.sethostname-denied")
def _(c):
    p = c.probe("sethostname", "other")
    c.eq(c.check(p)["errno"], 1, "errno of sethostname without CAP_SYS_ADMIN (EPERM)")
    c.eq(p["hostname"], "conformance", "hostname")


@case("process.capabilities.unknown-name")
def _(c):
    # Spec: unknown capabilities must be ignored or an error.
    c.process["capabilities"]["bounding"].append("CAP_NO_SUCH_THING")
    r = c.run()
    if r.ok:
        c.eq(caps_of(c.parse_probe(r.out))["bounding"], sorted(DEFAULT_CAPS), "bounding")


# -- rlimits ------------------------------------------------------------------

RLIMIT_VALUES = {
    "RLIMIT_AS": (1 << 40, 1 << 41),
    "RLIMIT_CORE": (0, 4096),
    "RLIMIT_CPU": (3600, 7200),
    "RLIMIT_DATA": (1 << 40, 1 << 41),
    "RLIMIT_FSIZE": (1 << 30, 1 << 31),
    "RLIMIT_LOCKS": (100, 200),
    "RLIMIT_MEMLOCK": (4096, 8192),
    "RLIMIT_MSGQUEUE": (8192, 16384),
    "RLIMIT_NICE": (0, 0),
    "RLIMIT_NOFILE": (512, 2048),
    "RLIMIT_NPROC": (1000, 2000),
    "RLIMIT_RSS": (1 << 30, 1 << 31),
    "RLIMIT_RTPRIO": (0, 0),
    "RLIMIT_RTTIME": (1000000, 2000000),
    "RLIMIT_SIGPENDING": (1000, 2000),
    "RLIMIT_STACK": (8 << 20, 16 << 20),
}


def rlimit_case(name, soft, hard):
    def fn(c):
        _, host_hard = host_rlimit(name)
        hard_ = hard if host_hard < 0 else min(hard, host_hard)
        soft_ = min(soft, hard_)
        c.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}]
        if name == "RLIMIT_NOFILE":
            c.process["rlimits"] = []
        c.process["rlimits"].append({"type": name, "hard": hard_, "soft": soft_})
        got = c.probe()["rlimits"][name]
        c.eq((got["soft"], got["hard"]), (soft_, hard_), name + " (soft, hard)")
    return fn


for _name, (_soft, _hard) in RLIMIT_VALUES.items():
    register("process.rlimits." + _name, rlimit_case(_name, _soft, _hard))


@case("process.rlimits.several")
def _(c):
    c.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": 900, "soft": 800},
                            {"type": "RLIMIT_CORE", "hard": 0, "soft": 0},
                            {"type": "RLIMIT_NPROC", "hard": 500, "soft": 400}]
    got = c.probe()["rlimits"]
    for r in c.process["rlimits"]:
        c.eq((got[r["type"]]["soft"], got[r["type"]]["hard"]), (r["soft"], r["hard"]), r["type"])


@case("process.rlimits.hard-above-host-fails")
def _(c):
    _, host_hard = host_rlimit("RLIMIT_NOFILE")
    c.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": host_hard + 1000,
                             "soft": 1024}]
    r = c.run()
    c.expect(r.rc not in (0, None),
             "an rlimit above the host's hard limit (no CAP_SYS_RESOURCE) ran: %s" % r)
    c.expect(c.status(c.ids[-1]) is None, "the failed container is still known")


@case("process.rlimits.unknown-type-fails")
def _(c):
    c.process["rlimits"].append({"type": "RLIMIT_NO_SUCH", "hard": 1, "soft": 1})
    r = c.run()
    c.expect(r.rc not in (0, None), "an unknown rlimit type ran: %s" % r)


# -- privileges and the rest --------------------------------------------------

@case("process.noNewPrivileges.true")
def _(c):
    p = c.probe()
    c.eq(p["no_new_privs"], 1, "PR_GET_NO_NEW_PRIVS")


@case("process.noNewPrivileges.false")
def _(c):
    c.process["noNewPrivileges"] = False
    p = c.probe()
    c.eq(p["no_new_privs"], 0, "PR_GET_NO_NEW_PRIVS")


@case("process.oomScoreAdj")
def _(c):
    c.process["oomScoreAdj"] = 500
    c.eq(c.probe()["oom_score_adj"], "500", "oom_score_adj")


@case("process.oomScoreAdj.max")
def _(c):
    c.process["oomScoreAdj"] = 1000
    c.eq(c.probe()["oom_score_adj"], "1000", "oom_score_adj")


@case("process.oomScoreAdj.absent-inherits")
def _(c):
    with open("/proc/self/oom_score_adj") as f:
        mine = f.read().strip()
    c.eq(c.probe()["oom_score_adj"], mine, "oom_score_adj (the caller's)")


@case("process.terminal.false")
def _(c):
    t = c.probe()["terminal"]
    c.eq((t["stdin"], t["stdout"], t["stderr"]), (False, False, False), "isatty 0, 1, 2")


@case("process.exit-code")
def _(c):
    c.probe_args("exit", "7")
    r = c.run()
    c.eq(r.rc, 7, "exit status of run")


@case("process.exit-signal")
def _(c):
    # Not pid 1 of a pid namespace, which SIGKILL from inside cannot kill.
    c.remove_namespace("pid")
    c.probe_args("raise", "9")
    r = c.run()
    c.eq(r.rc, 137, "exit status of run for a process killed by SIGKILL")


@case("process.scheduler")
def _(c):
    c.process["scheduler"] = {"policy": "SCHED_BATCH", "nice": 5}
    p = c.probe()
    c.eq((p["sched_policy"], p["nice"]), (3, 5), "policy (SCHED_BATCH=3), nice")


@case("process.ioPriority")
def _(c):
    c.process["ioPriority"] = {"class": "IOPRIO_CLASS_IDLE", "priority": 0}
    p = c.probe()
    c.eq(p["ioprio"] >> 13, 3, "I/O priority class (IOPRIO_CLASS_IDLE=3)")
