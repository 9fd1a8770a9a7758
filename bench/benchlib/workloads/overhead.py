"""Workload: what a pod under the vigil RuntimeClass costs beyond its
containers' own processes, the figures deploy/kubernetes/runtimeclass.yaml's
`overhead` is set from. A pod is two sandboxes: the pause sandbox (`sleep`)
and one container running the agent data task (Python with the host's /usr
bound read-only). Per runtime: the peak PSS of the runtime's processes of
both sandboxes while the task runs (vigil: the two supervisors, which join
the pod's memory cgroup, so the pod's limit must hold them), and their CPU
time over the task's wall time in millicores. runc keeps no process per
sandbox: its figures are the zero line."""

import os
import time

from . import sandboxes
from .. import bundles, proc
from .python import DATA_TASK, PYTHON

NAME = "overhead"
ROWS = 200000


def cpu_ns(pid):
    """Time the process has run on a CPU (/proc/PID/schedstat), or None."""
    fields = proc.read(f"/proc/{pid}/schedstat").split()
    return int(fields[0]) if fields else None


def runtime_pids(rt, init_pid):
    """The runtime's host process of one sandbox: vigil's supervisor, the
    init's parent; none for runc and crun, whose init's parent is not theirs."""
    stat = proc.read(f"/proc/{init_pid}/stat")
    close = stat.rfind(")")
    ppid = int(stat[close + 2:].split()[1]) if close >= 0 else 0
    return {ppid} if ppid > 1 and proc.exe(ppid) == os.path.realpath(rt.binary) else set()


def measure_pod(ctx, rt, pause, task):
    started = sandboxes.start_container(ctx, rt, pause, NAME)
    if not started:
        return
    pause_id, pause_pid = started
    cid = ctx.new_id(NAME)
    pid_file = ctx.path("pids", cid)
    out = rt.create(task.path, cid, pid_file)
    if not out.ok:
        ctx.problem(NAME, rt.name, "create failed: " + out.describe())
        rt.delete(cid, force=True)
        rt.delete(pause_id, force=True)
        return
    init_pid = int(proc.read(pid_file, "0") or 0)
    os.unlink(pid_file)
    pids = runtime_pids(rt, pause_pid) | runtime_pids(rt, init_pid)
    first = {p: cpu_ns(p) for p in pids}
    last = dict(first)
    began = time.perf_counter()
    out = rt.start(cid)
    peak_kib = 0
    while out.ok and proc.alive(init_pid) and time.perf_counter() - began < 300:
        peak_kib = max(peak_kib, sandboxes.pss_kib(pids))
        for p in pids:
            ran = cpu_ns(p)
            if ran is not None:
                last[p] = ran
        time.sleep(0.1)
    wall = time.perf_counter() - began
    rt.delete(cid, force=True)
    rt.delete(pause_id, force=True)
    if not out.ok:
        ctx.problem(NAME, rt.name, "start failed: " + out.describe())
        return
    cpu_seconds = sum((last[p] or 0) - (first[p] or 0) for p in pids) / 1e9
    ctx.add(NAME, "runtime PSS per pod (peak)", rt.name, peak_kib / 1024, "MiB",
            "both sandboxes' runtime processes, sampled every 100 ms while the task runs")
    ctx.add(NAME, "runtime CPU per pod", rt.name, 1000 * cpu_seconds / wall, "millicores",
            "their CPU time (schedstat) over the task's wall time")
    ctx.add(NAME, "task wall time", rt.name, wall * 1e3, "ms", "start to the init's exit")


def run(ctx):
    if not os.access(PYTHON, os.X_OK):
        ctx.problem(NAME, "all", f"{PYTHON} not installed; skipped")
        return
    pause = bundles.Bundle(ctx.path("bundles", "overhead-pause"), "busybox", ctx.busybox, None)
    pause.write_config(bundles.config(["sleep", "100000"]))
    task = bundles.Bundle(ctx.path("bundles", "overhead-task"), "host")
    task.write_config(bundles.config([PYTHON, "-c", DATA_TASK.replace("ROWS", str(ROWS))],
                                     extra_mounts=bundles.host_binds()))
    agent = [rt for rt in ctx.mediated if rt.name == "vigil+agent"]
    rounds = ctx.rounds(2, 4)
    for _, rt in ctx.interleaved(rounds, [*ctx.runtimes, *agent]):
        if rt.name == "runsc":
            continue  # its sandbox is a pod-level VM-like process set; not this model
        measure_pod(ctx, rt, pause, task)
    ctx.note(NAME, f"{rounds} rounds; a pause sandbox and a {ROWS}-row data task per pod.")
