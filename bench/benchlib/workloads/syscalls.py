"""Workload 3: syscall costs measured by the static probe
(bench/syscalls/) inside each runtime's container and on the host, ns per
call. The mediated path (uname) and its neighbours are measured three ways:
unpinned; the container's probe pinned to CPU 0 (sched_setaffinity inside);
and everything pinned (the runtime command started under `taskset -c 0` and
the probe pinned too, so vigil's supervisor, runsc's sandbox and the probe
share CPU 0)."""

import json

from .. import bundles, proc

NAME = "syscalls"
PINNED_OPS = "getppid,pipe_roundtrip,uname"
VARIANTS = [
    ("", [], [], "unpinned"),
    (" [probe on CPU 0]", ["--pin", "0"], [], "the probe pins itself to CPU 0"),
    # The probe pins itself as well: joining the container's cpuset cgroup
    # resets the affinity it inherited from taskset.
    (" [all on CPU 0]", ["--pin", "0"], ["taskset", "-c", "0"],
     "runtime, supervisor and probe on CPU 0"),
]


def parse(out):
    results = {}
    for line in out.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if "ns" in row:
            results[row["op"]] = row["ns"]
    return results


def run(ctx):
    ms = "50" if ctx.quick else "200"
    rounds = ctx.rounds(2, 5)
    listing = proc.run([ctx.probe, "list"], timeout=10).out
    what = {json.loads(l)["op"]: json.loads(l)["what"] for l in listing.splitlines() if l}
    for suffix, probe_flags, prefix, how in VARIANTS:
        ops_flags = ["--ops", PINNED_OPS] if suffix else []
        args = [bundles.PROBE_IN_CONTAINER, "ops", "--ms", ms, *ops_flags, *probe_flags]
        bundle = bundles.Bundle(ctx.path("bundles", "syscalls" + str(len(probe_flags) +
                                                                    len(prefix))),
                                "busybox", ctx.busybox, ctx.probe)
        bundle.write_config(bundles.config(args))
        # Under a file policy and with Docker's profile only unpinned: the
        # pinned variants are about the round trip itself, which uname
        # shows alike.
        extra = [] if suffix else [*ctx.mediated, *ctx.seccomp_peers]
        filtered = None
        if any(rt.seccomp for rt in extra):
            # The same probe with Docker's profile, for the peers that run
            # with it.
            filtered = bundles.Bundle(bundle.path + "-seccomp", "busybox", ctx.busybox, ctx.probe)
            config = bundles.config(args)
            config["linux"]["seccomp"] = next(rt.seccomp for rt in extra if rt.seccomp)
            filtered.write_config(config)
        for _, rt in ctx.interleaved(rounds, [None, *ctx.runtimes, *extra]):
            if rt is None:
                name = "native"
                out = proc.run([*prefix, ctx.probe, *args[1:]], timeout=300)
            else:
                name = rt.name
                cid = ctx.new_id("sc")
                out = rt.run(filtered.path if rt.seccomp else bundle.path, cid, timeout=600,
                             prefix=prefix)
                if out.ok:
                    rt.ids.discard(cid)
                else:
                    rt.delete(cid, force=True)
            results = parse(out.out)
            if not out.ok or not results:
                ctx.problem(NAME, name, f"probe ({how}) failed: " + out.describe())
                continue
            for op, ns in results.items():
                ctx.add(NAME, op + suffix, name, ns, "ns/call", what.get(op, op) + f" ({how})")
        ctx.note(NAME, f"{how}: {rounds} runs of the probe per runtime, each op timed as the "
                       f"median of 5 batches of about {int(ms) // 5} ms.")
