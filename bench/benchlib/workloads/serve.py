"""Workload: `vigil serve`, the code-execution service, with its sandboxes
made by vigil and by runc behind the same service code (`vigil serve
--runtime runc`: the same templates, kernel, HTTP API and client; runc's
sandboxes have no sentry, policy or audit). Measured through the Python
client over the unix socket, as a user's program sees it: the first
run_code answer of a new sandbox from the warm pool and from cold, a
print(1) round trip on a live sandbox, and the memory a paused sandbox
holds (vigil's pause gives it back to swap; runc's freezes only)."""

import json
import os
import signal
import statistics
import subprocess
import sys
import time

from .. import proc
from .idle import SwapFile, cgroup_memory_bytes

NAME = "serve"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "client", "python"))
from vigil_sandbox import Sandbox  # noqa: E402

POOL = 3
TEMPLATES = {"templates": {
    "python": {"pool": 0},
    "warm": {"pool": POOL, "idlePause": "10m"},
    "cold": {"pool": 0, "idlePause": "10m"},
    "idle": {"pool": 0, "idlePause": "1s"},
}}


class Server:
    """One `vigil serve` whose sandboxes `rt` makes, on a root of its own."""

    def __init__(self, ctx, vigil, rt):
        self.rt = rt
        self.root = ctx.path("serve-" + rt.name, "root")
        self.socket = ctx.path("serve-" + rt.name, "serve.sock")
        config = ctx.path("serve-" + rt.name, "templates.json")
        with open(config, "w") as f:
            json.dump(TEMPLATES, f)
        argv = [vigil, "--root", self.root, "serve", "--socket", self.socket, "--config", config]
        if rt.name != "vigil":
            # The runtime's own flags after --root, as the service passes it.
            wrapper = ctx.path("serve-" + rt.name, "runtime")
            with open(wrapper, "w") as f:
                f.write('#!/bin/bash\nexec %s "$1" "$2" %s "${@:3}"\n'
                        % (rt.binary, " ".join(rt.flags)))
            os.chmod(wrapper, 0o755)
            argv += ["--runtime", wrapper]
        self.log = open(ctx.path("serve-" + rt.name, "serve.log"), "wb")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=self.log)
        self.url = "unix://" + self.socket

    def bundles(self):
        path = os.path.join(self.root, ".serve", "sandboxes")
        return os.listdir(path) if os.path.isdir(path) else []

    def wait_for_pool(self, live=0, timeout=120):
        """Until the warm pool is full again (`live` sandboxes besides it)."""
        deadline = time.monotonic() + timeout
        while len(self.bundles()) < POOL + live:
            if self.process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        time.sleep(0.2)  # the last one's start done with
        return True

    def status(self, sandbox_id):
        out = proc.run([self.rt.binary, "--root", self.root, *self.rt.flags, "state", sandbox_id],
                       timeout=20)
        try:
            return json.loads(out.out)["status"] if out.ok else None
        except (ValueError, KeyError):
            return None

    def kernel_pid(self, sandbox_id):
        path = os.path.join(self.root, ".serve", "sandboxes", sandbox_id, "pid")
        return int(proc.read(path, "0") or 0)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(120)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def first_answer(server, template):
    """ms from asking for a sandbox to the first run_code's answer."""
    started = time.perf_counter()
    sandbox = Sandbox(template=template, url=server.url)
    execution = sandbox.run_code("1")
    elapsed = (time.perf_counter() - started) * 1e3
    sandbox.kill()
    return elapsed if execution.text == "1" else None


def round_trips(server, count):
    """Each print(1)'s round trip on one live sandbox, in ms."""
    with Sandbox(template="cold", url=server.url) as sandbox:
        sandbox.run_code("print(0)")
        times = []
        for _ in range(count):
            started = time.perf_counter()
            sandbox.run_code("print(1)")
            times.append((time.perf_counter() - started) * 1e3)
    return times


def paused_bytes(ctx, server, count):
    """Each paused sandbox's memory (its cgroup's), `count` sandboxes that
    imported a few modules and went idle."""
    sandboxes = [Sandbox(template="idle", url=server.url) for _ in range(count)]
    try:
        for sandbox in sandboxes:
            sandbox.run_code("import json, csv, decimal, statistics\nrows = list(range(100000))")
        held = []
        for sandbox in sandboxes:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if server.status(sandbox.sandbox_id) == "paused":
                    break
                time.sleep(0.2)
            else:
                ctx.problem(NAME, server.rt.name, "a sandbox did not pause when idle")
                return []
            held.append(cgroup_memory_bytes(server.kernel_pid(sandbox.sandbox_id)) or 0)
        return held
    finally:
        for sandbox in sandboxes:
            sandbox.kill()


def run(ctx):
    if not os.access("/usr/bin/python3", os.X_OK):
        ctx.problem(NAME, "all", "/usr/bin/python3 not installed; skipped")
        return
    vigil = next((rt.binary for rt in ctx.runtimes if rt.name == "vigil"), None)
    runtimes = [rt for rt in ctx.runtimes if rt.name in ("vigil", "runc")]
    if vigil is None:
        ctx.problem(NAME, "all", "vigil is not among the runtimes; skipped")
        return
    servers = []
    swap = SwapFile(ctx.path("serve-swapfile"))
    try:
        servers = [Server(ctx, vigil, rt) for rt in runtimes]
        for server in servers:
            if not server.wait_for_pool():
                ctx.problem(NAME, server.rt.name, "the service did not fill its pool: "
                            + proc.read(server.log.name)[-300:])
        live = [s for s in servers if s.process.poll() is None]
        for _, server in ctx.interleaved(ctx.rounds(5, 20), live):
            server.wait_for_pool()
            for other in live:
                other.wait_for_pool()
            ms = first_answer(server, "warm")
            if ms is not None:
                ctx.add(NAME, "first run_code answer, warm pool", server.rt.name, ms, "ms",
                        "POST /sandboxes from the pool, then run_code('1'), through the client")
        for _, server in ctx.interleaved(ctx.rounds(3, 10), live):
            for other in live:
                other.wait_for_pool()
            ms = first_answer(server, "cold")
            if ms is not None:
                ctx.add(NAME, "first run_code answer, cold", server.rt.name, ms, "ms",
                        "a new sandbox made for the request (create, start, Python), then "
                        "run_code('1')")
        for _, server in ctx.interleaved(ctx.rounds(1, 3), live):
            times = round_trips(server, ctx.rounds(100, 300))
            ctx.add(NAME, "print(1) round trip", server.rt.name, statistics.median(times), "ms",
                    "run_code('print(1)') on a live sandbox, median of each round's calls")
        count = ctx.rounds(4, 10)
        for _, server in ctx.interleaved(1, live):
            held = paused_bytes(ctx, server, count)
            if held:
                mean = statistics.mean(held)
                ctx.add(NAME, "paused sandbox: memory held", server.rt.name, mean / (1 << 20),
                        "MiB", f"its cgroup's memory, idle and paused, mean of {count}")
                ctx.add(NAME, "paused sandboxes per GiB", server.rt.name, (1 << 30) / mean,
                        "sandboxes", "1 GiB / the memory a paused sandbox holds",
                        better="higher")
    finally:
        for server in servers:
            server.stop()
        swap.close()
    ctx.note(NAME, "Both columns are the same service (vigil serve), templates, kernel and "
                   "client; `runc` is `vigil serve --runtime runc`: no sentry, policy or audit. "
                   f"Swap: {'a file made for the workload' if swap.on else 'none: ' + swap.error.strip()}.")
