"""Shared by the memory and density workloads: sandboxes running `sleep`, and
the host processes that belong to each."""

import os

from .. import proc


def start_container(ctx, rt, bundle, tag):
    """create + start of a container of `bundle`; (cid, pid from --pid-file:
    the container's init) or None, the problem recorded."""
    cid = ctx.new_id(tag)
    pid_file = ctx.path("pids", cid)
    out = rt.create(bundle.path, cid, pid_file)
    if out.ok:
        out = rt.start(cid)
    if not out.ok:
        ctx.problem(tag, rt.name, "create/start failed: " + out.describe())
        rt.delete(cid, force=True)
        return None
    pid = int(proc.read(pid_file, "0") or 0)
    os.unlink(pid_file)
    return cid, pid


def sandbox_processes(rt, pid, pid_to_cmdline=None):
    """(runtime pids, workload pids) of one sandbox: the pid the runtime
    reported, processes whose command line names this runtime's --root
    (runsc's sandbox and gofer), and all their descendants. The workload is
    whatever runs the bundle's busybox; everything else is the runtime's."""
    roots = {pid} if pid > 0 else set()
    for p, cl in (pid_to_cmdline or {}).items():
        if rt.root in cl:
            roots.add(p)
    runtime, workload = set(), set()
    for p in proc.descendants(roots):
        (workload if proc.exe(p).endswith("/busybox") else runtime).add(p)
    return runtime, workload


def cmdlines():
    return {p: " ".join(proc.cmdline(p)) for p in proc.all_pids()}


def pss_kib(pids):
    return sum(proc.memory_kib(p)[0] for p in pids)
