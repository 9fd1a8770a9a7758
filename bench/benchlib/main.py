"""bench/run: every runtime side by side, interleaved, reported as ratios."""

import argparse
import json
import ctypes
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from . import context, proc, report, runtimes
from .workloads import (clients, density, egress, fileio, flood, idle, memory, overhead,
                        profile, python, serve, start, syscalls)

WORKLOADS = {
    "start": start, "python": python, "syscalls": syscalls, "fileio": fileio,
    "memory": memory, "overhead": overhead, "density": density, "clients": clients,
    "profile": profile, "flood": flood, "idle": idle, "egress": egress, "serve": serve,
}
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(HERE)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer rounds, smaller sizes (minutes)")
    p.add_argument("--runtimes", default=",".join(runtimes.ORDER),
                   help="comma-separated subset of vigil,runc,crun,runsc")
    p.add_argument("--workloads",
                   default="start,python,syscalls,fileio,memory,overhead,density,profile,flood,idle,"
                           "egress,serve",
                   help="comma-separated subset of " + ",".join(WORKLOADS))
    p.add_argument("--clients", action="store_true",
                   help="also docker run --rm / ctr run --rm (private daemons; slow)")
    p.add_argument("--build-dir", default=os.environ.get("VIGIL_BUILD_DIR", "build"),
                   help="where vigil and the probe are built (default: build)")
    p.add_argument("--vigil", help="vigil binary (default: BUILD_DIR/cli/vigil)")
    p.add_argument("--results", default=os.path.join(HERE, "results"),
                   help="results folder (default: bench/results)")
    p.add_argument("--no-latest", action="store_true", help="do not update results/latest")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if any workload reported a problem (the CTest smoke run)")
    return p.parse_args(argv)


def build(build_dir, log):
    """Configures if needed and builds vigil and the probe (a no-op when current)."""
    build_dir = os.path.join(REPO, build_dir) if not os.path.isabs(build_dir) else build_dir
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        log(f"configuring {build_dir}")
        subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-G", "Ninja",
                        "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
    log(f"building vigil and the probe in {build_dir}")
    subprocess.run(["cmake", "--build", build_dir, "--target", "vigil", "vigil_bench_syscalls"],
                   check=True, stdout=subprocess.DEVNULL)
    return build_dir


def idle_wakeup_facts():
    """How an idle CPU waits: what decides the cost of waking it (a VM's
    halted vCPU takes tens of microseconds unless the guest polls first)."""
    driver = proc.read("/sys/devices/system/cpu/cpuidle/current_driver").strip() or "none"
    poll_ns = proc.read("/sys/module/haltpoll/parameters/guest_halt_poll_ns").strip()
    if driver == "haltpoll" and poll_ns:
        return f"cpuidle haltpoll, guest_halt_poll_ns={poll_ns}"
    return f"cpuidle {driver}"


def landlock_abi():
    """The Landlock ABI the kernel offers (landlock_create_ruleset with
    LANDLOCK_CREATE_RULESET_VERSION), 0 without Landlock: what the kernel can
    enforce for the sentry moves the mediated figures."""
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(abi, 0)


def machine_facts(rts):
    cpu = ""
    for line in proc.read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = proc.read("/proc/meminfo").splitlines()[0].split()[1]
    return {
        "kernel": platform.release(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gib": round(int(mem) / 1048576, 1),
        "os": proc.read("/etc/debian_version").strip() and
        "Debian " + proc.read("/etc/debian_version").strip(),
        "cgroups": "hybrid (v1 controllers + cgroup2 at /sys/fs/cgroup/unified)"
        if os.path.ismount("/sys/fs/cgroup/unified") else
        ("v2" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") else "v1"),
        "runtimes": {rt.name: rt.version for rt in rts},
        "runsc_flags": next((" ".join(rt.flags) for rt in rts if rt.name == "runsc"), ""),
        "loadavg_start": proc.read("/proc/loadavg").split()[:3],
        "idle": idle_wakeup_facts(),
        "landlock_abi": landlock_abi(),
    }


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        print("bench/run: needs root (it creates containers)", file=sys.stderr)
        return 2
    started = time.time()

    def log(msg):
        print(f"[{time.time() - started:6.1f}s] {msg}", flush=True)

    build_dir = build(args.build_dir, log)
    vigil = args.vigil or os.path.join(build_dir, "cli", "vigil")
    probe = os.path.join(build_dir, "bench", "syscalls", "vigil-bench-syscalls")
    busybox = shutil.which("busybox") or "/bin/busybox"
    if not os.access(busybox, os.X_OK):
        print("bench/run: busybox-static is needed (scripts/install-deps)", file=sys.stderr)
        return 2
    scratch = tempfile.mkdtemp(prefix="vigil-bench-")
    notes = []
    wanted = [w for w in args.runtimes.split(",") if w]
    rts, mountns = runtimes.detect(wanted, scratch, vigil, notes)
    for n in notes:
        log(n)
    vigil_rt = next((rt for rt in rts if rt.name == "vigil"), None)
    mediated = ([runtimes.under_policy(vigil_rt, "agent"), runtimes.on_platform(vigil_rt, "ptrace")]
                if vigil_rt else [])
    seccomp_peers = [runtimes.with_docker_seccomp(rt) for rt in rts if rt.name in ("vigil", "runc")]
    ctx = context.Context(rts, scratch, args.quick, probe, busybox, log, mediated, seccomp_peers)
    ctx.skipped = notes
    facts = machine_facts(rts)
    workloads = [w for w in args.workloads.split(",") if w]
    if args.clients and "clients" not in workloads:
        workloads.append("clients")
    try:
        for name in workloads:
            if name not in WORKLOADS:
                log(f"unknown workload {name}; skipped")
                continue
            log(f"workload {name} ({', '.join(rt.name for rt in rts)})")
            t = time.time()
            try:
                WORKLOADS[name].run(ctx)
            except Exception as e:  # a broken workload must not lose the others
                import traceback
                ctx.problem(WORKLOADS[name].NAME, "driver", f"{type(e).__name__}: {e}")
                traceback.print_exc()
            ctx.note(WORKLOADS[name].NAME, f"took {time.time() - t:.0f} s of wall time.")
    except KeyboardInterrupt:
        log("interrupted: reporting what was measured")
    finally:
        log("cleaning up every container and helper")
        for rt in rts + mediated:
            rt.cleanup()
        if mountns:
            mountns.close()
        shutil.rmtree(scratch, ignore_errors=True)
    facts["loadavg_end"] = proc.read("/proc/loadavg").split()[:3]
    facts["duration_s"] = round(time.time() - started)
    facts["mode"] = "quick" if args.quick else "full"
    stamp = context.now_stamp()
    out_dir = os.path.join(args.results, stamp)
    os.makedirs(out_dir)
    data = {"facts": facts, "samples": ctx.samples, "problems": ctx.problems,
            "notes": ctx.notes, "skipped": notes,
            "command": "bench/run " + " ".join(argv), "stamp": stamp,
            "density_count": getattr(ctx, "density_count", None),
            "profile": getattr(ctx, "profile", [])}
    with open(os.path.join(out_dir, "samples.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    report.write(out_dir, data)
    if not args.no_latest:
        latest = os.path.join(args.results, "latest")
        shutil.rmtree(latest, ignore_errors=True)
        shutil.copytree(out_dir, latest)
    log(f"report: {os.path.join(out_dir, 'report.md')}")
    if args.strict and ctx.problems:
        log(f"{len(ctx.problems)} problem(s), see the report")
        return 1
    return 0
