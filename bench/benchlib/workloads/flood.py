"""Workload: the audit log as a weapon. A container capped at 20 % of one
CPU makes a cheap mediated syscall (uname, which the sentry answers and
audits under every policy) in a loop for a few seconds. What it costs the
host beside the container: the supervisor's CPU time (utime + stime of the
runtime's process above the init the runtime reported, which for vigil is
the supervisor; runc leaves none, and the init itself is shown for scale),
the container cgroup's CPU (cpuacct,
which holds the supervisor too since it joins the container's cgroup), and
the audit bytes left on disk against the log's cap (10 MiB x 3 files by
default: docs/audit.md), and how much the supervisor's resident memory grew
over the flood (it must not: a repeat the audit collapses costs nothing to
keep)."""

import glob
import os
import time

from . import sandboxes
from .. import bundles, proc

NAME = "flood"
QUOTA_PERCENT = 20
AUDIT_CAP_BYTES = 3 * (10 << 20)


def cpu_seconds(pid):
    """utime + stime of `pid` (all its threads), in seconds; None when gone."""
    fields = proc.read(f"/proc/{pid}/stat").rsplit(")", 1)[-1].split()
    if len(fields) < 15:
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime, stime: not its children's
    return ticks / os.sysconf("SC_CLK_TCK")


def supervisor_of(rt, init):
    """The runtime's process above `init` (its parent when that names the
    runtime's --root: vigil's supervisor), else `init` itself."""
    fields = proc.read(f"/proc/{init}/stat").rsplit(")", 1)[-1].split()
    parent = int(fields[1]) if len(fields) > 1 else 0
    return parent if parent > 1 and rt.root in " ".join(proc.cmdline(parent)) else init


def resident_kib(pid):
    """VmRSS of `pid` in KiB; None when gone."""
    for line in proc.read(f"/proc/{pid}/status").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def cgroup_cpu_seconds(cid):
    """cpuacct.usage of the container's cgroup (v1), whatever path the runtime chose."""
    for path in glob.glob(f"/sys/fs/cgroup/cpuacct/**/{cid}/cpuacct.usage", recursive=True):
        value = proc.read(path).strip()
        if value:
            return int(value) / 1e9
    return None


def audit_bytes(rt, cid):
    return sum(os.path.getsize(p) for p in glob.glob(os.path.join(rt.root, ".audit", cid + ".jsonl*")))


def run(ctx):
    seconds = 2 if ctx.quick else 5
    bundle = bundles.Bundle(ctx.path("bundles", NAME), "busybox", ctx.busybox, ctx.probe)
    cfg = bundles.config([bundles.PROBE_IN_CONTAINER, "ops", "--ops", "uname",
                          "--ms", str(seconds * 1000)])
    cfg["linux"].setdefault("resources", {})["cpu"] = {"quota": QUOTA_PERCENT * 1000,
                                                       "period": 100000}
    bundle.write_config(cfg)
    rounds = ctx.rounds(1, 3)
    runtimes = [rt for rt in [*ctx.runtimes, *ctx.mediated]
                if rt.name in ("vigil", "runc", "vigil+agent")]
    for _, rt in ctx.interleaved(rounds, runtimes):
        sandbox = sandboxes.start_container(ctx, rt, bundle, NAME)
        if not sandbox:
            continue
        cid, init = sandbox
        pid = supervisor_of(rt, init)
        started = time.time()
        reported, container = 0.0, 0.0
        first_rss, last_rss = None, None
        while time.time() - started < seconds + 30:
            r = cpu_seconds(pid)
            c = cgroup_cpu_seconds(cid)
            rss = resident_kib(pid)
            if r is None or rss is None:
                break
            first_rss = rss if first_rss is None else first_rss
            last_rss = rss
            reported = r
            container = c if c is not None else container
            state = rt.state(cid)
            if not state or state.get("status") == "stopped":
                break
            time.sleep(0.2)
        wall = time.time() - started
        what = "the supervisor's CPU time over the flood's wall time, % of one CPU"
        ctx.add(NAME, "supervisor CPU (% of one CPU)", rt.name, 100 * reported / wall, "%",
                what + f" (the container's quota: {QUOTA_PERCENT} %; runc has none: its init)")
        ctx.add(NAME, "container cgroup CPU (% of one CPU)", rt.name, 100 * container / wall, "%",
                f"cpuacct.usage of the container's cgroup (quota {QUOTA_PERCENT} %)")
        ctx.add(NAME, "audit bytes written", rt.name, audit_bytes(rt, cid) / 1024, "KiB",
                f"the audit log and its rotated files (cap {AUDIT_CAP_BYTES >> 20} MiB)")
        if rt.name != "runc" and first_rss is not None:
            ctx.add(NAME, "supervisor memory growth", rt.name, last_rss - first_rss, "KiB",
                    "the supervisor's VmRSS at the flood's end less at its start")
        rt.delete(cid, force=True)
    ctx.note(NAME, f"{rounds} rounds of a {seconds} s uname loop under a {QUOTA_PERCENT} % "
                   "CPU quota; vigil audits each call (emulate) unless repeats are collapsed.")
