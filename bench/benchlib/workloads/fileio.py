"""Workload 4: sequential file I/O throughput from inside the container, on
its tmpfs /tmp and on a host directory bind-mounted at /data, in 4 KiB and
1 MiB blocks (write a file, read it back; page cache, no fsync). The host
runs the probe on /dev/shm and on the same host directory as the baseline."""

import json
import os
import shutil

from .. import bundles, proc

NAME = "file I/O"
BLOCKS = [("4 KiB", 4096), ("1 MiB", 1 << 20)]


def run(ctx):
    mib = 16 if ctx.quick else 64
    rounds = ctx.rounds(2, 5)
    host_dir = ctx.path("fileio-host", "x")[:-2]
    os.makedirs(host_dir, exist_ok=True)
    fs_type = proc.run(["stat", "-f", "-c", "%T", host_dir], timeout=10).out.strip()
    native_tmpfs = os.path.join("/dev/shm", os.path.basename(ctx.scratch) + "-io")
    os.makedirs(native_tmpfs, exist_ok=True)
    probe = bundles.PROBE_IN_CONTAINER
    steps = []
    for where, dir_in, dir_native in (("tmpfs", "/tmp", native_tmpfs),
                                      (f"bind ({fs_type})", "/data", host_dir)):
        for label, block in BLOCKS:
            steps.append((where, label, dir_in, dir_native, block))
    script = " && ".join(f"{probe} io --dir {d} --block {b} --mib {mib}"
                         for _, _, d, _, b in steps)
    bundle = bundles.Bundle(ctx.path("bundles", "fileio"), "busybox", ctx.busybox, ctx.probe)
    bundle.write_config(bundles.config(["/bin/sh", "-c", script], tmpfs_size="256m",
                                       extra_mounts=[bundles.bind(host_dir, "/data")]))
    for _, rt in ctx.interleaved(rounds, [None, *ctx.runtimes]):
        if rt is None:
            name = "native"
            lines, ok, err = [], True, ""
            for _, _, _, d, b in steps:
                out = proc.run([ctx.probe, "io", "--dir", d, "--block", str(b), "--mib",
                                str(mib)], timeout=300)
                ok, err = ok and out.ok, err + out.describe()
                lines.append(out.out.strip())
        else:
            name = rt.name
            cid = ctx.new_id("io")
            out = rt.run(bundle.path, cid, timeout=600)
            ok, err = out.ok, out.describe()
            lines = out.out.strip().splitlines()
            if ok:
                rt.ids.discard(cid)
            else:
                rt.delete(cid, force=True)
        if not ok or len(lines) != len(steps):
            ctx.problem(NAME, name, "probe failed: " + err)
            continue
        for (where, label, _, _, _), line in zip(steps, lines):
            row = json.loads(line)
            for op in ("write", "read"):
                ctx.add(NAME, f"{op} {label} on {where}", name, row[f"{op}_mib_s"], "MiB/s",
                        f"sequential {op} of a {mib} MiB file in {label} blocks",
                        better="higher")
    ctx.note(NAME, f"{rounds} rounds of a {mib} MiB file per case; the bind-mounted host "
                   f"directory is on {fs_type}; the native tmpfs case uses /dev/shm.")
    shutil.rmtree(native_tmpfs, ignore_errors=True)
