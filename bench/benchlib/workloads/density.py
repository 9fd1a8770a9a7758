"""Workload 6: density. N sandboxes running `sleep` started by a few
concurrent workers (create + start each): the time until all run, the memory
they add (PSS summed over their processes, and the drop in MemAvailable, which
other tenants of the machine disturb), and whether `delete --force` of all of
them leaves nothing behind (no process naming the --root, no state)."""

import os
import time
from concurrent.futures import ThreadPoolExecutor

from . import sandboxes
from .. import bundles, proc

NAME = "density"
WORKERS = 4


def run(ctx):
    count = 10 if ctx.quick else 50
    rounds = ctx.rounds(1, 3)
    bundle = bundles.Bundle(ctx.path("bundles", "density"), "busybox", ctx.busybox, None)
    bundle.write_config(bundles.config(["sleep", "100000"]))
    for _, rt in ctx.interleaved(rounds):
        one_round(ctx, rt, bundle, count)
    ctx.note(NAME, f"{count} sandboxes, {WORKERS} concurrent create+start workers on "
                   f"{os.cpu_count()} CPUs, {rounds} rounds.")
    ctx.density_count = count


def one_round(ctx, rt, bundle, count):
    avail_before = proc.mem_available_kib()
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        started = [s for s in pool.map(lambda _: sandboxes.start_container(ctx, rt, bundle, NAME),
                                       range(count)) if s]
    elapsed = time.perf_counter() - start
    time.sleep(1.0)
    lines = sandboxes.cmdlines()
    runtime, workload = set(), set()
    for cid, pid in started:
        r, w = sandboxes.sandbox_processes(rt, pid, {})
        runtime |= r
        workload |= w
    # runsc's gofers are found by --root (they are not the sandbox's children).
    r, w = sandboxes.sandbox_processes(rt, 0, lines)
    runtime |= r
    workload |= w
    all_pss = sandboxes.pss_kib(runtime | workload) / 1024
    avail_drop = (avail_before - proc.mem_available_kib()) / 1024
    if len(started) == count:
        ctx.add(NAME, f"time until all {count} run", rt.name, elapsed, "s",
                f"{count} × (create + start), {WORKERS} at a time")
        ctx.add(NAME, f"PSS of all {count} sandboxes", rt.name, all_pss, "MiB",
                "runtime + workload processes, summed")
        ctx.add(NAME, "MemAvailable drop", rt.name, avail_drop, "MiB",
                "system-wide, noisy: other tenants share the machine")
    else:
        ctx.problem(NAME, rt.name, f"only {len(started)} of {count} sandboxes started")
    start = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        deleted = list(pool.map(lambda s: rt.delete(s[0], force=True).ok, started))
    failed = [cid for (cid, _), ok in zip(started, deleted) if not ok]
    ctx.add(NAME, "delete --force of all", rt.name, time.perf_counter() - start, "s",
            f"`delete --force` of every sandbox, {WORKERS} at a time")
    time.sleep(0.5)
    left = [p for p in proc.all_pids() if rt.root in " ".join(proc.cmdline(p))]
    left_state = [e for e in os.listdir(rt.root) if not e.startswith(".")] \
        if os.path.isdir(rt.root) else []
    clean = not failed and not left and not left_state
    ctx.add(NAME, "deleted cleanly (1 = yes)", rt.name, 1 if clean else 0, "bool",
            "every delete succeeded, no process or state left", better="higher")
    if not clean:
        ctx.problem(NAME, rt.name, f"not clean after delete: {len(failed)} deletes failed, "
                                   f"processes left {left[:5]}, state left {left_state[:5]}")

