"""OCI bundles: a busybox rootfs (as tests/integration/runtime_harness.h builds
it) plus the probe, or an empty rootfs with the host's /usr, /lib, /lib64 and
/bin bind-mounted read-only for Python; config.json as `runc spec` writes it
(terminal off, read-only root) with a tmpfs on /tmp."""

import json
import os
import shutil
import subprocess

PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PROBE_IN_CONTAINER = "/bench/vigil-bench-syscalls"
CAPS = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]


def busybox_rootfs(rootfs, busybox, probe):
    os.makedirs(os.path.join(rootfs, "bin"))
    for d in ("proc", "dev", "sys", "tmp", "etc", "bench", "data"):
        os.makedirs(os.path.join(rootfs, d), exist_ok=True)
    shutil.copy2(busybox, os.path.join(rootfs, "bin", "busybox"))
    applets = subprocess.run([busybox, "--list"], capture_output=True, text=True,
                             check=True).stdout.split()
    for applet in applets:
        if applet != "busybox":
            os.symlink("busybox", os.path.join(rootfs, "bin", applet))
    if probe:
        shutil.copy2(probe, os.path.join(rootfs, PROBE_IN_CONTAINER.lstrip("/")))
    with open(os.path.join(rootfs, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/:/bin/sh\n")


def host_rootfs(rootfs):
    """Mount points only: the host's directories are bind-mounted over them."""
    for d in ("usr", "lib", "lib64", "bin", "proc", "dev", "sys", "tmp", "etc"):
        os.makedirs(os.path.join(rootfs, d), exist_ok=True)


def host_binds():
    mounts = []
    for d in ("/usr", "/lib", "/lib64", "/bin"):
        if os.path.exists(d):
            mounts.append({"destination": d, "type": "bind", "source": os.path.realpath(d),
                           "options": ["rbind", "ro", "nosuid", "nodev"]})
    return mounts


def bind(source, destination, readonly=False):
    return {"destination": destination, "type": "bind", "source": source,
            "options": ["rbind", "ro" if readonly else "rw", "nosuid", "nodev"]}


def config(args, extra_mounts=(), tmpfs_size="512m", env=(), cwd="/"):
    mounts = [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
         "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
         "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
         "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs",
         "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "nodev", "mode=1777", f"size={tmpfs_size}"]},
    ]
    mounts.extend(extra_mounts)
    return {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False,
            "user": {"uid": 0, "gid": 0},
            "args": list(args),
            "env": [PATH_ENV, "HOME=/tmp", *env],
            "cwd": cwd,
            "capabilities": {k: CAPS for k in ("bounding", "effective", "permitted")},
            "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
            "noNewPrivileges": True,
        },
        "root": {"path": "rootfs", "readonly": True},
        "hostname": "bench",
        "mounts": mounts,
        "linux": {
            "resources": {},
            "namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")],
            "maskedPaths": ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
                            "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
                            "/proc/sched_debug", "/sys/firmware", "/proc/scsi"],
            "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                              "/proc/sysrq-trigger"],
        },
    }


class Bundle:
    """A bundle directory whose rootfs is built once; config.json rewritten per use."""

    def __init__(self, path, rootfs_kind, busybox=None, probe=None):
        self.path = path
        os.makedirs(path)
        rootfs = os.path.join(path, "rootfs")
        if rootfs_kind == "busybox":
            busybox_rootfs(rootfs, busybox, probe)
        else:
            host_rootfs(rootfs)

    def write_config(self, cfg):
        with open(os.path.join(self.path, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
