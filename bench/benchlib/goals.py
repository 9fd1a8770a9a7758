"""The issue's goals, each turned into a pass / miss / not measured line."""

from . import stats

FAST_PATH_OPS = ["getppid", "read_4k", "write_4k", "fork_wait", "mmap_munmap", "socket_close",
                 "pipe_roundtrip"]


def _m(data, workload, metric):
    return data["samples"].get(workload, {}).get(metric)


def evaluate(data):
    """[(status, goal, measured)] with status PASS, MISS or n/a."""
    lines = []

    def add(ok, goal, measured):
        lines.append(("n/a" if ok is None else "PASS" if ok else "MISS", goal, measured))

    run = _m(data, "start", "run /bin/true")
    for rt, base, limit in (("vigil", "runc", 0.6), ("vigil", "crun", 1.0),
                            ("vigil+agent", "runc", 0.7)):
        r = stats.ratio(run, rt, base) if run else None
        add(None if r is None else r <= limit, f"start (`run` of /bin/true) ≤ {limit} × {base} ({rt})",
            "not measured" if r is None else
            f"{stats.median(run, rt):.1f} ms vs {stats.median(run, base):.1f} ms = "
            f"{r:.2f} × {base}")
    worst = None
    for op in FAST_PATH_OPS:
        m = _m(data, "syscalls", op)
        r = stats.ratio(m, "vigil") if m else None
        if r is not None and (worst is None or r > worst[1]):
            worst = (op, r)
    rows = []
    for op in FAST_PATH_OPS:
        m = _m(data, "syscalls", op)
        r = stats.ratio(m, "vigil") if m else None
        if r is not None:
            rows.append(f"{op} {r:.2f}")
    add(None if worst is None else worst[1] <= 1.05, "fast-path syscalls ≤ 1.05 × runc (each)",
        "not measured" if worst is None else
        f"worst {worst[0]} = {worst[1]:.2f} × runc; " + ", ".join(rows))
    # The fair peer for the fast path: runc as Docker runs it, with Docker's
    # seccomp profile; vigil alone (its own filter) and vigil with the
    # same profile on top (as under Docker).
    for rt in ("vigil", "vigil+seccomp"):
        rows, worst = [], None
        for op in ("getppid", "read_4k"):
            m = _m(data, "syscalls", op)
            r = stats.ratio(m, rt, "runc+seccomp") if m else None
            if r is not None:
                rows.append(f"{op} {r:.2f}")
                worst = r if worst is None else max(worst, r)
        add(None if worst is None else worst <= 1.02,
            f"getppid, read 4 KiB ≤ 1.02 × runc with Docker's seccomp profile ({rt})",
            "not measured" if worst is None else ", ".join(rows))
    # Allowed reads (a read-only open, a stat): on the fast path under the
    # default policy, and under `agent`, whose reads are the kernel's.
    for rt, how in (("vigil", "default policy"), ("vigil+agent", "agent policy")):
        for op, limit_us in (("open_close", 4), ("stat", 2)):
            m = _m(data, "syscalls", op)
            a = stats.median(m, rt) if m else None
            b = stats.median(m, "runc") if m else None
            add(None if a is None or b is None else a - b <= limit_us * 1000,
                f"{op.replace('_', '+')} within {limit_us} µs of runc ({how})",
                "not measured" if a is None or b is None else
                f"{a / 1000:.2f} µs vs {b / 1000:.2f} µs: {(a - b) / 1000:+.2f} µs")
    # A call the sentry decides and audits (a write open under `agent`)
    # against the user-notify round trip the same run measured: uname,
    # which the sentry answers without further work.
    m = _m(data, "syscalls", "open_write_close")
    u = _m(data, "syscalls", "uname")
    a = stats.median(m, "vigil+agent") if m else None
    floor = stats.median(u, "vigil") if u else None
    b = stats.median(m, "runc") if m else None
    add(None if a is None or floor is None or b is None else a - b <= floor + 3000,
        "an audited call (open for writing + close under agent) ≤ runc + the notify round trip "
        "(uname) + 3 µs",
        "not measured" if a is None or floor is None or b is None else
        f"{a / 1000:.2f} µs vs runc {b / 1000:.2f} µs + round trip {floor / 1000:.2f} µs: "
        f"{(a - b - floor) / 1000:+.2f} µs over")
    for rt, import_limit in (("vigil", 1.10), ("vigil+agent", 1.05)):
        for metric, limit in (("import-heavy startup", import_limit),
                              ("data task (200k-row CSV)", 1.05)):
            m = _m(data, "python", metric)
            r = stats.ratio(m, rt) if m else None
            add(None if r is None else r <= limit, f"python {metric} ≤ {limit:.2f} × runc ({rt})",
                "not measured" if r is None else
                f"{stats.median(m, rt):.0f} ms vs {stats.median(m, 'runc'):.0f} ms = "
                f"{r:.2f} × runc")
    m = _m(data, "memory", "runtime PSS per idle sandbox")
    v = stats.median(m, "vigil") if m else None
    add(None if v is None else v <= 4.0, "memory per idle sandbox ≤ 4 MiB PSS",
        "not measured" if v is None else f"{v:.2f} MiB (the supervisor)")
    # The audit flood: the supervisor's work is the container's, and the
    # log stays under its cap.
    m = _m(data, "flood", "supervisor CPU (% of one CPU)")
    v = stats.median(m, "vigil") if m else None
    add(None if v is None else v <= 20.0, "audit flood: supervisor CPU ≤ the container's 20 % quota",
        "not measured" if v is None else f"{v:.1f} % of one CPU")
    m = _m(data, "flood", "audit bytes written")
    v = max(m["values"].get("vigil", [0]) or [0]) if m else None
    add(None if v is None else v <= 30 * 1024, "audit flood: audit bytes ≤ the cap (30 MiB)",
        "not measured" if v is None else f"{v:.0f} KiB at most")
    m = _m(data, "flood", "supervisor memory growth")
    values = [x for name in ("vigil", "vigil+agent") for x in (m["values"].get(name) or [])] if m else []
    v = max(values) if values else None
    add(None if v is None else v <= 1024, "audit flood: the supervisor's memory grows ≤ 1 MiB",
        "not measured" if v is None else f"{v:.0f} KiB at most (vigil, vigil+agent)")
    # Idle sandboxes (issue 26): a paused heap leaves RAM, comes back fast,
    # and `start` of a created sandbox is cheap.
    m = _m(data, "idle", "paused resident memory (200 MB Python)")
    v = stats.median(m, "vigil") if m else None
    r = stats.median(m, "runc") if m else None
    add(None if v is None else v <= 10.0,
        "paused 200 MB Python sandbox: resident ≤ 10 % of running (vigil, with swap)",
        "not measured" if v is None else f"{v:.1f} % (runc's pause: "
        + ("–" if r is None else f"{r:.0f} %") + ")")
    m = _m(data, "idle", "resume to first answer (200 MB Python)")
    v = stats.median(m, "vigil") if m else None
    add(None if v is None else v <= 300.0, "resume of a released 200 MB sandbox to its first answer ≤ 300 ms",
        "not measured" if v is None else f"{v:.0f} ms")
    m = _m(data, "start", "start")
    v, r = (stats.median(m, "vigil"), stats.median(m, "runc")) if m else (None, None)
    add(None if v is None or not r else v <= 0.5 * r, "`start` of a created sandbox ≤ 0.5 × runc's",
        "not measured" if v is None or not r else f"{v:.2f} ms vs {r:.2f} ms = {v / r:.2f} × runc")
    count = data.get("density_count")
    m = _m(data, "density", f"time until all {count} run") if count else None
    v = stats.median(m, "vigil") if m else None
    if count != 50:
        add(None, "50 sandboxes running in ≤ 2 s",
            "not measured" if v is None else f"{count} sandboxes only (quick): {v:.2f} s")
    else:
        add(None if v is None else v <= 2.0, "50 sandboxes running in ≤ 2 s",
            "not measured" if v is None else f"{v:.2f} s")
    # vigil serve (issue 42): a sandbox from the warm pool answers its first
    # run_code, and a live one a print(1), through the client.
    for metric, limit, goal in (
            ("first run_code answer, warm pool", 20.0,
             "vigil serve: first run_code answer from the warm pool ≤ 20 ms"),
            ("print(1) round trip", 5.0, "vigil serve: print(1) round trip ≤ 5 ms")):
        m = _m(data, "serve", metric)
        v, r = (stats.median(m, "vigil"), stats.median(m, "runc")) if m else (None, None)
        add(None if v is None else v <= limit, goal,
            "not measured" if v is None else f"{v:.2f} ms (runc behind the same service: "
            + ("–" if r is None else f"{r:.2f} ms") + ")")
    return lines
