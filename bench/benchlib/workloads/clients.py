"""Workload 7 (--clients): `docker run --rm` and `ctr run --rm` of /bin/true
with each runtime, through a private dockerd and a private containerd started
the way tests/clients/docker.sh and containerd.sh start them (state in a
temporary directory, no bridge, no iptables, no registry, no CNI). The image
is the busybox tar tests/clients/make_image.py builds. crun and runsc are
reached through small wrapper scripts: crun's runs it in a new private mount
namespace without the cgroup2 mount (one unshare + sh + umount per runtime
call, which its numbers include), runsc's adds its flags."""

import os
import shutil
import subprocess
import time

from .. import proc

NAME = "clients"
IMAGE = "localhost/vigil-bench-busybox:latest"
HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_IMAGE = os.path.join(HERE, "..", "..", "..", "tests", "clients", "make_image.py")


def wrappers(ctx, tmp):
    """name -> binary path the clients are given for each runtime."""
    paths = {}
    for rt in ctx.runtimes:
        if rt.name == "crun" and rt.mountns:
            path = os.path.join(tmp, "crun-wrapper")
            # A fresh private mount namespace per call, so the rootfs the
            # daemon has just mounted is there (host mounts do not propagate).
            script = ("#!/bin/sh\nexec unshare -m --propagation private -- sh -c "
                      "'umount /sys/fs/cgroup/unified 2>/dev/null; exec \"$0\" \"$@\"' "
                      f'{rt.binary} "$@"\n')
        elif rt.flags:
            path = os.path.join(tmp, f"{rt.name}-wrapper")
            script = f'#!/bin/sh\nexec {rt.binary} {" ".join(rt.flags)} "$@"\n'
        else:
            paths[rt.name] = rt.binary
            continue
        with open(path, "w") as f:
            f.write(script)
        os.chmod(path, 0o755)
        paths[rt.name] = path
    return paths


def wait_for(check, daemon, seconds=40):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        if daemon.poll() is not None:
            return False
        time.sleep(0.2)
    return False


def stop(daemon):
    if daemon and daemon.poll() is None:
        daemon.terminate()
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill_group(daemon.pid)
            daemon.wait()


def umount_under(tmp):
    targets = [line.split()[4] for line in proc.read("/proc/self/mountinfo").splitlines()
               if line.split()[4].startswith(tmp + "/")]
    for t in sorted(targets, reverse=True):
        subprocess.run(["umount", "-l", t], stderr=subprocess.DEVNULL)


def run(ctx):
    tmp = ctx.path("clients", "x")[:-2]
    os.makedirs(tmp, exist_ok=True)
    paths = wrappers(ctx, tmp)
    image = os.path.join(tmp, "image.tar")
    out = proc.run(["python3", MAKE_IMAGE, IMAGE, image, ctx.busybox], timeout=60)
    if not out.ok:
        ctx.problem(NAME, "all", "make_image.py failed: " + out.describe())
        return
    rounds = ctx.rounds(2, 5)
    for client in (docker, ctr):
        try:
            client(ctx, tmp, paths, image, rounds)
        finally:
            umount_under(tmp)
    ctx.note(NAME, f"{rounds} rounds per runtime and client.")


def docker(ctx, tmp, paths, image, rounds):
    dockerd, cli = shutil.which("dockerd"), "/usr/bin/docker"
    if not dockerd or not os.access(cli, os.X_OK):
        ctx.problem(NAME, "docker", "dockerd or /usr/bin/docker not installed; skipped")
        return
    d = os.path.join(tmp, "docker")
    os.makedirs(d)
    sock = os.path.join(d, "docker.sock")
    runtimes = {f"bench-{n}": {"path": p} for n, p in paths.items()}
    import json
    with open(os.path.join(d, "daemon.json"), "w") as f:
        json.dump({"bridge": "none", "iptables": False, "ip6tables": False,
                   "ip-forward": False, "ip-masq": False, "userland-proxy": False,
                   "exec-opts": ["native.cgroupdriver=cgroupfs"], "storage-driver": "overlay2",
                   "runtimes": runtimes}, f)
    log = open(os.path.join(d, "dockerd.log"), "w")
    daemon = subprocess.Popen([dockerd, "--config-file", os.path.join(d, "daemon.json"),
                               "--data-root", os.path.join(d, "data"), "--exec-root",
                               os.path.join(d, "exec"), "--pidfile", os.path.join(d, "pid"),
                               "-H", f"unix://{sock}"], stdout=log, stderr=log,
                              stdin=subprocess.DEVNULL, start_new_session=True)

    def dk(*args, timeout=120):
        return proc.run([cli, "-H", f"unix://{sock}", *args], timeout=timeout)

    containerd_pid = None
    try:
        if not wait_for(lambda: dk("version", timeout=10).ok, daemon):
            ctx.problem(NAME, "docker", "private dockerd did not start: " +
                        proc.read(os.path.join(d, "dockerd.log"))[-400:])
            return
        containerd_pid = proc.read(os.path.join(d, "exec", "containerd", "containerd.pid"))
        out = dk("load", "-i", image)
        if not out.ok:
            ctx.problem(NAME, "docker", "docker load failed: " + out.describe())
            return
        for _, rt in ctx.interleaved(rounds):
            out = dk("run", "--rm", f"--runtime=bench-{rt.name}", "--network", "none", IMAGE,
                     "/bin/true")
            if not out.ok:
                ctx.problem(NAME, rt.name, "docker run --rm failed: " + out.describe())
                continue
            ctx.add(NAME, "docker run --rm /bin/true", rt.name, out.seconds * 1e3, "ms",
                    "`docker run --rm --network none` through a private dockerd")
    finally:
        ids = dk("ps", "-aq", timeout=30).out.split() if daemon.poll() is None else []
        if ids:
            dk("rm", "-f", *ids, timeout=60)
        stop(daemon)
        if containerd_pid and containerd_pid.strip().isdigit():
            proc.kill_group(int(containerd_pid))
        for p in proc.all_pids():
            if d in " ".join(proc.cmdline(p)):
                proc.kill_group(p)
        log.close()
        for h in ("cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "pids",
                  "systemd", "unified"):
            # dockerd's parent cgroup, left empty; only removed when empty.
            try:
                os.rmdir(f"/sys/fs/cgroup/{h}/docker")
            except OSError:
                pass


def ctr(ctx, tmp, paths, image, rounds):
    containerd, ctr_bin = shutil.which("containerd"), shutil.which("ctr")
    if not containerd or not ctr_bin:
        ctx.problem(NAME, "ctr", "containerd or ctr not installed; skipped")
        return
    d = os.path.join(tmp, "ctrd")
    os.makedirs(os.path.join(d, "fifo"))
    sock = os.path.join(d, "containerd.sock")
    ns = f"vigil-bench-{os.getpid()}"
    with open(os.path.join(d, "config.toml"), "w") as f:
        f.write(f'''version = 2
root = "{d}/root"
state = "{d}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "{sock}"
[ttrpc]
  address = "{sock}.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "{d}/opt"
''')
    log = open(os.path.join(d, "containerd.log"), "w")
    daemon = subprocess.Popen([containerd, "--config", os.path.join(d, "config.toml")],
                              stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                              start_new_session=True)

    def c(*args, timeout=60):
        return proc.run([ctr_bin, "-a", sock, "-n", ns, *args], timeout=timeout)

    try:
        if not wait_for(lambda: c("version", timeout=10).ok, daemon):
            ctx.problem(NAME, "ctr", "private containerd did not start")
            return
        out = c("image", "import", image, timeout=120)
        if not out.ok:
            ctx.problem(NAME, "ctr", "ctr image import failed: " + out.describe())
            return
        for _, rt in ctx.interleaved(rounds):
            cid = ctx.new_id("ctr")
            root = os.path.join(d, "runc-root", rt.name)
            os.makedirs(root, exist_ok=True)
            out = c("run", "--rm", "--runc-binary", paths[rt.name], "--runc-root", root,
                    "--fifo-dir", os.path.join(d, "fifo"), IMAGE, cid, "/bin/true",
                    timeout=120)
            if not out.ok:
                ctx.problem(NAME, rt.name, "ctr run --rm failed: " + out.describe())
                c("task", "delete", "-f", cid)
                c("container", "delete", cid)
                continue
            ctx.add(NAME, "ctr run --rm /bin/true", rt.name, out.seconds * 1e3, "ms",
                    "`ctr run --rm --runc-binary RUNTIME` through a private containerd")
    finally:
        if daemon.poll() is None:
            for tid in c("task", "ls", "-q", timeout=10).out.split():
                c("task", "kill", "-a", "-s", "SIGKILL", tid, timeout=10)
                c("task", "delete", "-f", tid, timeout=10)
            for cid in c("container", "ls", "-q", timeout=10).out.split():
                c("container", "delete", cid, timeout=10)
        stop(daemon)
        for p in proc.all_pids():
            if sock in proc.cmdline(p) or d in " ".join(proc.cmdline(p)):
                proc.kill_group(p)
        log.close()
        for base in ["/sys/fs/cgroup"] + [f"/sys/fs/cgroup/{h}" for h in os.listdir(
                "/sys/fs/cgroup")]:
            path = os.path.join(base, ns)
            if os.path.isdir(path):
                subprocess.run(["find", path, "-depth", "-type", "d", "-exec", "rmdir", "{}", "+"],
                               stderr=subprocess.DEVNULL)
