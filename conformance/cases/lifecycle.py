"""The lifecycle (create, start, state, kill, delete, run, list) and its
errors: start twice, delete running without --force, kill of a stopped
container, unknown and invalid ids, duplicate ids. Also `state`'s fields and
the hooks."""

import json
import os
import signal
import time

from harness import case, register


def failed(c, r, what):
    c.expect(r.rc not in (0, None), "%s succeeded: %s" % (what, r))


# -- state --------------------------------------------------------------------

@case("state.created")
def _(c):
    cid = c.create()
    s = c.state(cid)
    c.eq((s.get("id"), s.get("status")), (cid, "created"), "id, status")
    c.expect(isinstance(s.get("pid"), int) and s["pid"] > 0, "pid %r" % s.get("pid"))
    c.eq(s.get("bundle"), c.bundle, "bundle (absolute)")
    c.expect(isinstance(s.get("ociVersion"), str) and s["ociVersion"], "no ociVersion")


@case("state.pid-is-alive")
def _(c):
    cid = c.create()
    pid = c.state(cid)["pid"]
    c.expect(os.path.exists("/proc/%d" % pid), "state.pid %d does not exist" % pid)


@case("state.pid-file")
def _(c):
    cid = c.create()
    with open(c.pid_file(cid)) as f:
        written = int(f.read().strip())
    c.eq(written, c.state(cid)["pid"], "the --pid-file pid (state.pid)")


@case("state.running")
def _(c):
    c.sleeper()
    cid = c.create_start()
    c.eq(c.status(cid), "running", "status after start")


@case("state.stopped")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")


@case("state.annotations")
def _(c):
    c.config["annotations"] = {"org.example.key": "value", "other": "x y"}
    cid = c.create()
    c.eq(c.state(cid).get("annotations"), c.config["annotations"], "annotations")


@case("state.bundle-relative-create")
def _(c):
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", "bundle", cid, cwd=c.tmp)
    c.expect(r.ok, "create with a relative bundle: %s" % r)
    c.eq(c.state(cid).get("bundle"), c.bundle, "bundle (made absolute)")


@case("state.unknown-id")
def _(c):
    r = c.rt("state", "no-such-container-" + c.token)
    failed(c, r, "state of an unknown id")


# -- create / start -----------------------------------------------------------

@case("lifecycle.create-does-not-start")
def _(c):
    c.probe_args()
    cid = c.create()
    time.sleep(0.3)
    c.eq(c.output_of_create(), "", "output before start")
    c.start(cid)
    c.probe_from_create(cid)


@case("lifecycle.start-runs-process")
def _(c):
    cid = c.create_start()
    p = c.probe_from_create(cid)
    c.eq(p["argv"], ["/probe"], "argv")


@case("lifecycle.start-twice-fails")
def _(c):
    c.sleeper()
    cid = c.create_start()
    failed(c, c.start(cid, expect_ok=False), "a second start")
    c.eq(c.status(cid), "running", "status after the second start")


@case("lifecycle.start-stopped-fails")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    failed(c, c.start(cid, expect_ok=False), "start of a stopped container")


@case("lifecycle.start-unknown-fails")
def _(c):
    failed(c, c.rt("start", "no-such-" + c.token), "start of an unknown id")


@case("lifecycle.duplicate-id-fails")
def _(c):
    c.sleeper()
    cid = c.create()
    r = c.create(cid, expect_ok=False)
    failed(c, r, "a second create with the same id")
    c.eq(c.status(cid), "created", "the first container's status")


def invalid_id_case(bad):
    def fn(c):
        c.write_config()
        r = c.rt("create", "--bundle", c.bundle, bad)
        c.ids.append(bad)
        failed(c, r, "create with id %r" % bad)
        c.expect(not os.path.exists(os.path.join(os.path.dirname(c.root), "escaped")),
                 "an id escaped --root")
    return fn


for _label, _bad in [("dotdot", "../escaped"), ("slash", "a/b"), ("space", "a b"),
                     ("empty", ""), ("dot", ".")]:
    register("lifecycle.invalid-id." + _label, invalid_id_case(_bad))


@case("lifecycle.create-invalid-config-fails")
def _(c):
    cid = c.new_id()
    with open(os.path.join(c.bundle, "config.json"), "w") as f:
        f.write("{not json")
    r = c.rt("create", "--bundle", c.bundle, cid)
    failed(c, r, "create with a broken config.json")
    c.eq(c.status(cid), None, "status of the failed container")


@case("lifecycle.create-missing-config-fails")
def _(c):
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle, cid)
    failed(c, r, "create without config.json")


@case("lifecycle.failed-create-leaves-nothing")
def _(c):
    c.process["args"] = ["/no/such/program"]
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle, "--pid-file", c.pid_file(cid), cid)
    if r.ok:
        # Runtimes may fail at start instead; then delete must clean up.
        c.start(cid, expect_ok=False)
        c.rt("delete", "--force", cid)
    c.eq(c.status(cid), None, "status after the failure")
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")
    c.wait_for(lambda: not os.path.isdir(c.cgroup_dir("memory")) or True, "")


# -- kill ---------------------------------------------------------------------

@case("lifecycle.kill-running")
def _(c):
    c.sleeper()
    cid = c.create_start()
    r = c.rt("kill", cid, "KILL")
    c.expect(r.ok, "kill: %s" % r)
    c.wait_status(cid, "stopped")


@case("lifecycle.kill-created")
def _(c):
    c.sleeper()
    cid = c.create()
    r = c.rt("kill", cid, "KILL")
    c.expect(r.ok, "kill of a created container: %s" % r)
    c.wait_status(cid, "stopped")


@case("lifecycle.kill-stopped-fails")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    failed(c, c.rt("kill", cid, "KILL"), "kill of a stopped container")


@case("lifecycle.kill-unknown-fails")
def _(c):
    failed(c, c.rt("kill", "no-such-" + c.token, "KILL"), "kill of an unknown id")


@case("lifecycle.kill-bad-signal-fails")
def _(c):
    c.sleeper()
    cid = c.create_start()
    failed(c, c.rt("kill", cid, "NOSUCHSIG"), "kill with an unknown signal")
    c.eq(c.status(cid), "running", "status")


def trap_container(c):
    """sh trapping USR1 and TERM, recording them in a bound host directory."""
    out = c.host_dir("out")
    c.add_mount("/out", "bind", out, ["bind"])
    c.set_args("/bin/sh", "-c",
               "trap 'echo USR1 >> /out/sigs' USR1; trap 'echo TERM >> /out/sigs; exit 0' TERM;"
               " echo ready > /out/ready; while :; do sleep 0.05; done")
    cid = c.create_start()
    c.wait_for(lambda: os.path.exists(out + "/ready"), "the shell to set its traps")
    return cid, out + "/sigs"


def kill_signal_case(args, want):
    def fn(c):
        cid, sigs = trap_container(c)
        r = c.rt("kill", cid, *args)
        c.expect(r.ok, "kill: %s" % r)
        c.wait_for(lambda: want in (c.read(sigs) or ""), "the shell to record " + want)
    return fn


register("lifecycle.kill-default-is-TERM", kill_signal_case([], "TERM"))
register("lifecycle.kill-signal-name", kill_signal_case(["USR1"], "USR1"))
register("lifecycle.kill-signal-SIGname", kill_signal_case(["SIGUSR1"], "USR1"))
register("lifecycle.kill-signal-number", kill_signal_case([str(int(signal.SIGUSR1))], "USR1"))


# -- delete -------------------------------------------------------------------

@case("lifecycle.delete-stopped")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    r = c.rt("delete", cid)
    c.expect(r.ok, "delete: %s" % r)
    c.eq(c.status(cid), None, "status after delete")


@case("lifecycle.delete-running-fails")
def _(c):
    c.sleeper()
    cid = c.create_start()
    failed(c, c.rt("delete", cid), "delete of a running container without --force")
    c.eq(c.status(cid), "running", "status after the refused delete")


@case("lifecycle.delete-created-fails")
def _(c):
    # Spec: deleting a container that is not stopped must fail and change nothing.
    c.sleeper()
    cid = c.create()
    failed(c, c.rt("delete", cid), "delete of a created container without --force")
    c.eq(c.status(cid), "created", "status after the refused delete")


@case("lifecycle.delete-force-running")
def _(c):
    c.sleeper()
    cid = c.create_start()
    r = c.rt("delete", "--force", cid)
    c.expect(r.ok, "delete --force: %s" % r)
    c.eq(c.status(cid), None, "status after delete --force")
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")


@case("lifecycle.delete-force-created")
def _(c):
    c.sleeper()
    cid = c.create()
    r = c.rt("delete", "--force", cid)
    c.expect(r.ok, "delete --force: %s" % r)
    c.eq(c.status(cid), None, "status after delete --force")
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")


@case("lifecycle.delete-unknown-fails")
def _(c):
    failed(c, c.rt("delete", "no-such-" + c.token), "delete of an unknown id")


@case("lifecycle.delete-removes-cgroup")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    c.expect(os.path.isdir(c.cgroup_dir("pids")) or os.path.isdir(c.cgroup_dir("memory")),
             "no cgroup at %s before delete" % c.cgroups_path)
    c.rt("delete", cid)
    c.wait_for(lambda: not os.path.isdir(c.cgroup_dir("pids"))
               and not os.path.isdir(c.cgroup_dir("memory")), "the cgroup to be removed")


@case("lifecycle.delete-leaves-no-process")
def _(c):
    c.sleeper()
    cid = c.create_start()
    # `start` returns once the init is told to go; its execve (which gives it
    # the process's environment, the marker) may come a moment later.
    c.wait_for(c.container_pids, "the container's process to run")
    c.rt("delete", "--force", cid)
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")


@case("lifecycle.id-reusable-after-delete")
def _(c):
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    c.rt("delete", cid)
    c.create(cid)
    c.eq(c.status(cid), "created", "status of the re-created id")


# -- run and list -------------------------------------------------------------

@case("lifecycle.run-detach")
def _(c):
    c.sleeper()
    c.write_config()
    cid = c.new_id()
    r = c.rt("run", "-d", "--bundle", c.bundle, cid, timeout=15)
    c.expect(r.ok, "run -d: %s" % r)
    c.eq(c.status(cid), "running", "status after run -d")


@case("lifecycle.list")
def _(c):
    c.sleeper()
    cid = c.create_start()
    r = c.rt("list", "--format", "json")
    c.expect(r.ok, "list: %s" % r)
    entries = {e["id"]: e for e in json.loads(r.out or "[]")}
    c.expect(cid in entries, "%s not in list %s" % (cid, list(entries)))
    c.eq(entries[cid].get("status"), "running", "listed status")


# -- hooks --------------------------------------------------------------------

def hook(c, name, script=None, **extra):
    """A host hook that appends `name` and its stdin (the state) to log files."""
    log = c.path("hooks.log")
    body = script or 'echo %s >> %s; cat > %s' % (name, log, c.path("state-" + name + ".json"))
    h = {"path": "/bin/sh", "args": ["sh", "-c", body]}
    h.update(extra)
    return h


def hook_log(c):
    return (c.read(c.path("hooks.log")) or "").split()


def hook_state(c, name):
    text = c.read(c.path("state-" + name + ".json"))
    if not text:
        c.fail("hook %s got no state on stdin" % name)
    return json.loads(text)


def container_hook(c, name):
    """A startContainer hook runs in the container: busybox sh, logging into
    a bound host directory."""
    out = c.host_dir("hookout")
    if not any(m["destination"] == "/hookout" for m in c.config["mounts"]):
        c.add_mount("/hookout", "bind", out, ["bind"])
    return {"path": "/bin/sh", "args": ["sh", "-c", "echo %s >> /hookout/log; hostname >> "
                                        "/hookout/hostname" % name]}


@case("hooks.order")
def _(c):
    c.config["hooks"] = {k: [hook(c, k)] for k in
                         ("prestart", "createRuntime", "createContainer", "poststart", "poststop")}
    c.config["hooks"]["startContainer"] = [container_hook(c, "startContainer")]
    c.config["root"]["readonly"] = False
    cid = c.create()
    c.eq(hook_log(c), ["prestart", "createRuntime", "createContainer"], "hooks run by create")
    c.start(cid)
    c.wait_status(cid, "stopped")
    c.eq((c.read(c.path("hookout", "log")) or "").split(), ["startContainer"],
         "hooks run in the container by start")
    c.eq(hook_log(c), ["prestart", "createRuntime", "createContainer", "poststart"],
         "hooks after start")
    c.rt("delete", cid)
    c.eq(hook_log(c)[-1:], ["poststop"], "the hook run by delete")


def hook_state_case(kind, phase_status):
    def fn(c):
        c.config["hooks"] = {kind: [hook(c, kind)]}
        c.sleeper()
        cid = c.create()
        if kind in ("poststart", "poststop"):
            c.start(cid)
        if kind == "poststop":
            c.rt("kill", cid, "KILL")
            c.wait_status(cid, "stopped")
            c.rt("delete", cid)
        s = hook_state(c, kind)
        c.eq(s.get("id"), cid, "id in the state")
        c.eq(s.get("bundle"), c.bundle, "bundle in the state")
        c.expect(s.get("ociVersion"), "no ociVersion in the state")
        if phase_status:
            c.eq(s.get("status"), phase_status, "status in the state")
        if kind != "poststop":
            c.expect(isinstance(s.get("pid"), int) and s["pid"] > 0, "pid %r" % s.get("pid"))
    return fn


register("hooks.prestart.state", hook_state_case("prestart", None))
register("hooks.createRuntime.state", hook_state_case("createRuntime", "creating"))
register("hooks.createContainer.state", hook_state_case("createContainer", "creating"))


@case("hooks.startContainer.under-the-profile")
def _(c):
    # It runs in the container: the container's seccomp profile holds it.
    c.linux["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
                          "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_KILL"}]}
    c.config["hooks"] = {"startContainer": [
        {"path": "/bin/sh", "args": ["sh", "-c", "mkdir /tmp/hook-made-this"]}]}
    c.process["args"] = ["/bin/true"]
    r = c.run()
    c.expect(r.rc not in (0, None), "the hook's mkdir got past the profile: %s" % r)
    c.expect("bad system call" in r.err, "runc's words for the hook's death: %s" % r.err)


@case("hooks.createContainer.cwd-is-the-rootfs")
def _(c):
    # What it does relative to its cwd lands in the container (runc's
    # hooks bind libraries into ./lib so).
    c.config["hooks"] = {"createContainer": [hook(c, "cc", "pwd > ./hook-cwd")]}
    c.sleeper()
    c.create()
    c.eq((c.read(c.rootfs + "/hook-cwd") or "").strip(), os.path.realpath(c.rootfs),
         "the createContainer hook's cwd")
register("hooks.poststart.state", hook_state_case("poststart", None))
register("hooks.poststop.state", hook_state_case("poststop", "stopped"))


@case("hooks.state-pid-matches")
def _(c):
    c.config["hooks"] = {"createRuntime": [hook(c, "createRuntime")]}
    c.sleeper()
    cid = c.create()
    c.eq(hook_state(c, "createRuntime").get("pid"), c.state(cid)["pid"], "pid (state's)")


@case("hooks.startContainer.in-container")
def _(c):
    c.config["hooks"] = {"startContainer": [container_hook(c, "startContainer")]}
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    c.eq((c.read(c.path("hookout", "hostname")) or "").strip(), "conformance",
         "hostname seen by the startContainer hook")


@case("hooks.array-order")
def _(c):
    c.config["hooks"] = {"prestart": [hook(c, "first"), hook(c, "second"), hook(c, "third")]}
    c.create()
    c.eq(hook_log(c), ["first", "second", "third"], "prestart hooks in order")


@case("hooks.args-and-env")
def _(c):
    out = c.path("argsenv")
    c.config["hooks"] = {"prestart": [{
        "path": "/bin/sh", "args": ["sh", "-c", 'echo "$0 $1 $HOOKVAR" > ' + out, "a1", "a2"],
        "env": ["HOOKVAR=hv", "PATH=/bin:/usr/bin"]}]}
    c.create()
    c.eq((c.read(out) or "").strip(), "a1 a2 hv", "args and env seen by the hook")


@case("hooks.prestart-failure-fails-create")
def _(c):
    c.config["hooks"] = {"prestart": [hook(c, "x", script="exit 3")]}
    c.sleeper()
    c.write_config()
    cid = c.new_id()
    r = c.rt("create", "--bundle", c.bundle, cid)
    failed(c, r, "create with a failing prestart hook")
    c.eq(c.status(cid), None, "status after the failed create")
    c.wait_for(lambda: not c.container_pids(), "the container's processes to go")


@case("hooks.createRuntime-failure-fails-create")
def _(c):
    c.config["hooks"] = {"createRuntime": [hook(c, "x", script="exit 1")]}
    c.sleeper()
    c.write_config()
    cid = c.new_id()
    failed(c, c.rt("create", "--bundle", c.bundle, cid), "create with a failing hook")
    c.eq(c.status(cid), None, "status after the failed create")


@case("hooks.timeout")
def _(c):
    c.config["hooks"] = {"prestart": [hook(c, "x", script="exec sleep 20", timeout=1)]}
    c.sleeper()
    c.write_config()
    cid = c.new_id()
    start = time.time()
    r = c.rt("create", "--bundle", c.bundle, cid)
    failed(c, r, "create with a hook that outlives its timeout")
    c.expect(time.time() - start < 15, "create took %.1fs" % (time.time() - start))


@case("hooks.poststop-failure-still-deletes")
def _(c):
    c.config["hooks"] = {"poststop": [hook(c, "x", script="exit 1")]}
    cid = c.create_start()
    c.wait_status(cid, "stopped")
    c.rt("delete", cid)
    c.eq(c.status(cid), None, "status after delete with a failing poststop hook")
