"""Where vigil's time goes, for the report's misses: CPU time against wall
time of one `run` of /bin/true per runtime (perf stat), the syscalls vigil's
processes spend that run in (strace -c -w, which slows everything: read the
shares, not the times), what vigil's supervisor does per mediated uname
(strace -c on the supervisor while the probe loops on uname), and where its
CPU goes on the mediated path (perf record of the supervisor while the probe
loops on uname, and on stat under the agent policy)."""

import os
import re
import shutil
import subprocess
import time

from .. import bundles, proc

NAME = "where the time goes"


def perf_stat(ctx, rt, bundle):
    out = proc.run(["perf", "stat", "-x", ",", "-e", "task-clock,context-switches,cpu-migrations",
                    "--", *rt.argv("run", "--bundle", bundle, ctx.new_id("perf"))],
                   timeout=60, preexec=rt.preexec())
    if not out.ok:
        return None
    values = {}
    for line in out.err.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[0].replace(".", "").isdigit():
            values[parts[2]] = float(parts[0])
    return out.seconds * 1e3, values.get("task-clock", 0), values.get("context-switches", 0)


def strace_summary(path, top=8):
    rows = []
    for line in proc.read(path).splitlines():
        parts = line.split()
        if len(parts) >= 5 and re.match(r"^\d+\.\d+$", parts[0]) and parts[-1] != "total":
            rows.append(line.strip())
    return rows[:top]


def supervisor_of(vigil, child):
    pids = [p for p in proc.all_pids() if p != child.pid and vigil.root in proc.cmdline(p)
            and proc.exe(p) == os.path.realpath(vigil.binary)]
    return pids[0] if pids else None


def start_probe(ctx, vigil, op, flags=()):
    """vigil (with `flags`) running the probe on `op` for 3 s, detached."""
    cid = ctx.new_id(op)
    bundle = bundles.Bundle(ctx.path("bundles", cid), "busybox", ctx.busybox, ctx.probe)
    bundle.write_config(bundles.config([bundles.PROBE_IN_CONTAINER, "ops", "--ops", op,
                                        "--ms", "3000"]))
    vigil.ids.add(cid)
    argv = [vigil.binary, "--root", vigil.root, *flags, "run", "--bundle", bundle.path, cid]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def finish(child):
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill_group(child.pid)
        child.wait()


def perf_top(ctx, pid, tag, top=12):
    """The supervisor's hottest symbols over 2 s (perf record -g, self time)."""
    data = ctx.path("profile", tag + ".perf")
    subprocess.run(["perf", "record", "-F", "999", "-g", "-p", str(pid), "-o", data,
                    "--", "sleep", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym",
                          "--stdio", "-g", "none"], capture_output=True, text=True).stdout
    rows = [l.strip() for l in out.splitlines() if re.match(r"^\s+\d+\.\d+%", l)]
    return rows[:top]


def run(ctx):
    vigil = next((rt for rt in ctx.runtimes if rt.name == "vigil"), None)
    if not vigil or not shutil.which("strace"):
        ctx.note(NAME, "skipped: needs vigil and strace")
        return
    lines = ctx.profile = []
    bundle = bundles.Bundle(ctx.path("bundles", "profile"), "busybox", ctx.busybox, ctx.probe)
    bundle.write_config(bundles.config(["/bin/true"]))
    if shutil.which("perf"):
        lines += ["`perf stat` of one `run` of /bin/true (median of 5 per runtime): CPU time "
                  "spent by all the runtime's processes against wall time.", "",
                  "| runtime | wall ms | CPU ms (task-clock) | CPU / wall | context switches |",
                  "|---|---:|---:|---:|---:|"]
        for rt in ctx.runtimes:
            samples = [s for s in (perf_stat(ctx, rt, bundle.path) for _ in range(5)) if s]
            if not samples:
                continue
            samples.sort()
            wall, cpu, cs = samples[len(samples) // 2]
            lines.append(f"| {rt.name} | {wall:.1f} | {cpu:.1f} | {cpu / wall:.2f} | {cs:.0f} |")
        lines.append("")
    trace = ctx.path("profile", "run.strace")
    proc.run(["strace", "-f", "-c", "-w", "-o", trace,
              *vigil.argv("run", "--bundle", bundle.path, ctx.new_id("strace"))], timeout=60)
    lines += ["`strace -f -c -w` of `vigil run` of /bin/true, top syscalls by wall time "
              "(strace inflates every syscall; compare shares):", "", "```",
              "% time     seconds  usecs/call     calls    errors syscall",
              *strace_summary(trace), "```", ""]
    # The supervisor while the probe loops on uname.
    child = start_probe(ctx, vigil, "uname")
    time.sleep(1.0)
    sup = supervisor_of(vigil, child)
    if sup:
        out = ctx.path("profile", "sup.strace")
        subprocess.run(["timeout", "1", "strace", "-c", "-o", out, "-p", str(sup)],
                       stderr=subprocess.DEVNULL)
        rows = strace_summary(out, top=20)
        calls = {r.split()[-1]: int(r.split()[3]) for r in rows if len(r.split()) >= 5}
        n = calls.get("uname") or calls.get("epoll_wait") or 1
        per = ", ".join(f"{k} {v / n:.1f}" for k, v in sorted(calls.items(), key=lambda x: -x[1]))
        lines += [f"vigil's supervisor per mediated uname (strace -c for 1 s, {n} notifications):"
                  f" {sum(calls.values()) / n:.0f} syscalls each: {per}.", ""]
    finish(child)
    if shutil.which("perf"):
        for op, flags, what in (("uname", (), "uname (default policy)"),
                                ("stat", ("--policy", "agent"), "stat under the agent policy")):
            child = start_probe(ctx, vigil, op, flags)
            time.sleep(0.7)
            sup = supervisor_of(vigil, child)
            rows = perf_top(ctx, sup, op) if sup else []
            finish(child)
            if rows:
                lines += [f"`perf record -g` of vigil's supervisor for 2 s while the probe loops on "
                          f"{what}: self time by symbol (kernel symbols are the syscalls and "
                          "context switches it makes):", "", "```", *rows, "```", ""]
    ctx.note(NAME, "see the section of the same name below the tables.")
