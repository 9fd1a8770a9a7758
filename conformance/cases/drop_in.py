"""What scripts and clients written for runc depend on beyond the spec's
text: what state.pid names, the verbs' flags, their exit statuses
(docs/conformance.md, "Drop-in for runc")."""

import os
import shlex
import subprocess
import threading
import time

from harness import case, host_ns, register, run_command


def failed(c, r, what):
    c.expect(r.rc not in (0, None), "%s succeeded: %s" % (what, r))


def running_sleeper(c):
    c.sleeper()
    return c.create_start()


def run_fails_leaving_nothing(c, what):
    """`run` of /bin/true under the current config must fail, and no
    container may be left; returns the Result."""
    c.set_args("/bin/true")
    cid = c.new_id()
    r = c.run(cid)
    failed(c, r, what)
    c.eq(c.status(cid), None, "a container left behind")
    return r


# -- state.pid ------------------------------------------------------------------

@case("state.pid.is-the-init")
def _(c):
    cid = running_sleeper(c)
    pid = c.state(cid)["pid"]
    c.eq(int(c.read(c.pid_file(cid), "0").strip() or 0), pid, "--pid-file and state.pid")
    c.expect(pid in c.container_pids(), "state.pid %d is not a process of the container %s"
             % (pid, c.container_pids()))
    ns = os.stat("/proc/%d/ns/pid" % pid).st_ino
    c.expect(ns != host_ns("pid"), "/proc/state.pid/ns/pid is the host's")
    c.eq(os.stat("/proc/%d/ns/mnt" % pid).st_ino == host_ns("mnt"), False,
         "/proc/state.pid/ns/mnt is the host's")


@case("state.pid.cgroup-is-the-containers")
def _(c):
    cid = running_sleeper(c)
    pid = c.state(cid)["pid"]
    lines = c.read("/proc/%d/cgroup" % pid, "").splitlines()
    # Every hierarchy with a controller: pids, memory, freezer, devices...
    controllers = [l.split(":") for l in lines if l.split(":")[1] not in ("", "name=systemd")]
    wrong = [l for l in controllers if l[2] != c.cgroups_path]
    c.expect(controllers and not wrong, "cgroups of state.pid outside %s: %s"
             % (c.cgroups_path, wrong))


# -- run ------------------------------------------------------------------------

@case("run.keep")
def _(c):
    c.set_args("/bin/true")
    cid = c.new_id()
    r = c.run(cid, extra=("--keep",))
    c.eq(r.rc, 0, "exit status of run --keep (%s)" % r)
    c.eq(c.status(cid), "stopped", "status after run --keep")
    r = c.rt("delete", cid)
    c.expect(r.ok, "delete after run --keep: %s" % r)


@case("run.no-subreaper")
def _(c):
    c.set_args("/bin/sh", "-c", "exit 7")
    r = c.run(extra=("--no-subreaper",))
    c.eq(r.rc, 7, "exit status of run --no-subreaper (%s)" % r)


# -- exec -----------------------------------------------------------------------

# The exec'd process joins the frozen cgroup: it runs (and `exec` returns)
# once the container is resumed.
@case("exec.ignore-paused")
def _(c):
    cid = running_sleeper(c)
    c.rt("pause", cid)
    done = {}
    t = threading.Thread(target=lambda: done.setdefault(
        "r", c.rt("exec", "--ignore-paused", cid, "/bin/echo", "after-resume", timeout=20)))
    t.start()
    time.sleep(1)
    c.rt("resume", cid)
    t.join(25)
    r = done.get("r")
    c.expect(r is not None and r.ok and "after-resume" in r.out,
             "exec --ignore-paused into a paused container, then resume: %s" % r)


@case("exec.process-from-descriptor")
def _(c):
    cid = running_sleeper(c)
    path = c.path("process.json")
    c.write(path, '{"args": ["/bin/echo", "from-fd"], "cwd": "/", "env": ["PATH=/bin"],'
                  ' "user": {"uid": 0, "gid": 0}}')
    with open(path) as f:
        r = c.rt("exec", "-p", "/dev/fd/0", cid, stdin=f)
    c.expect(r.ok and "from-fd" in r.out, "exec -p /dev/fd/0: %s" % r)


@case("exec.created-container")
def _(c):
    c.sleeper()
    cid = c.create()
    r = c.rt("exec", cid, "/bin/echo", "before-start")
    c.expect(r.ok and "before-start" in r.out, "exec into a created container: %s" % r)
    c.eq(c.status(cid), "created", "status after the exec")


# -- kill -----------------------------------------------------------------------

@case("kill.signal-0")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("kill", cid, "0")
    c.expect(r.ok, "kill ID 0 of a running container: %s" % r)
    c.eq(c.status(cid), "running", "status after kill ID 0")


# -- update ---------------------------------------------------------------------

@case("update.kernel-memory-accepted")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("update", "--kernel-memory", "64M", cid)
    c.expect(r.ok, "update --kernel-memory: %s" % r)


@case("update.l3-cache-schema-without-rdt-fails")
def _(c):
    if os.path.isdir("/sys/fs/resctrl/info"):
        c.skip("this host has resctrl")
    cid = running_sleeper(c)
    failed(c, c.rt("update", "--l3-cache-schema", "L3:0=f", cid),
           "update --l3-cache-schema without Intel RDT")


# -- run --preserve-fds -----------------------------------------------------------

# Descriptor 3 of the caller is the container's descriptor 3.
@case("run.preserve-fds")
def _(c):
    path = c.path("passed")
    c.set_args("/bin/sh", "-c", "echo through-3 >&3")
    c.write_config()
    argv = ["/bin/sh", "-c", 'exec "$0" "$@" 3>' + shlex.quote(path)] + list(c.runtime) + [
        "--root", c.root, "run", "--preserve-fds", "1", "--bundle", c.bundle, c.new_id()]
    r = run_command(argv, c.path("preserve.out"), c.path("preserve.err"))
    c.expect(r.ok, "run --preserve-fds 1: %s" % r)
    c.eq(c.read(path, ""), "through-3\n", "what the container wrote to its descriptor 3")


# -- exit statuses ----------------------------------------------------------------

# runc exits 1 when a verb fails, but exec 255 (its own status is the
# process's).
def unknown_id_exits(want, *verb):
    def fn(c):
        r = c.rt(*verb, "no-such-" + c.token)
        c.eq(r.rc, want, "exit status of `%s` of an unknown id (%s)" % (" ".join(verb), r))
    return fn


for verb in (["state"], ["start"], ["kill"], ["delete"], ["pause"], ["resume"], ["ps"],
             ["update", "--pids-limit", "5"], ["events", "--stats"]):
    register("exit-status.unknown-id." + verb[0], unknown_id_exits(1, *verb))
register("exit-status.unknown-id.exec", unknown_id_exits(255, "exec", "/bin/true"))


# -- cgroups ---------------------------------------------------------------------

@case("linux.cgroupsPath.frozen-fails")
def _(c):
    freezer = c.cgroup_dir("freezer")
    if not os.path.isdir(os.path.dirname(freezer)):
        c.skip("no freezer hierarchy")
    os.makedirs(freezer, exist_ok=True)  # removed with the case's cgroups
    c.write(os.path.join(freezer, "freezer.state"), "FROZEN")
    c.cleanups.append(lambda: c.write(os.path.join(freezer, "freezer.state"), "THAWED"))
    c.set_args("/bin/true")
    cid = c.new_id()
    c.write_config()
    r = c.rt("create", "--bundle", c.bundle, cid, timeout=20)
    c.expect(r.rc is not None, "create into a frozen cgroup hung: %s" % r)
    failed(c, r, "create into a frozen cgroup")
    c.eq(c.status(cid), None, "a container left behind")


# A cgroupsPath that already holds a process (a job's, another
# container's): runc 1.1 warns and runs the container, and its delete leaves
# that process alone.
@case("linux.cgroupsPath.non-empty-warns")
def _(c):
    host = c.spawn_host(["sleep", "600"])
    # runc 1.1 looks in the devices hierarchy alone (on v1).
    for controller in ("devices", "pids", "memory"):
        d = c.cgroup_dir(controller)
        if not os.path.isdir(os.path.dirname(d)):
            c.skip("no v1 %s hierarchy" % controller)
        os.makedirs(d, exist_ok=True)  # removed with the case's cgroups
        c.write(os.path.join(d, "cgroup.procs"), str(host.pid))
    c.set_args("/bin/sh", "-c", "exit 3")
    r = c.run()
    c.eq(r.rc, 3, "exit status of run into a non-empty cgroup (%s)" % r)
    c.expect("not empty" in r.err, "no warning that the cgroup is not empty: %r" % r.err)
    c.expect(host.poll() is None, "the process that was in the cgroup was killed")
    c.expect(str(host.pid) in c.cgroup_file("pids", "cgroup.procs").split(),
             "the process that was in the cgroup was moved out")


# -- events ------------------------------------------------------------------------

def watch_events(c, cid):
    """`events --interval 1s ID` in the background: (process, output path)."""
    out = c.path("events-%s.out" % cid)
    with open(out, "wb") as f:
        p = subprocess.Popen(list(c.runtime) + ["--root", c.root, "events", "--interval", "1s",
                                                cid],
                             stdout=f, stderr=subprocess.DEVNULL, start_new_session=True)
    c.cleanups.append(lambda: (p.poll() is None and p.kill(), p.wait()))
    return p, out


def oom_container_watched(c):
    """A container that runs out of memory at once, started while `events`
    watches it: (the events process, its output path, the id)."""
    c.linux.setdefault("resources", {})["memory"] = {"limit": 16 << 20, "swap": 16 << 20}
    c.set_args("/bin/sh", "-c", "a=x; while :; do a=$a$a; done")
    cid = c.create()
    p, out = watch_events(c, cid)
    time.sleep(0.5)
    c.start(cid)
    return p, out, cid


# An OOM kill in the container is an event of its own.
@case("events.oom")
def _(c):
    _, out, _ = oom_container_watched(c)
    c.wait_for(lambda: '"type":"oom"' in (c.read(out, "") or "").replace(" ", ""),
               "an oom event", timeout=30)


@case("events.ends-with-the-container")
def _(c):
    p, _, cid = oom_container_watched(c)
    c.wait_status(cid, "stopped", timeout=30)
    c.wait_for(lambda: p.poll() is not None, "events to end after the container stopped",
               timeout=10)


@case("exec.pid-file-in-a-missing-directory")
def _(c):
    cid = running_sleeper(c)
    before = c.container_pids()
    r = c.rt("exec", "-d", "--pid-file", c.path("no", "such", "dir", "pid"), cid,
             "/bin/sleep", "300")
    c.eq(r.rc, 255, "exit status of exec --pid-file into a missing directory (%s)" % r)
    c.wait_for(lambda: c.container_pids() == before, "no exec'd process left running")


@case("kill.all-signal-0")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("kill", "--all", cid, "0")
    c.expect(r.ok, "kill --all ID 0: %s" % r)
    c.eq(c.status(cid), "running", "status after kill --all ID 0")


# -- global flags ------------------------------------------------------------------

@case("global.debug-writes-debug-lines")
def _(c):
    c.set_args("/bin/true")
    c.write_config()
    log = c.path("runtime.log")
    cid = c.new_id()
    r = c.rt("--debug", "--log", log, "--log-format", "text", "create", "--bundle", c.bundle,
             cid)
    c.expect(r.ok, "create with --debug: %s" % r)
    c.expect("level=debug" in (c.read(log, "") or ""),
             "no level=debug line in the log: %r" % (c.read(log, "") or "")[:300])


# `exec -t` in the foreground without --console-socket: the runtime relays
# the process's terminal to its own, as `run` does.
@case("exec.tty-foreground")
def _(c):
    cid = running_sleeper(c)
    r = c.in_terminal(["exec", "-t", cid, "/bin/sh", "-c",
                       'echo ready; read line; echo got:$line; stty size; exit 4'],
                      size=(31, 97), steps=[(b"ready", lambda m: os.write(m, b"typed\r"))])
    c.eq(r.rc, 4, "exit status of exec -t (%s)" % r)
    c.expect("got:typed" in r.out, "the input did not reach the process: %r" % r.out)
    c.expect("31 97" in r.out, "the caller's window size did not reach it: %r" % r.out)


# What the process finds at start, as runc sets it up: the loopback
# interface of a new network namespace up, and HOME from the container's
# /etc/passwd when the config does not set it.
@case("process.start.loopback-up")
def _(c):
    c.set_args("/bin/cat", "/sys/class/net/lo/flags")
    r = c.run()
    c.expect(r.ok, "run: %s" % r)
    flags = r.out.strip()
    c.expect(flags.startswith("0x") and int(flags, 16) & 1, "lo is down: flags %r" % flags)


@case("process.start.home-from-passwd")
def _(c):
    os.makedirs(c.rootfs + "/etc", exist_ok=True)
    c.write(c.rootfs + "/etc/passwd", "root:x:0:0:root:/root-home:/bin/sh\n"
                                      "user:x:1234:1234::/home/user:/bin/sh\n")
    c.process["env"] = [e for e in c.process.get("env", []) if not e.startswith("HOME=")]
    c.set_args("/bin/sh", "-c", "echo HOME=$HOME")
    r = c.run()
    c.eq(r.out.strip(), "HOME=/root-home", "HOME of uid 0 (%s)" % r)
    c.process["user"] = {"uid": 1234, "gid": 1234}
    r = c.run()
    c.eq(r.out.strip(), "HOME=/home/user", "HOME of uid 1234 (%s)" % r)
    c.process["user"] = {"uid": 777, "gid": 777}
    r = c.run()
    c.eq(r.out.strip(), "HOME=/", "HOME of a uid not in /etc/passwd (%s)" % r)
    c.process["env"].append("HOME=/given")
    r = c.run()
    c.eq(r.out.strip(), "HOME=/given", "HOME the config sets (%s)" % r)


# -- user namespaces -----------------------------------------------------------------

# A bind source the mapped root cannot reach (a 0700 directory of the host's
# root on the way): runc opens it before the container's user namespace
# limits what the mount may walk.
@case("linux.uidMappings.unreachable-bind-source")
def _(c):
    c.set_namespace("user")
    c.linux["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    c.linux["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
    os.chmod(c.tmp, 0o755)  # the rootfs must be reachable by the mapped root
    closed = c.host_dir("closed")
    os.chmod(closed, 0o700)
    data = os.path.join(closed, "data")
    os.makedirs(data)
    os.chmod(data, 0o755)
    c.write(os.path.join(data, "note"), "reached\n")
    os.chmod(os.path.join(data, "note"), 0o644)
    os.makedirs(c.rootfs + "/mnt/data")
    c.add_mount("/mnt/data", "bind", data, ["rbind", "ro"])
    p = c.probe("read", "/mnt/data/note")
    c.eq(c.check(p).get("data"), "reached\n", "the file through the bind mount")


# -- LSMs ------------------------------------------------------------------------

def lsm_enabled(name):
    if name == "apparmor":
        try:
            with open("/sys/module/apparmor/parameters/enabled") as f:
                return f.read().startswith("Y")
        except OSError:
            return False
    return os.path.exists("/sys/fs/selinux/enforce")


def without_lsm_fails(lsm, field, value):
    """Where the host has no such LSM, runc 1.1.5 still tries to apply the
    profile or label and fails: so does vigil, with one line, leaving
    nothing."""
    def fn(c):
        if lsm_enabled(lsm):
            c.skip("%s is enabled on this host" % lsm)
        c.process[field] = value
        run_fails_leaving_nothing(c, "run with %s on a host without %s" % (field, lsm))
    return fn


register("process.apparmorProfile.without-apparmor-fails",
         without_lsm_fails("apparmor", "apparmorProfile", "vigil-conformance-profile"))
register("process.selinuxLabel.without-selinux-fails",
         without_lsm_fails("selinux", "selinuxLabel", "system_u:system_r:container_t:s0:c1,c2"))


# -- list ---------------------------------------------------------------------------

# Scripts cut `list`'s table by column position: each value starts where
# its header does (runc's tabwriter), and the bundle is the absolute path
# as given, without a trailing "/".
@case("list.table-columns")
def _(c):
    c.sleeper()
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle + "/.", cid)
    c.expect(r.ok, "create: %s" % r)
    r = c.rt("list")
    lines = r.out.splitlines()
    c.expect(r.ok and lines, "list: %s" % r)
    header = lines[0]
    row = next((l for l in lines[1:] if l.startswith(cid + " ")), None)
    c.expect(row is not None, "no row for %s: %r" % (cid, r.out))
    names = ["ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER"]
    starts = [header.index(n) for n in names]
    values = [row[s:e].strip() for s, e in zip(starts, starts[1:] + [len(row)])]
    c.eq(values[0], cid, "ID column")
    c.eq(values[2], "created", "STATUS column")
    c.eq(values[3], os.path.abspath(c.bundle), "BUNDLE column")
    c.expect(all(row[s - 1] == " " for s in starts[1:]), "a value runs into the next column: %r"
             % row)
    c.eq(c.state(cid)["bundle"], os.path.abspath(c.bundle), "state.bundle")


# `exec --cgroup CONTROLLER:SUB`: the process goes to SUB beneath the
# container's cgroup in that controller's hierarchy, and stays in the
# container's own cgroup everywhere else.
@case("exec.cgroup-sub")
def _(c):
    cid = running_sleeper(c)
    sub = c.cgroup_dir("pids") + "/sub"
    os.makedirs(sub, exist_ok=True)
    c.cleanups.insert(0, lambda: os.rmdir(sub) if os.path.isdir(sub) else None)
    r = c.rt("exec", "--cgroup", "pids:sub", cid, "/bin/cat", "/proc/self/cgroup")
    c.expect(r.ok, "exec --cgroup pids:sub: %s" % r)
    lines = dict((l.split(":")[1], l.split(":")[2]) for l in r.out.splitlines() if l.count(":") >= 2)
    c.eq(lines.get("pids", "").endswith("/sub"), True, "pids cgroup of the exec'd process (%r)" % lines)
    c.eq(lines.get("memory", "").endswith("/sub"), False, "memory cgroup (%r)" % lines)
    failed(c, c.rt("exec", "--cgroup", "pids:no-such", cid, "/bin/true"),
           "exec --cgroup into a missing sub-cgroup")


# `update -r` with device rules: runc 1.1.5 accepts them and leaves the
# device cgroup as create wrote it (the rules there come from linux.devices
# too); so does vigil.
@case("update.resources-with-device-rules")
def _(c):
    cid = running_sleeper(c)
    path = c.path("resources.json")
    c.write(path, '{"devices": [{"allow": false, "access": "rwm"},'
                  ' {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rwm"}]}')
    r = c.rt("update", "-r", path, cid)
    c.expect(r.ok, "update -r with device rules: %s" % r)
    r = c.rt("exec", cid, "/bin/sh", "-c", "head -c 1 /dev/zero >/dev/null && echo zero-read")
    c.expect(r.ok and "zero-read" in r.out, "the device cgroup changed after update: %s" % r)


# linux.resources.unified for a controller this host has only on v1: one
# line that names "unified" (runc: "cannot use unified on cgroup v1"; vigil
# names the key and the controller), and no container.
@case("linux.resources.unified-on-v1-fails")
def _(c):
    memory_on_v1 = os.path.isdir("/sys/fs/cgroup/memory")
    if not memory_on_v1:
        c.skip("the memory controller is not on a v1 hierarchy here")
    c.linux.setdefault("resources", {})["unified"] = {"memory.high": "100000000"}
    r = run_fails_leaving_nothing(c, "run with linux.resources.unified on a v1 memory controller")
    c.expect("unified" in r.err, "the error does not name unified: %s" % r)
