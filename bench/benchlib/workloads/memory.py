"""Workload 5: the memory a runtime keeps alive beside an idle `sleep`
container: PSS (smaps_rollup) of every process of the sandbox that is not the
workload — vigil's supervisor; nothing for runc and crun (they exit after
`start`); runsc's sandbox, gofer and their helpers. Measured one sandbox at a
time, 1 s after `start`, so start-up allocations have settled."""

import time

from . import sandboxes
from .. import bundles

NAME = "memory"


def run(ctx):
    bundle = bundles.Bundle(ctx.path("bundles", "memory"), "busybox", ctx.busybox, None)
    bundle.write_config(bundles.config(["sleep", "100000"]))
    rounds = ctx.rounds(2, 5)
    for _, rt in ctx.interleaved(rounds):
        started = sandboxes.start_container(ctx, rt, bundle, NAME)
        if not started:
            continue
        cid, pid = started
        time.sleep(1.0)
        runtime, workload = sandboxes.sandbox_processes(rt, pid, sandboxes.cmdlines())
        what = "PSS of the sandbox's processes other than the workload (smaps_rollup)"
        ctx.add(NAME, "runtime PSS per idle sandbox", rt.name,
                sandboxes.pss_kib(runtime) / 1024, "MiB", what)
        ctx.add(NAME, "runtime processes per sandbox", rt.name, len(runtime), "processes",
                "host processes the runtime keeps per sandbox")
        ctx.add(NAME, "workload PSS (sleep)", rt.name, sandboxes.pss_kib(workload) / 1024, "MiB",
                "PSS of the container's own processes seen on the host (none under runsc)")
        out = rt.delete(cid, force=True)
        if not out.ok:
            ctx.problem(NAME, rt.name, "delete --force failed: " + out.describe())
    ctx.note(NAME, f"{rounds} rounds, one sandbox at a time.")
