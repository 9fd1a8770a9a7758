"""Workload 1: `run` of /bin/true in a busybox bundle with the default
namespaces, whole wall time including delete; then the same container
through create / start / exit / delete, each step timed on its own."""

import os

from .. import bundles, proc

NAME = "start"


def run(ctx):
    bundle = bundles.Bundle(ctx.path("bundles", "start"), "busybox", ctx.busybox, None)
    bundle.write_config(bundles.config(["/bin/true"]))
    rounds = ctx.rounds(5, 20)
    # vigil under agent too: its `run` also masks paths and loads Landlock.
    agent = [rt for rt in ctx.mediated if rt.name == "vigil+agent"]
    for _, rt in ctx.interleaved(rounds, [*ctx.runtimes, *agent]):
        cid = ctx.new_id("run")
        out = rt.run(bundle.path, cid)
        if not out.ok:
            ctx.problem(NAME, rt.name, "run /bin/true failed: " + out.describe())
            rt.delete(cid, force=True)
            continue
        rt.ids.discard(cid)
        ctx.add(NAME, "run /bin/true", rt.name, out.seconds * 1e3, "ms",
                "`RUNTIME run` of /bin/true: create + start + wait + delete, one command")
        if rt not in agent:
            lifecycle(ctx, rt, bundle)
    ctx.note(NAME, f"{rounds} rounds; each round runs `run` once and the create/start/exit/"
                   "delete sequence once per runtime.")


def lifecycle(ctx, rt, bundle):
    cid = ctx.new_id("life")
    pid_file = ctx.path("pids", cid)
    create = rt.create(bundle.path, cid, pid_file)
    if not create.ok:
        ctx.problem(NAME, rt.name, "create failed: " + create.describe())
        rt.delete(cid, force=True)
        return
    pid = int(proc.read(pid_file, "0") or 0)
    start = rt.start(cid)
    if not start.ok:
        ctx.problem(NAME, rt.name, "start failed: " + start.describe())
        rt.delete(cid, force=True)
        return
    # From `start` returning to the process in --pid-file ending (vigil: the
    # supervisor, which exits with the init; runc, crun: the init; runsc: the
    # sandbox).
    exited = proc.wait_pid_exit(pid, 20) if pid > 0 else None
    delete = rt.delete(cid)
    if not delete.ok:
        ctx.problem(NAME, rt.name, "delete of a stopped container failed: " + delete.describe())
        rt.delete(cid, force=True)
        return
    what = "the same container step by step: `create`, `start`, exit, `delete`"
    ctx.add(NAME, "create", rt.name, create.seconds * 1e3, "ms", what)
    ctx.add(NAME, "start", rt.name, start.seconds * 1e3, "ms", what)
    if exited is not None:
        ctx.add(NAME, "exit (start returned → pid gone)", rt.name, exited * 1e3, "ms", what)
    ctx.add(NAME, "delete", rt.name, delete.seconds * 1e3, "ms", what)
    os.unlink(pid_file)
