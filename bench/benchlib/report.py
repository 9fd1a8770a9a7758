"""report.md (tables, goals, method) and ratios.svg from the samples."""

import os

from . import goals, stats, svg

COLUMNS = ["vigil", "vigil+agent", "vigil+allow-list", "vigil+ptrace", "vigil+seccomp", "runc",
           "runc+seccomp", "crun", "runsc", "native"]
# (workload, metric prefix) of the rows in the summary table and the chart.
HEADLINE = [
    ("start", "run /bin/true"), ("start", "create"), ("start", "start"), ("start", "delete"),
    ("python", "import-heavy startup"), ("python", "data task"),
    ("syscalls", "getppid"), ("syscalls", "read_4k"), ("syscalls", "write_4k"),
    ("syscalls", "open_close"), ("syscalls", "stat"), ("syscalls", "open_write_close"),
    ("syscalls", "fork_wait"),
    ("syscalls", "mmap_munmap"), ("syscalls", "socket_close"), ("syscalls", "pipe_roundtrip"),
    ("syscalls", "uname"), ("syscalls", "uname [probe on CPU 0]"),
    ("syscalls", "uname [all on CPU 0]"),
    ("file I/O", "write 4 KiB on tmpfs"), ("file I/O", "read 1 MiB on tmpfs"),
    ("file I/O", "write 4 KiB on bind"), ("file I/O", "read 1 MiB on bind"),
    ("density", "time until all"),
    ("egress", "dns_query"), ("egress", "tcp_connect"),
]


def fmt(v):
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def columns(data):
    present = set()
    for metrics in data["samples"].values():
        for m in metrics.values():
            present |= set(m["values"])
    return [c for c in COLUMNS if c in present]


def headline_rows(data):
    """(workload, metric, samples) of the headline metrics that were measured:
    an exact name, else the first name that extends the prefix (e.g. a file
    system or a count) without being a pinned variant."""
    rows = []
    for workload, prefix in HEADLINE:
        metrics = data["samples"].get(workload, {})
        name = prefix if prefix in metrics else next(
            (n for n in metrics if n.startswith(prefix + " ") and "[" not in n), None)
        if name:
            rows.append((workload, name, metrics[name]))
    return rows


def summary_table(data, cols):
    rts = [c for c in cols if c not in ("runc", "native")]
    out = ["| workload | metric | runc (median) | " + " | ".join(f"{c} ÷ runc" for c in rts) +
           " |", "|---|---|---:|" + "---:|" * len(rts)]
    for workload, name, m in headline_rows(data):
        base = stats.median(m, "runc")
        cells = []
        for c in rts:
            r = stats.ratio(m, c)
            cells.append("–" if r is None else f"{r:.2f}")
        out.append(f"| {workload} | {name} | {fmt(base)} {m['unit']} | " + " | ".join(cells) +
                   " |")
    out.append("")
    out.append("Ratios are medians over medians, oriented so that **below 1 is better than "
               "runc** (for throughputs the inverse ratio is shown).")
    return out


def workload_table(workload, metrics, cols):
    has_native = any("native" in m["values"] for m in metrics.values())
    out = ["| metric | unit | " + " | ".join(cols) + " |", "|---|---|" + "---:|" * len(cols)]
    for name, m in metrics.items():
        cells = []
        for c in cols:
            s = stats.summary(m["values"].get(c, []))
            if not s:
                cells.append("–")
                continue
            cell = f"**{fmt(s['median'])}** ({fmt(s['min'])}–{fmt(s['max'])})"
            r = stats.ratio(m, c) if c not in ("runc", "native") else None
            if r is not None:
                cell += f" ×{r:.2f}"
            if has_native and c not in ("native",):
                rn = stats.ratio(m, c, "native")
                if rn is not None:
                    cell += f" [{rn:.1f}× native]"
            cells.append(cell)
        out.append(f"| {name} | {m['unit']} | " + " | ".join(cells) + " |")
    whats = []
    for m in metrics.values():
        w = m["what"].split(" (")[0] if workload == "syscalls" else m["what"]
        if w and w not in whats:
            whats.append(w)
    out.append("")
    out.append("Cells: **median** (min–max) ×ratio to runc" +
               (" [ratio to native]" if has_native else "") + ". " +
               ("Higher is better." if any(m["better"] == "higher" and m["unit"] != "bool"
                                           for m in metrics.values()) else "Lower is better."))
    if workload != "syscalls":
        out.extend(f"- {w}" for w in whats)
    return out


def write(out_dir, data):
    cols = columns(data)
    facts = data["facts"]
    lines = [f"# vigil benchmarks: {data['stamp']} ({facts['mode']} run)", "",
             f"`{data['command'].strip()}` on {facts['os']}, kernel {facts['kernel']}, "
             f"{facts['cpus']} × {facts['cpu']}, {facts['memory_gib']} GiB, cgroups "
             f"{facts['cgroups']}, idle CPUs: {facts.get('idle', 'not recorded')}, Landlock ABI {facts.get('landlock_abi', 'not recorded')}. Load average {' '.join(facts['loadavg_start'])} at the start, "
             f"{' '.join(facts['loadavg_end'])} at the end (other agents share the machine); "
             f"{facts['duration_s']} s in all.", "",
             "Runtimes: " + "; ".join(f"{k}: {v}" for k, v in facts["runtimes"].items()) +
             (f" (runsc flags: `{facts['runsc_flags']}`)" if facts.get("runsc_flags") else "") +
             ".", ""]
    for s in data.get("skipped", []):
        lines.append(f"- skipped: {s}")
    lines += ["## Goals", ""]
    for status, goal, measured in goals.evaluate(data):
        mark = {"PASS": "✅ PASS", "MISS": "❌ MISS", "n/a": "➖ n/a"}[status]
        lines.append(f"- {mark}: {goal}: {measured}")
    lines += ["", "## Summary: ratio to runc", ""] + summary_table(data, cols)
    lines += ["", "![ratios to runc](ratios.svg)", ""]
    for workload, metrics in data["samples"].items():
        lines += [f"## {workload}", ""] + workload_table(workload, metrics, cols)
        for n in data["notes"].get(workload, []):
            lines.append(f"- {n}")
        lines.append("")
    for workload, n in data["notes"].items():
        if workload not in data["samples"]:
            lines += [f"## {workload}", ""] + [f"- {x}" for x in n] + [""]
    if data.get("profile"):
        lines += ["## Where the time goes", ""] + data["profile"] + [""]
    lines += ["## Problems", ""]
    lines += [f"- {p}" for p in data["problems"]] or ["- none"]
    lines += ["", "## Method", "", METHOD.strip(), ""]
    analysis = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            lines += [f.read().strip(), ""]
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write("\n".join(lines))
    svg.write(os.path.join(out_dir, "ratios.svg"), headline_rows(data),
              [c for c in cols if c not in ("runc", "native")], data["stamp"])


METHOD = """
- **Interleaved.** Every sample of every runtime is taken in rounds, A B C D A
  B C D …, the order rotated by one each round, so a burst of load from other
  tenants of this 2-CPU VM lands on all runtimes alike. Each number is the
  median of its samples, with min and max beside it; the ratio is the median of
  the runtime over the median of runc (for throughputs, runc's over the
  runtime's), so below 1 is better than runc.
- **Same bundle for all.** One bundle per workload, shared by every runtime:
  `runc spec`-like config (pid, network, ipc, uts, mount namespaces; read-only
  root; a tmpfs on /tmp; no cgroup limits), a busybox-static rootfs, or for
  Python an empty rootfs with the host's /usr, /lib, /lib64, /bin bind-mounted
  read-only. Each runtime has a private `--root`; every container is deleted
  with `delete --force` at the end whatever happened.
- **Host quirks.** crun 1.8 refuses hybrid cgroups, so its commands run in a
  private mount namespace where /sys/fs/cgroup/unified is unmounted (joined
  with setns(2) in the forked child: no extra exec is timed). runsc runs with
  `--network=none --ignore-cgroups --platform=ptrace` (KVM hangs in this nested
  VM; systrap is not in Debian's 2022 build).
- **Wall time** is measured by the driver around each runtime command
  (fork + exec + wait), so it includes the runtime binary's own start-up; for
  `run` it covers create + start + wait + delete.
- **Syscalls** are measured by a static probe (bench/syscalls/) inside the
  container and on the host: each operation is calibrated to a batch of about
  budget/5 and timed as the median of 5 batches, the probe run several times per
  runtime. Raw syscall(2), no libc caching.
- **Memory** is PSS from /proc/PID/smaps_rollup of every host process of a
  sandbox other than the workload, 1 s after `start`.
- **Noise.** The machine is a 2-vCPU VM shared with other agents (see the load
  averages above); single samples can be off by 2× and min–max ranges are wide.
  Trust ratios that are far from 1 and medians over many rounds; re-run before
  acting on a difference under about 10 %.
- bench/ is a benchmark, not a test: nothing here fails on a number.
"""
