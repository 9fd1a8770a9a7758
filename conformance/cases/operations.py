"""Operations on a running container: exec, pause/resume, ps, update; and
linux.resources applied at create, read back from the host's cgroup files;
and process.terminal through a console socket."""

import json
import os

from harness import DEFAULT_CAPS, case, cap_names, register, set_window_size


def failed(c, r, what):
    c.expect(r.rc not in (0, None), "%s succeeded: %s" % (what, r))


def running_sleeper(c):
    c.sleeper()
    return c.create_start()


def init_pid(c):
    pids = c.wait_for(c.container_pids, "the container's process")
    return pids[0]


def exec_probe(c, cid, *flags_and_args, rc=0):
    r = c.rt("exec", *flags_and_args)
    if r.rc != rc:
        c.fail("exec: wanted exit %s: %s" % (rc, r))
    return c.parse_probe(r.out, r)


# -- exec ---------------------------------------------------------------------

@case("exec.namespaces")
def _(c):
    cid = running_sleeper(c)
    pid = init_pid(c)
    p = exec_probe(c, cid, cid, "/probe")
    for f in ("mnt", "pid", "net", "ipc", "uts"):
        c.eq(p["ns"][f], os.stat("/proc/%d/ns/%s" % (pid, f)).st_ino, f + " namespace (init's)")


@case("exec.cgroup")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, cid, "/probe")
    c.eq(p["cgroups"].get("memory"), c.cgroups_path, "memory cgroup of the exec'd process")
    c.eq(p["cgroups"].get("pids"), c.cgroups_path, "pids cgroup of the exec'd process")


@case("exec.env")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, "--env", "EXTRA=1", cid, "/probe")
    c.expect("EXTRA=1" in p["env"], "EXTRA=1 not in %s" % p["env"])
    c.expect(c.marker in p["env"], "the config's environment is not inherited")


@case("exec.cwd")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, "--cwd", "/tmp", cid, "/probe")
    c.eq(p["cwd"], "/tmp", "cwd")


@case("exec.user")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, "--user", "1000:1001", cid, "/probe")
    c.eq((p["uids"], p["gids"]), ([1000] * 4, [1001] * 4), "uids, gids")


@case("exec.additional-gids")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, "--user", "1000:1001", "--additional-gids", "10", cid, "/probe")
    c.eq(p["groups"], [10], "supplementary groups")


@case("exec.exit-code")
def _(c):
    cid = running_sleeper(c)
    exec_probe(c, cid, cid, "/probe", "exit", "5", rc=5)


@case("exec.process-json")
def _(c):
    cid = running_sleeper(c)
    proc = {"terminal": False, "user": {"uid": 1000, "gid": 1000}, "args": ["/probe", "x", "y"],
            "env": ["PATH=/bin", "FROM_JSON=1"], "cwd": "/tmp",
            "capabilities": {"bounding": ["CAP_KILL"], "effective": ["CAP_KILL"],
                             "permitted": ["CAP_KILL"]},
            "noNewPrivileges": True}
    path = c.path("process.json")
    c.write(path, json.dumps(proc))
    p = exec_probe(c, cid, "--process", path, cid)
    c.eq(p["argv"], ["/probe", "x", "y"], "argv")
    c.eq(p["env"], ["PATH=/bin", "FROM_JSON=1", "HOME=/"] if "HOME=/" in p["env"]
         else ["PATH=/bin", "FROM_JSON=1"], "env")
    c.eq((p["cwd"], p["uids"][0]), ("/tmp", 1000), "cwd, uid")
    c.eq(cap_names(p["caps"]["bounding"]), ["CAP_KILL"], "bounding")


@case("exec.inherits-capabilities")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, cid, "/probe")
    c.eq(cap_names(p["caps"]["bounding"]), sorted(DEFAULT_CAPS), "bounding")
    c.eq(cap_names(p["caps"]["effective"]), sorted(DEFAULT_CAPS), "effective")


@case("exec.cap-flag")
def _(c):
    cid = running_sleeper(c)
    p = exec_probe(c, cid, "--cap", "CAP_SYS_CHROOT", cid, "/probe", "chroot", "/tmp")
    c.expect(c.check(p)["ok"], "chroot with --cap CAP_SYS_CHROOT: %s" % c.check(p))


@case("exec.inherits-nnp")
def _(c):
    cid = running_sleeper(c)
    c.eq(exec_probe(c, cid, cid, "/probe")["no_new_privs"], 1, "NNP")


@case("exec.no-new-privs-flag")
def _(c):
    c.process["noNewPrivileges"] = False
    cid = running_sleeper(c)
    c.eq(exec_probe(c, cid, "--no-new-privs", cid, "/probe")["no_new_privs"], 1, "NNP")


@case("exec.inherits-rlimits")
def _(c):
    c.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": 777, "soft": 666}]
    cid = running_sleeper(c)
    r = exec_probe(c, cid, cid, "/probe")["rlimits"]["RLIMIT_NOFILE"]
    c.eq((r["soft"], r["hard"]), (666, 777), "RLIMIT_NOFILE")


@case("exec.inherits-seccomp")
def _(c):
    c.linux["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
        {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}
    cid = running_sleeper(c)
    p = exec_probe(c, cid, cid, "/probe", "mkdir", "/tmp/d")
    c.eq(c.check(p)["errno"], 38, "errno of mkdir in the exec'd process")


@case("exec.hostname")
def _(c):
    cid = running_sleeper(c)
    c.eq(exec_probe(c, cid, cid, "/probe")["hostname"], "conformance", "hostname")


@case("exec.detach-pid-file")
def _(c):
    cid = running_sleeper(c)
    pid_file = c.path("exec.pid")
    r = c.rt("exec", "-d", "--pid-file", pid_file, cid, "/bin/sleep", "300")
    c.expect(r.ok, "exec -d: %s" % r)
    pid = int(c.read(pid_file, "0").strip() or 0)
    c.expect(pid in c.container_pids(), "the exec'd pid %d is not a container process %s"
             % (pid, c.container_pids()))


@case("exec.stopped-fails")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    failed(c, c.rt("exec", cid, "/probe"), "exec in a stopped container")


@case("exec.unknown-fails")
def _(c):
    failed(c, c.rt("exec", "no-such-" + c.token, "/probe"), "exec in an unknown container")


@case("exec.missing-executable-fails")
def _(c):
    cid = running_sleeper(c)
    failed(c, c.rt("exec", cid, "/no/such/program"), "exec of a missing program")
    c.eq(c.status(cid), "running", "status after the failed exec")


# -- pause / resume -----------------------------------------------------------

@case("pause.status")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("pause", cid)
    c.expect(r.ok, "pause: %s" % r)
    c.eq(c.status(cid), "paused", "status after pause")
    r = c.rt("resume", cid)
    c.expect(r.ok, "resume: %s" % r)
    c.eq(c.status(cid), "running", "status after resume")


@case("pause.freezes")
def _(c):
    cid = running_sleeper(c)
    c.rt("pause", cid)
    c.eq(c.cgroup_file("freezer", "freezer.state"), "FROZEN", "freezer.state")
    c.rt("resume", cid)
    c.eq(c.cgroup_file("freezer", "freezer.state"), "THAWED", "freezer.state after resume")


@case("pause.stopped-fails")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    failed(c, c.rt("pause", cid), "pause of a stopped container")


@case("pause.resume-running-fails")
def _(c):
    cid = running_sleeper(c)
    failed(c, c.rt("resume", cid), "resume of a running container")


@case("pause.unknown-fails")
def _(c):
    failed(c, c.rt("pause", "no-such-" + c.token), "pause of an unknown id")


@case("pause.exec-fails")
def _(c):
    cid = running_sleeper(c)
    c.rt("pause", cid)
    r = c.rt("exec", cid, "/probe", timeout=10)
    failed(c, r, "exec in a paused container")
    # runc's words, which scripts and runc's own tests match.
    c.expect("cannot exec in a paused container" in r.err,
             "exec in a paused container: runc's message: %s" % r)


@case("pause.delete-force")
def _(c):
    cid = running_sleeper(c)
    c.rt("pause", cid)
    r = c.rt("delete", "--force", cid)
    c.expect(r.ok, "delete --force of a paused container: %s" % r)
    c.eq(c.status(cid), None, "status after delete")
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")


# -- ps -----------------------------------------------------------------------

@case("ps.json")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("ps", "--format", "json", cid)
    c.expect(r.ok, "ps: %s" % r)
    pids = json.loads(r.out)
    c.expect(init_pid(c) in pids, "init %d not in %s" % (init_pid(c), pids))


@case("ps.json-after-exec")
def _(c):
    cid = running_sleeper(c)
    c.rt("exec", "-d", cid, "/bin/sleep", "300")
    c.wait_for(lambda: len(c.container_pids()) >= 2, "the exec'd process")
    pids = json.loads(c.rt("ps", "--format", "json", cid).out or "[]")
    missing = set(c.container_pids()) - set(pids)
    c.eq(missing, set(), "container processes missing from ps")


@case("ps.table")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("ps", cid)
    c.expect(r.ok and "PID" in r.out.splitlines()[0], "ps table: %s" % r)
    c.expect(str(init_pid(c)) in r.out, "init pid not in the table: %r" % r.out)


@case("ps.unknown-fails")
def _(c):
    failed(c, c.rt("ps", "no-such-" + c.token), "ps of an unknown id")


# -- update -------------------------------------------------------------------

def update_case(flags, controller, name, want):
    def fn(c):
        cid = running_sleeper(c)
        r = c.rt("update", *flags, cid)
        c.expect(r.ok, "update: %s" % r)
        c.eq(c.cgroup_file(controller, name), want, "%s/%s" % (controller, name))
    return fn


register("update.memory", update_case(["--memory", "64M"], "memory", "memory.limit_in_bytes",
                                      str(64 << 20)))
register("update.memory-reservation", update_case(["--memory-reservation", "32M"], "memory",
                                                  "memory.soft_limit_in_bytes", str(32 << 20)))
register("update.pids-limit", update_case(["--pids-limit", "50"], "pids", "pids.max", "50"))
register("update.cpu-shares", update_case(["--cpu-share", "512"], "cpu", "cpu.shares", "512"))
register("update.cpu-quota", update_case(["--cpu-period", "100000", "--cpu-quota", "50000"],
                                         "cpu", "cpu.cfs_quota_us", "50000"))
register("update.cpuset-cpus", update_case(["--cpuset-cpus", "0"], "cpuset", "cpuset.cpus", "0"))


@case("update.resources-file")
def _(c):
    cid = running_sleeper(c)
    path = c.path("resources.json")
    c.write(path, json.dumps({"memory": {"limit": 96 << 20}, "pids": {"limit": 77}}))
    r = c.rt("update", "--resources", path, cid)
    c.expect(r.ok, "update -r: %s" % r)
    c.eq(c.cgroup_file("memory", "memory.limit_in_bytes"), str(96 << 20), "memory limit")
    c.eq(c.cgroup_file("pids", "pids.max"), "77", "pids.max")


@case("update.unknown-fails")
def _(c):
    failed(c, c.rt("update", "--memory", "64M", "no-such-" + c.token), "update of an unknown id")


# -- linux.resources at create ------------------------------------------------

def resources_case(resources, checks):
    def fn(c):
        c.linux["resources"].update(resources)
        c.sleeper()
        c.create()
        for controller, name, want in checks:
            c.eq(c.cgroup_file(controller, name), want, "%s/%s" % (controller, name))
    return fn


for _name, _res, _checks in [
        ("memory.limit", {"memory": {"limit": 100 << 20}},
         [("memory", "memory.limit_in_bytes", str(100 << 20))]),
        ("memory.reservation", {"memory": {"reservation": 50 << 20}},
         [("memory", "memory.soft_limit_in_bytes", str(50 << 20))]),
        ("memory.swap", {"memory": {"limit": 100 << 20, "swap": 200 << 20}},
         [("memory", "memory.memsw.limit_in_bytes", str(200 << 20))]),
        ("memory.swappiness", {"memory": {"swappiness": 10}},
         [("memory", "memory.swappiness", "10")]),
        ("memory.disableOOMKiller", {"memory": {"disableOOMKiller": True}},
         [("memory", "memory.oom_control", None)]),
        ("cpu.shares", {"cpu": {"shares": 256}}, [("cpu", "cpu.shares", "256")]),
        ("cpu.quota-period", {"cpu": {"quota": 20000, "period": 50000}},
         [("cpu", "cpu.cfs_quota_us", "20000"), ("cpu", "cpu.cfs_period_us", "50000")]),
        ("cpu.cpus", {"cpu": {"cpus": "1"}}, [("cpuset", "cpuset.cpus", "1")]),
        ("cpu.mems", {"cpu": {"mems": "0"}}, [("cpuset", "cpuset.mems", "0")]),
        ("pids.limit", {"pids": {"limit": 42}}, [("pids", "pids.max", "42")]),
        ("blockIO.throttleReadBpsDevice",
         {"blockIO": {"throttleReadBpsDevice": [{"major": 7, "minor": 0, "rate": 1048576}]}},
         [("blkio", "blkio.throttle.read_bps_device", "7:0 1048576")]),
        ("blockIO.throttleWriteIOPSDevice",
         {"blockIO": {"throttleWriteIOPSDevice": [{"major": 7, "minor": 0, "rate": 100}]}},
         [("blkio", "blkio.throttle.write_iops_device", "7:0 100")])]:
    if _name == "memory.disableOOMKiller":
        def _oom(c, _res=_res):
            c.linux["resources"].update(_res)
            c.sleeper()
            c.create()
            text = c.cgroup_file("memory", "memory.oom_control")
            c.expect("oom_kill_disable 1" in text, "memory.oom_control: %r" % text)
        register("linux.resources." + _name, _oom)
    else:
        register("linux.resources." + _name, resources_case(_res, _checks))


@case("linux.resources.memory.limit-enforced")
def _(c):
    c.linux["resources"]["memory"] = {"limit": 8 << 20, "swap": 8 << 20}
    c.remove_namespace("pid")
    c.set_args("/bin/sh", "-c", "x=$(head -c 33554432 /dev/zero | tr '\\0' a); echo survived")
    r = c.run(timeout=60)
    c.expect("survived" not in r.out, "a 32 MiB shell variable fit in 8 MiB: %s" % r)


@case("linux.resources.pids.limit-enforced")
def _(c):
    c.linux["resources"]["pids"] = {"limit": 3}
    c.set_args("/bin/sh", "-c", "for i in 1 2 3 4 5 6; do sleep 5 & done; wait; echo done")
    r = c.run(timeout=60)
    c.expect("can't fork" in r.err or "fork" in (r.out + r.err).lower()
             or "Resource temporarily unavailable" in r.err,
             "6 children under pids.limit 3 gave no fork error: %s" % r)


@case("linux.cgroupsPath")
def _(c):
    p = c.probe()
    for controller in ("memory", "pids", "cpu", "devices"):
        c.eq(p["cgroups"].get(controller), c.cgroups_path, controller + " cgroup")


@case("linux.cgroupsPath.default")
def _(c):
    del c.linux["cgroupsPath"]
    c.write_config()
    cid = c.new_id()
    r = c.rt("run", "--bundle", c.bundle, cid)
    p = c.parse_probe(r.out, r)
    c.expect(cid in p["cgroups"].get("memory", ""), "memory cgroup %r does not name the id"
             % p["cgroups"].get("memory"))


# -- terminal -----------------------------------------------------------------

def terminal_probe(c):
    c.process["terminal"] = True
    sock, box = c.console()
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle, "--console-socket", sock, cid)
    c.expect(r.ok, "create with a terminal: %s" % r)
    c.start(cid)
    return c.parse_probe(c.terminal_output(box, cid), "the terminal")


@case("process.terminal.true")
def _(c):
    t = terminal_probe(c)["terminal"]
    c.eq((t["stdin"], t["stdout"], t["stderr"]), (True, True, True), "isatty 0, 1, 2")


@case("process.terminal.controlling")
def _(c):
    t = terminal_probe(c)["terminal"]
    c.expect(t["session_leader"] and t["controlling"], "not a session leader with a "
             "controlling terminal: %s" % t)
    c.expect(t.get("name", "").startswith("/dev/pts/"), "tty name %r" % t.get("name"))


@case("process.consoleSize")
def _(c):
    c.process["consoleSize"] = {"height": 33, "width": 111}
    t = terminal_probe(c)["terminal"]
    c.eq((t.get("rows"), t.get("cols")), (33, 111), "rows, cols")


@case("process.terminal.without-socket-fails")
def _(c):
    c.process["terminal"] = True
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle, cid)
    failed(c, r, "create of a terminal container without --console-socket")


@case("process.terminal.run-detached-without-socket-fails")
def _(c):
    c.process["terminal"] = True
    cid = c.new_id()
    r = c.run(cid, extra=("--detach",))
    failed(c, r, "run -d of a terminal container without --console-socket")
    c.expect("console" in r.err, "the error does not name the console socket: %s" % r)
    c.expect(c.state(cid, must=False) is None, "a container was left behind")


# `run` in the foreground without --console-socket: the runtime gives the
# container a terminal of its own and relays it to the one it runs in.
@case("process.terminal.run-foreground")
def _(c):
    c.process["terminal"] = True
    c.probe_args()
    r = c.run_in_terminal(size=(37, 101))
    c.eq(r.rc, 0, "exit status of run (%s)" % r)
    t = c.parse_probe(r.out, r)["terminal"]
    c.eq((t["stdin"], t["stdout"], t["stderr"]), (True, True, True), "isatty 0, 1, 2")
    c.expect(t.get("name", "").startswith("/dev/pts/"), "tty name %r" % t.get("name"))


# runc sizes the terminal just after the process starts (vigil before), so
# the process waits up to 5 s for a size before it reports it.
@case("process.terminal.run-foreground-size")
def _(c):
    c.process["terminal"] = True
    c.set_args("/bin/sh", "-c", 'i=0; while [ "$(stty size)" = "0 0" ] && [ $i -lt 50 ]; do '
               'sleep 0.1; i=$((i+1)); done; echo "size: $(stty size)"')
    r = c.run_in_terminal(size=(37, 101))
    c.eq(r.rc, 0, "exit status of run (%s)" % r)
    c.expect("size: 37 101" in r.out, "the caller's window size did not reach it: %r" % r.out)


@case("process.terminal.run-foreground-input")
def _(c):
    c.process["terminal"] = True
    c.set_args("/bin/sh", "-c", "echo ready; read line; echo got:$line; exit 3")
    r = c.run_in_terminal(steps=[(b"ready", lambda m: os.write(m, b"hello\r"))])
    c.eq(r.rc, 3, "exit status of run (%s)" % r)
    c.expect("got:hello" in r.out, "the input did not reach the container: %r" % r.out)


# The runtime's own first sizing may reach the shell as a SIGWINCH too (runc
# sizes the terminal just after the process starts): the shell waits for
# the size the case sets, up to 10 s.
@case("process.terminal.run-foreground-resize")
def _(c):
    c.process["terminal"] = True
    c.set_args("/bin/sh", "-c",
               'trap \'s=$(stty size); echo "$s"; [ "$s" = "50 150" ] && exit 0\' WINCH; '
               'echo ready; i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; exit 1')
    r = c.run_in_terminal(size=(24, 80),
                          steps=[(b"ready", lambda m: set_window_size(m, 50, 150))])
    c.eq(r.rc, 0, "exit status of run (%s)" % r)
    c.expect("50 150" in r.out, "the new window size did not reach the container: %r" % r.out)
