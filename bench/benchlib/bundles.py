"""OCI bundles: a busybox rootfs (as tests/integration/runtime_harness.h builds
it) plus the probe, or an empty rootfs with the host's /usr, /lib, /lib64 and
/bin bind-mounted read-only for Python; config.json as `runc spec` writes it
(terminal off, read-only root) with a tmpfs on /tmp."""

import json
import os
import shutil
import subprocess

PROBE_IN_CONTAINER = "/bench/vigil-bench-syscalls"
# The config.json every harness starts from (tests/bundle/README.md).
RUNC_SPEC = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "bundle", "runc_spec.json")


def runc_spec():
    with open(RUNC_SPEC) as f:
        return json.load(f)


PATH_ENV = runc_spec()["process"]["env"][0]


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
    cfg = runc_spec()
    process = cfg["process"]
    process["args"] = list(args)
    process["env"] = [PATH_ENV, "HOME=/tmp", *env]
    process["cwd"] = cwd
    cfg["hostname"] = "bench"
    cfg["mounts"] += [
        {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "nodev", "mode=1777", f"size={tmpfs_size}"]},
        *extra_mounts,
    ]
    # No device rules of the harness's own: the runtime's defaults.
    cfg["linux"]["resources"] = {}
    return cfg


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
