"""Workload: idle sandboxes (issue 26). A Python sandbox holding a 200 MB
heap waits for requests on a unix socket; it is paused (vigil: `pause
--release-memory`; runc: `pause`, which only freezes), and what its cgroup
keeps in RAM then is compared with what it held running. Then `resume` and
the first answer to a request (one that touches little of the heap: the
next tool call of an agent), timed together. Last, many small idle Python
sandboxes paused at once: their total resident memory.

The workload makes a swap file of its own for the while (and removes it):
without swap only page cache can leave RAM, which the report then says."""

import os
import socket
import subprocess
import time

from . import sandboxes
from .. import bundles, proc

NAME = "idle"
HEAP_MB = 200
SWAP_BYTES = 3 << 30
# The workload: a heap of HEAP_MB random-ish bytes (one page in 16 written
# with os.urandom, so it is not all one page the kernel could share), then
# an answer "ok N" per request line on /out/sock.
SERVER = r"""
import os, socket, sys
heap = bytearray(HEAP_MB << 20)
for i in range(0, len(heap), 65536):
    heap[i:i + 4096] = os.urandom(4096)
s = socket.socket(socket.AF_UNIX)
s.bind('/out/sock.tmp'); os.rename('/out/sock.tmp', '/out/sock'); s.listen(8)
while True:
    c, _ = s.accept()
    with c:
        for line in c.makefile():
            c.sendall(b'ok %d\n' % heap[int(line) % len(heap)])
"""
# A small idle interpreter: what a warm pool keeps.
SMALL = "import json, csv, decimal, statistics; import time; time.sleep(100000)"


def cgroup_memory_bytes(pid):
    """memory.usage_in_bytes (v1) or memory.current (v2) of `pid`'s cgroup."""
    for line in proc.read(f"/proc/{pid}/cgroup").splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            value = proc.read(f"/sys/fs/cgroup/memory{path}/memory.usage_in_bytes").strip()
            return int(value) if value else None
        if controllers == "":
            value = proc.read(f"/sys/fs/cgroup{path}/memory.current").strip()
            if value:
                return int(value)
    return None


class SwapFile:
    """A swap file for the workload's while; `error` says why there is none."""

    def __init__(self, path):
        self.path, self.on, self.error = path, False, ""
        try:
            with open(path, "wb") as f:
                os.posix_fallocate(f.fileno(), 0, SWAP_BYTES)
            subprocess.run(["mkswap", path], check=True, capture_output=True)
            subprocess.run(["swapon", path], check=True, capture_output=True, text=True)
            self.on = True
        except (OSError, subprocess.CalledProcessError) as e:
            self.error = getattr(e, "stderr", "") or str(e)

    def close(self):
        if self.on:
            subprocess.run(["swapoff", self.path], capture_output=True)
        if os.path.exists(self.path):
            os.unlink(self.path)


def ask(path, timeout=30.0):
    """Connects to the server's socket and asks once; the answer or None."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(timeout)
                s.connect(path)
                s.sendall(b"12345\n")
                return s.makefile().readline()
        except OSError:
            time.sleep(0.02)
    return None


def pause_args(rt):
    return ["pause", "--release-memory"] if rt.name.startswith("vigil") else ["pause"]


def heap_round(ctx, rt, python_bundle_dir):
    out_dir = ctx.path("idle-out", ctx.new_id("o"))
    os.makedirs(out_dir)
    bundle = bundles.Bundle(os.path.join(python_bundle_dir, os.path.basename(out_dir)), "host")
    bundle.write_config(bundles.config(
        ["/usr/bin/python3", "-c", SERVER.replace("HEAP_MB", str(HEAP_MB))],
        extra_mounts=[*bundles.host_binds(), bundles.bind(out_dir, "/out")]))
    started = sandboxes.start_container(ctx, rt, bundle, NAME)
    if not started:
        return
    cid, pid = started
    sock = os.path.join(out_dir, "sock")
    if ask(sock, timeout=60) is None:
        ctx.problem(NAME, rt.name, "the server never answered")
        rt.delete(cid, force=True)
        return
    running = cgroup_memory_bytes(pid)
    paused = rt.cmd(*pause_args(rt), cid)
    if not paused.ok:
        ctx.problem(NAME, rt.name, "pause failed: " + paused.describe())
        rt.delete(cid, force=True)
        return
    resident = cgroup_memory_bytes(pid)
    clock = time.perf_counter()
    resumed = rt.cmd("resume", cid)
    answer = ask(sock) if resumed.ok else None
    elapsed = time.perf_counter() - clock
    if running and resident is not None:
        ctx.add(NAME, f"paused resident memory ({HEAP_MB} MB Python)", rt.name,
                100.0 * resident / running, "% of running",
                "the cgroup's memory usage while paused, % of it while running")
    if answer:
        ctx.add(NAME, f"resume to first answer ({HEAP_MB} MB Python)", rt.name, elapsed * 1e3,
                "ms", "`resume` and one request over the sandbox's unix socket")
    else:
        ctx.problem(NAME, rt.name, "no answer after resume: " + resumed.describe())
    rt.delete(cid, force=True)


def pool_round(ctx, rt, count, bundle):
    """`count` small Python sandboxes, all paused: their total resident memory."""
    cids, pids = [], []
    for _ in range(count):
        started = sandboxes.start_container(ctx, rt, bundle, NAME)
        if started:
            cids.append(started[0])
            pids.append(started[1])
    time.sleep(3)  # the imports done
    for cid in cids:
        rt.cmd(*pause_args(rt), cid)
    total = sum(cgroup_memory_bytes(p) or 0 for p in pids)
    ctx.add(NAME, f"{count} paused Python sandboxes: resident total", rt.name, total / (1 << 20),
            "MiB", "the cgroups' memory usage summed, every sandbox paused")
    for cid in cids:
        rt.delete(cid, force=True)


def run(ctx):
    if not os.access("/usr/bin/python3", os.X_OK):
        ctx.problem(NAME, "all", "/usr/bin/python3 not installed; skipped")
        return
    runtimes = [rt for rt in ctx.runtimes if rt.name in ("vigil", "runc")]
    swap = SwapFile(ctx.path("idle-swapfile"))
    if not swap.on:
        ctx.problem(NAME, "all", "no swap file (" + swap.error.strip() + "): only page cache "
                    "can leave RAM, so a paused heap stays resident")
    try:
        python_dir = ctx.path("bundles", "idle")
        os.makedirs(python_dir, exist_ok=True)
        for _, rt in ctx.interleaved(ctx.rounds(1, 3), runtimes):
            heap_round(ctx, rt, python_dir)
        count = 10 if ctx.quick else 50
        small = bundles.Bundle(ctx.path("bundles", "idle-small"), "host")
        small.write_config(bundles.config(["/usr/bin/python3", "-c", SMALL],
                                          extra_mounts=bundles.host_binds()))
        for _, rt in ctx.interleaved(1, runtimes):
            pool_round(ctx, rt, count, small)
    finally:
        swap.close()
    ctx.note(NAME, f"swap: {'a ' + str(SWAP_BYTES >> 30) + ' GiB file made for the workload' if swap.on else 'none'}; "
                   "vigil pauses with --release-memory, runc's pause freezes only.")
