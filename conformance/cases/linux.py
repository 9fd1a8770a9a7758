"""config.json `linux`: namespaces (new, absent, joined by path), user
namespace mappings, hostname/domainname, sysctl, devices, personality,
seccomp."""

import json
import os

from harness import case, host_ns, register
from seccomp_agent import Agent

NS_FILES = {"pid": "pid", "network": "net", "ipc": "ipc", "uts": "uts", "mount": "mnt",
            "cgroup": "cgroup", "user": "user"}


# -- namespaces ---------------------------------------------------------------

def new_ns_case(t):
    def fn(c):
        if t == "user":
            user_mappings(c)
        c.set_namespace(t)
        f = NS_FILES[t]
        got = c.probe()["ns"][f]
        c.expect(got != host_ns(f), "%s namespace is the host's (%d)" % (t, got))
    return fn


def host_ns_case(t):
    def fn(c):
        c.remove_namespace(t)
        if t == "uts":
            c.config.pop("hostname", None)
        f = NS_FILES[t]
        c.eq(c.probe()["ns"][f], host_ns(f), "%s namespace (the host's)" % t)
    return fn


for _t in NS_FILES:
    register("linux.namespaces.%s.new" % _t, new_ns_case(_t))
for _t in ("pid", "network", "ipc", "uts", "cgroup"):
    register("linux.namespaces.%s.absent-shares-host" % _t, host_ns_case(_t))


def join_ns_case(t, flag):
    def fn(c):
        holder = c.spawn_host(["unshare", flag, "sleep", "600"])
        f = NS_FILES[t]
        path = "/proc/%d/ns/%s" % (holder.pid, f)
        want = c.wait_for(lambda: os.stat(path).st_ino != host_ns(f) and os.stat(path).st_ino,
                          "the holder's namespace")
        c.set_namespace(t, path)
        if t == "uts":
            c.config.pop("hostname", None)
        c.eq(c.probe()["ns"][f], want, "%s namespace (the holder's)" % t)
    return fn


for _t, _flag in [("network", "--net"), ("ipc", "--ipc"), ("uts", "--uts")]:
    register("linux.namespaces.%s.path" % _t, join_ns_case(_t, _flag))


@case("linux.namespaces.path-missing-fails")
def _(c):
    c.set_namespace("network", "/proc/999999999/ns/net")
    r = c.run()
    c.expect(r.rc not in (0, None), "joining a missing namespace path ran: %s" % r)


@case("linux.namespaces.pid.init-is-1")
def _(c):
    p = c.probe()
    c.eq((p["pid"], p["ppid"]), (1, 0), "pid, ppid in a new pid namespace")


@case("linux.namespaces.pid.only-own-processes")
def _(c):
    c.config["mounts"][0]["options"] = []
    p = c.probe("ls", "/proc")
    pids = [e for e in c.check(p)["entries"] if e.isdigit()]
    c.eq(pids, ["1"], "processes visible in /proc")


@case("linux.namespaces.network.loopback-only")
def _(c):
    p = c.probe("ls", "/sys/class/net")
    c.eq(c.check(p).get("entries"), ["lo"], "network interfaces")


def user_mappings(c, host_uid=100000, host_gid=100000):
    c.linux["uidMappings"] = [{"containerID": 0, "hostID": host_uid, "size": 65536}]
    c.linux["gidMappings"] = [{"containerID": 0, "hostID": host_gid, "size": 65536}]
    # The case dir must be reachable by the mapped root.
    os.chmod(c.tmp, 0o755)


@case("linux.uidMappings")
def _(c):
    c.set_namespace("user")
    user_mappings(c, 100000, 200000)
    p = c.probe("read", "/proc/self/uid_map", "read", "/proc/self/gid_map")
    c.eq(c.check(p, 0).get("data", "").split(), ["0", "100000", "65536"], "uid_map")
    c.eq(c.check(p, 1).get("data", "").split(), ["0", "200000", "65536"], "gid_map")
    c.eq(p["uids"], [0] * 4, "uids inside")


@case("linux.uidMappings.host-owner")
def _(c):
    # Files the mapped root creates belong to the host id it maps to.
    c.set_namespace("user")
    user_mappings(c, 100000, 100000)
    c.config["root"]["readonly"] = False
    data = c.host_dir("data")
    os.chmod(data, 0o777)
    os.makedirs(c.rootfs + "/mnt/data")
    c.add_mount("/mnt/data", "bind", data, ["rbind"])
    p = c.probe("create", "/mnt/data/f")
    c.expect(c.check(p)["ok"], "create: %s" % c.check(p))
    st = os.stat(data + "/f")
    c.eq((st.st_uid, st.st_gid), (100000, 100000), "host owner of the file")


# -- UTS ----------------------------------------------------------------------

@case("hostname")
def _(c):
    c.config["hostname"] = "a-host.name"
    c.eq(c.probe()["hostname"], "a-host.name", "hostname")


@case("hostname.without-uts-fails")
def _(c):
    c.remove_namespace("uts")
    r = c.run()
    c.expect(r.rc not in (0, None), "hostname without a UTS namespace ran: %s" % r)


@case("domainname")
def _(c):
    c.config["domainname"] = "example.org"
    c.eq(c.probe()["domainname"], "example.org", "domainname")


# -- sysctl -------------------------------------------------------------------

@case("linux.sysctl.net")
def _(c):
    c.linux["sysctl"] = {"net.ipv4.ip_forward": "1"}
    p = c.probe("read", "/proc/sys/net/ipv4/ip_forward")
    c.eq(c.check(p).get("data"), "1\n", "net.ipv4.ip_forward")


@case("linux.sysctl.ipc")
def _(c):
    c.linux["sysctl"] = {"kernel.msgmax": "4096", "kernel.shmmni": "1000"}
    p = c.probe("read", "/proc/sys/kernel/msgmax", "read", "/proc/sys/kernel/shmmni")
    c.eq(c.check(p, 0).get("data"), "4096\n", "kernel.msgmax")
    c.eq(c.check(p, 1).get("data"), "1000\n", "kernel.shmmni")


@case("linux.sysctl.slash-separated")
def _(c):
    c.linux["sysctl"] = {"net/ipv4/ip_forward": "1"}
    p = c.probe("read", "/proc/sys/net/ipv4/ip_forward")
    c.eq(c.check(p).get("data"), "1\n", "net.ipv4.ip_forward")


@case("linux.sysctl.net-without-netns-fails")
def _(c):
    c.remove_namespace("network")
    c.linux["sysctl"] = {"net.ipv4.ip_forward": "1"}
    r = c.run()
    c.expect(r.rc not in (0, None), "a net sysctl in the host's network namespace ran: %s" % r)


@case("linux.sysctl.not-namespaced-fails")
def _(c):
    c.linux["sysctl"] = {"vm.swappiness": "10"}
    r = c.run()
    c.expect(r.rc not in (0, None), "a host-wide sysctl ran: %s" % r)


# -- devices ------------------------------------------------------------------

def default_device_case(path, major, minor):
    def fn(c):
        st = c.check(c.probe("stat", path))
        c.eq((st.get("type"), st.get("major"), st.get("minor"), st.get("mode")),
             ("char", major, minor, 0o666), path + " (type, major, minor, mode)")
    return fn


for _p, _maj, _min in [("/dev/null", 1, 3), ("/dev/zero", 1, 5), ("/dev/full", 1, 7),
                       ("/dev/random", 1, 8), ("/dev/urandom", 1, 9), ("/dev/tty", 5, 0)]:
    register("linux.devices.default" + _p.replace("/dev/", "."),
             default_device_case(_p, _maj, _min))


@case("linux.devices.default.usable")
def _(c):
    p = c.probe("openw", "/dev/null", "read", "/dev/zero")
    c.expect(c.check(p, 0)["ok"], "open /dev/null for write: %s" % c.check(p, 0))
    c.eq(c.check(p, 1).get("data", "")[:4], "\0" * 4, "bytes from /dev/zero")


@case("linux.devices.default.links")
def _(c):
    p = c.probe("stat", "/dev/fd", "stat", "/dev/stdin", "stat", "/dev/stdout",
                "stat", "/dev/stderr", "stat", "/dev/ptmx")
    for i, path in enumerate(["/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"]):
        c.eq(c.check(p, i).get("type"), "symlink", path)
    c.expect(c.check(p, 4)["ok"], "no /dev/ptmx")


@case("linux.devices.default.no-host-devices")
def _(c):
    entries = set(c.check(c.probe("ls", "/dev"))["entries"])
    extra = entries - {"null", "zero", "full", "random", "urandom", "tty", "fd", "stdin",
                       "stdout", "stderr", "ptmx", "pts", "shm", "mqueue", "console", "core"}
    c.eq(extra, set(), "unexpected entries in /dev")


def fuse_device(c, allow, mode=0o640, uid=12, gid=34):
    c.linux["devices"] = [{"type": "c", "path": "/dev/mynull", "major": 1, "minor": 3,
                           "fileMode": mode, "uid": uid, "gid": gid}]
    if allow:
        c.linux["resources"]["devices"].append(
            {"allow": True, "type": "c", "major": 1, "minor": 3, "access": "rwm"})


@case("linux.devices.node")
def _(c):
    fuse_device(c, True)
    st = c.check(c.probe("stat", "/dev/mynull"))
    c.eq((st.get("type"), st.get("major"), st.get("minor")), ("char", 1, 3),
         "type, major, minor")


@case("linux.devices.fileMode")
def _(c):
    fuse_device(c, True)
    c.eq(c.check(c.probe("stat", "/dev/mynull")).get("mode"), 0o640, "mode")


@case("linux.devices.owner")
def _(c):
    fuse_device(c, True)
    st = c.check(c.probe("stat", "/dev/mynull"))
    c.eq((st.get("uid"), st.get("gid")), (12, 34), "uid, gid")


@case("linux.devices.fifo")
def _(c):
    c.linux["devices"] = [{"type": "p", "path": "/dev/myfifo", "fileMode": 0o600}]
    c.eq(c.check(c.probe("stat", "/dev/myfifo")).get("type"), "fifo", "type")


@case("linux.resources.devices.allowed")
def _(c):
    # 240 is a major for local use, without a driver here: opening it gets
    # ENXIO past the cgroup, EPERM if the cgroup refuses.
    c.linux["devices"] = [{"type": "c", "path": "/dev/local", "major": 240, "minor": 0,
                           "fileMode": 0o666, "uid": 0, "gid": 0}]
    c.linux["resources"]["devices"].append(
        {"allow": True, "type": "c", "major": 240, "minor": 0, "access": "rwm"})
    p = c.probe("openw", "/dev/local")
    c.expect(c.check(p)["errno"] in (6, 19), "open of an allowed device without a driver: %s"
             % c.check(p))


@case("linux.resources.devices.denied")
def _(c):
    # A node the image brings along, not listed anywhere: the cgroup denies it.
    os.mknod(c.rootfs + "/local", 0o20666, os.makedev(240, 0))
    p = c.probe("openw", "/local")
    c.eq(c.check(p)["errno"], 1, "errno of opening a device the cgroup denies (EPERM)")


# -- personality --------------------------------------------------------------

@case("linux.personality.LINUX32")
def _(c):
    c.linux["personality"] = {"domain": "LINUX32"}
    p = c.probe()
    c.eq(p["machine"], "i686", "uname machine")
    c.eq(p["personality"] & 0xff, 0x0008, "personality (PER_LINUX32)")


@case("linux.personality.LINUX")
def _(c):
    c.linux["personality"] = {"domain": "LINUX"}
    p = c.probe()
    c.eq(p["machine"], "x86_64", "uname machine")
    c.eq(p["personality"] & 0xff, 0, "personality (PER_LINUX)")


# -- seccomp ------------------------------------------------------------------

def seccomp(c, rules, default="SCMP_ACT_ALLOW"):
    c.linux["seccomp"] = {"defaultAction": default, "architectures": ["SCMP_ARCH_X86_64"],
                          "syscalls": rules}


@case("linux.seccomp.errno")
def _(c):
    seccomp(c, [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}])
    c.config["root"]["readonly"] = False
    p = c.probe("mkdir", "/tmp/d")
    c.eq(c.check(p)["errno"], 1, "errno of a blocked mkdir (SCMP_ACT_ERRNO default EPERM)")


@case("linux.seccomp.errnoRet")
def _(c):
    seccomp(c, [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}])
    c.config["root"]["readonly"] = False
    p = c.probe("mkdir", "/tmp/d")
    c.eq(c.check(p)["errno"], 38, "errno of a blocked mkdir (errnoRet 38)")


@case("linux.seccomp.status")
def _(c):
    seccomp(c, [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}])
    p = c.probe()
    c.eq(p["seccomp_mode"], 2, "Seccomp (2 = filter)")
    c.expect(p["seccomp_filters"] >= 1, "no filter installed")


@case("linux.seccomp.args")
def _(c):
    seccomp(c, [{"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 22,
                 "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]}])
    p = c.probe("personality", "8", "personality", "0xffffffff")
    c.eq(c.check(p, 0)["errno"], 22, "personality(8) matching the rule")
    c.expect(c.check(p, 1)["ok"], "personality(0xffffffff) outside the rule: %s"
             % c.check(p, 1))


@case("linux.seccomp.args.masked-eq")
def _(c):
    seccomp(c, [{"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 22,
                 "args": [{"index": 0, "value": 0xff, "valueTwo": 8,
                           "op": "SCMP_CMP_MASKED_EQ"}]}])
    p = c.probe("personality", "0x10008", "personality", "0xffffffff")
    c.eq(c.check(p, 0)["errno"], 22, "personality(0x10008), low byte 8")
    c.expect(c.check(p, 1)["ok"], "personality(0xffffffff): %s" % c.check(p, 1))


def host_syscall_names():
    """Every x86_64 syscall the host's kernel headers name."""
    names = []
    with open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "#define" and parts[1].startswith("__NR_"):
                names.append(parts[1][len("__NR_"):])
    return names


@case("linux.seccomp.enosys-for-newer-syscalls")
def _(c):
    # A syscall numbered above every one the profile names is newer than
    # the profile: ENOSYS (so callers fall back), not the default errno.
    try:
        allowed = [n for n in host_syscall_names() if n != "getppid"]
    except OSError:
        c.skip("no kernel headers (linux-libc-dev) to list the syscalls from")
    seccomp(c, [{"names": allowed, "action": "SCMP_ACT_ALLOW"}], default="SCMP_ACT_ERRNO")
    p = c.probe("syscall", "1000", "getppid", "0")
    c.eq(c.check(p, 0).get("errno"), 38, "errno of syscall 1000 (ENOSYS)")
    c.eq(c.check(p, 1).get("errno"), 1, "errno of getppid, which no rule names (EPERM)")


# -- seccomp agents (linux.seccomp.listenerPath) ------------------------------

ENOMEDIUM = 123


def seccomp_agent(c, names, metadata="conformance"):
    """An agent refusing `names` with ENOMEDIUM, and a profile that hands
    them to it."""
    agent = Agent(c.path("scratch", "agent.sock"), refuse=names)
    c.cleanups.append(agent.stop)
    seccomp(c, [{"names": names, "action": "SCMP_ACT_NOTIFY"}])
    c.linux["seccomp"]["listenerPath"] = agent.path
    c.linux["seccomp"]["listenerMetadata"] = metadata
    c.config["root"]["readonly"] = False
    return agent


def check_agent_state(c, agent, index, cid, status):
    c.expect(not agent.errors, "agent: %s" % agent.errors)
    c.expect(len(agent.states) > index, "the agent got %d listeners" % len(agent.states))
    got = agent.states[index]
    c.eq(agent.fds_received[index], 1, "descriptors sent with the state")
    c.eq(got.get("fds"), ["seccompFd"], "containerProcessState.fds")
    c.eq(got.get("metadata"), "conformance", "containerProcessState.metadata")
    c.expect(isinstance(got.get("pid"), int) and got["pid"] > 0, "pid: %r" % got.get("pid"))
    state = got.get("state", {})
    c.eq(state.get("id"), cid, "containerProcessState.state.id")
    c.eq(state.get("status"), status, "containerProcessState.state.status")


@case("linux.seccomp.notify.agent-answers")
def _(c):
    agent = seccomp_agent(c, ["mkdir", "mkdirat"])
    c.probe_args("mkdir", "/tmp/d")
    cid = c.new_id()
    r = c.run(cid)
    c.expect(r.ok, "run: %s" % r)
    c.eq(c.check(c.parse_probe(r.out, r))["errno"], ENOMEDIUM, "errno the agent answered")
    check_agent_state(c, agent, 0, cid, "creating")
    c.expect(agent.answered, "the agent answered no mkdir")


@case("linux.seccomp.notify.exec-reaches-agent")
def _(c):
    agent = seccomp_agent(c, ["mkdir", "mkdirat"])
    c.sleeper()
    cid = c.create_start()
    r = c.rt("exec", cid, "/probe", "mkdir", "/tmp/e")
    c.expect(r.ok, "exec: %s" % r)
    c.eq(c.check(c.parse_probe(r.out, r))["errno"], ENOMEDIUM, "errno the agent answered")
    check_agent_state(c, agent, 1, cid, "running")


@case("linux.seccomp.notify.unlisted-syscalls-run")
def _(c):
    seccomp_agent(c, ["chmod", "fchmodat"])
    p = c.probe("mkdir", "/tmp/d")
    c.expect(c.check(p)["ok"], "mkdir, not handed to the agent: %s" % c.check(p))


# The listener is the agent's: the workload gets none of its own, which
# could answer its syscalls before anything else saw them (the kernel allows
# one listener per filter stack; vigil's sentry also refuses new ones).
@case("linux.seccomp.notify.workload-gets-no-listener")
def _(c):
    seccomp_agent(c, ["chmod", "fchmodat"])
    p = c.probe("seccomp-listener", "0")
    c.expect(not c.check(p)["ok"], "the workload made a listener: %s" % c.check(p))


def notify_create_fails(syscall, listener, words):
    """create with `syscall` handed to an agent at `listener` (in the case's
    scratch directory) fails, saying `words`, and leaves nothing."""
    def fn(c):
        seccomp(c, [{"names": [syscall], "action": "SCMP_ACT_NOTIFY"}])
        c.linux["seccomp"]["listenerPath"] = c.path("scratch", listener)
        r = c.create(expect_ok=False)
        c.expect(not r.ok, "create succeeded: %s" % r)
        c.expect(words in r.err, "the error should say %r: %s" % (words, r.err))
        c.eq(c.status(c.ids[-1]), None, "status after the failed create")
        c.wait_for(lambda: not c.container_pids(), "the container's processes to go")
    return fn


register("linux.seccomp.notify.no-agent-fails-create",
         notify_create_fails("mkdir", "nobody-listens.sock",
                             "failed to connect with seccomp agent"))
# runc's words for it.
register("linux.seccomp.notify.write-refused",
         notify_create_fails("write", "agent.sock",
                             "SCMP_ACT_NOTIFY cannot be used for the write syscall"))


def seccomp_kill_case(action, want):
    def fn(c):
        c.remove_namespace("pid")
        seccomp(c, [{"names": ["getppid"], "action": action}])
        c.probe_args("getppid", "0")
        r = c.run()
        c.eq(r.rc, want, "exit status of run after getppid under %s" % action)
    return fn


register("linux.seccomp.kill", seccomp_kill_case("SCMP_ACT_KILL", 128 + 31))
register("linux.seccomp.kill-process", seccomp_kill_case("SCMP_ACT_KILL_PROCESS", 128 + 31))
register("linux.seccomp.trap", seccomp_kill_case("SCMP_ACT_TRAP", 128 + 31))


@case("linux.seccomp.log-allows")
def _(c):
    seccomp(c, [{"names": ["getppid"], "action": "SCMP_ACT_LOG"}])
    p = c.probe("getppid", "0")
    c.expect(c.check(p)["ok"], "getppid under SCMP_ACT_LOG: %s" % c.check(p))


@case("linux.seccomp.unknown-syscall-ignored")
def _(c):
    seccomp(c, [{"names": ["no_such_syscall", "mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}])
    p = c.probe("mkdir", "/tmp/d")
    c.eq(c.check(p)["errno"], 1, "errno of mkdir")


@case("linux.seccomp.without-nnp")
def _(c):
    c.process["noNewPrivileges"] = False
    seccomp(c, [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}])
    p = c.probe("mkdir", "/tmp/d")
    c.eq(c.check(p)["errno"], 1, "errno of mkdir")
    c.eq(p["no_new_privs"], 0, "NNP")


# An allow-list that grants what a static busybox needs, and what runc 1.1
# still does after loading the profile (close its log pipe, mark its
# descriptors close-on-exec through /proc/self/fd), but nothing else a
# runtime might want then (close_range, seccomp, send and receive, the user
# switch). Such lists predate close_range (2020).
MINIMAL_SYSCALLS = ["execve", "arch_prctl", "set_tid_address", "set_robust_list", "rseq",
                    "brk", "mmap", "munmap", "mprotect", "read", "write", "writev", "exit",
                    "exit_group", "getuid", "geteuid", "getgid", "getegid", "getpid",
                    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "ioctl", "fstat",
                    "newfstatat", "readlink", "getrandom", "prlimit64", "futex",
                    "nanosleep", "sched_yield", "tgkill", "gettid", "close", "openat",
                    "getdents64", "fcntl", "fstatfs"]


def echo_under_allow_list(c, syscalls):
    seccomp(c, [{"names": syscalls, "action": "SCMP_ACT_ALLOW"}], default="SCMP_ACT_ERRNO")
    c.set_args("/bin/echo", "minimal")
    r = c.run()
    c.eq(r.rc, 0, "exit status of run under a minimal allow-list (%s)" % r)
    c.expect("minimal" in r.out, "no output: %s" % r)


@case("linux.seccomp.minimal-allow-list")
def _(c):
    echo_under_allow_list(c, MINIMAL_SYSCALLS)


# Without no_new_privs the profile comes before the user switch, which it
# must then allow too (runc's order; runc also enters and checks
# process.cwd, looks at its parent and checks the executable then).
@case("linux.seccomp.minimal-allow-list-without-nnp")
def _(c):
    c.process["noNewPrivileges"] = False
    c.process["user"] = {"uid": 1000, "gid": 1000, "additionalGids": [1001]}
    switch = ["capget", "capset", "prctl", "setgroups", "setresuid", "setresgid", "setuid",
              "setgid", "chdir", "getcwd", "getppid", "faccessat2"]
    echo_under_allow_list(c, MINIMAL_SYSCALLS + switch)


@case("linux.seccomp.absent")
def _(c):
    p = c.probe()
    c.eq(p["seccomp_mode"], 0, "Seccomp without linux.seccomp")


@case("linux.seccomp.unknown-action-fails")
def _(c):
    seccomp(c, [{"names": ["mkdir"], "action": "SCMP_ACT_NO_SUCH"}])
    r = c.run()
    c.expect(r.rc not in (0, None), "an unknown seccomp action ran: %s" % r)


@case("linux.namespaces.time.new")
def _(c):
    c.set_namespace("time")
    c.linux["timeOffsets"] = {"monotonic": {"secs": 86400, "nanosecs": 0}}
    p = c.probe("read", "/proc/self/timens_offsets")
    c.expect(p["ns"]["time"] != host_ns("time"), "time namespace is the host's")
    lines = {l.split()[0]: l.split()[1:] for l in c.check(p).get("data", "").splitlines()}
    c.eq(lines.get("monotonic"), ["86400", "0"], "monotonic offset")
