"""The runtimes under comparison, each with a private --root, and the
host-specific workarounds the issue names (crun: cgroup2 hidden in a mount
namespace of its own; runsc: --network=none --ignore-cgroups, ptrace)."""

import ctypes
import os
import shutil
import subprocess

from . import proc

CLONE_NEWNS = 0x00020000
ORDER = ["vigil", "runc", "crun", "runsc"]


class MountNamespace:
    """A mount namespace, held by a sleeping process, in which the cgroup2 mount
    is gone: crun 1.8 refuses this host's hybrid cgroups otherwise. Slave
    propagation, so mounts made on the host later (containerd's rootfs) show."""

    def __init__(self):
        self.holder = subprocess.Popen(
            ["unshare", "-m", "--propagation", "slave", "--", "sh", "-c",
             "umount /sys/fs/cgroup/unified 2>/dev/null; echo ready; exec sleep infinity"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        self.holder.stdout.readline()
        self.path = f"/proc/{self.holder.pid}/ns/mnt"
        self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)

    def enter(self):
        """preexec_fn: joins the namespace in the forked child before exec."""
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(self.fd, CLONE_NEWNS) != 0:
            os._exit(125)

    def close(self):
        os.close(self.fd)
        self.holder.kill()
        self.holder.wait()


class Runtime:
    def __init__(self, name, binary, root, flags=(), mountns=None, version=""):
        self.name = name
        self.binary = binary
        self.root = root
        self.flags = list(flags)
        self.mountns = mountns
        self.version = version
        self.ids = set()  # every container id this run may have left behind
        self.seccomp = None  # linux.seccomp for its bundles (with_docker_seccomp)

    def argv(self, *args):
        return [self.binary, "--root", self.root, *self.flags, *args]

    def preexec(self):
        return self.mountns.enter if self.mountns else None

    def cmd(self, *args, timeout=60.0, prefix=()):
        return proc.run([*prefix, *self.argv(*args)], timeout=timeout, preexec=self.preexec())

    # The OCI verbs, each returning an Outcome (with its wall time).
    def run(self, bundle, cid, timeout=120.0, prefix=()):
        self.ids.add(cid)
        return self.cmd("run", "--bundle", bundle, cid, timeout=timeout, prefix=prefix)

    def create(self, bundle, cid, pid_file, timeout=60.0):
        self.ids.add(cid)
        return self.cmd("create", "--bundle", bundle, "--pid-file", pid_file, cid,
                        timeout=timeout)

    def start(self, cid):
        return self.cmd("start", cid)

    def delete(self, cid, force=False):
        out = self.cmd("delete", *(["--force"] if force else []), cid)
        if out.ok:
            self.ids.discard(cid)
        return out

    def state(self, cid):
        import json
        out = self.cmd("state", cid, timeout=20)
        try:
            return json.loads(out.out) if out.ok else None
        except ValueError:
            return None

    def cleanup(self):
        """delete --force of every container left, then whatever still names our root."""
        for cid in sorted(self.ids):
            self.delete(cid, force=True)
        for pid in proc.all_pids():
            if pid != os.getpid() and self.root in proc.cmdline(pid):
                proc.kill_group(pid)


def under_policy(vigil, policy):
    """vigil again, with every container under the sentry policy `policy`
    (`--policy`), shown as its own column: the mediated path's cost where a
    workload meets it (files under `agent`)."""
    return Runtime(f"vigil+{policy}", vigil.binary, vigil.root, flags=["--policy", policy],
                   version=vigil.version)


def on_platform(vigil, platform):
    """vigil again, its sentry on another backend (`--platform`), shown as its
    own column: `ptrace` is the same mediated set served by ptrace stops,
    next to runsc's ptrace platform."""
    return Runtime(f"vigil+{platform}", vigil.binary, vigil.root, flags=["--platform", platform],
                   version=vigil.version)


DOCKER_CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "config", "corpus", "docker_run.json")


def docker_seccomp():
    """Docker's default seccomp profile, as dockerd rendered it into a
    config.json (tests/config/corpus/docker_run.json)."""
    import json
    with open(DOCKER_CONFIG) as f:
        return json.load(f)["linux"]["seccomp"]


def with_docker_seccomp(rt):
    """`rt` again, its containers given Docker's default seccomp profile, as
    `docker run` gives them: the fair peer for the fast path, since runc
    under Docker has a filter too. A workload writes `seccomp` into the
    bundle's config for it."""
    peer = Runtime(f"{rt.name}+seccomp", rt.binary, rt.root, flags=rt.flags,
                   mountns=rt.mountns, version=rt.version)
    peer.seccomp = docker_seccomp()
    return peer


def version_line(argv, preexec=None):
    out = proc.run(argv, timeout=20, preexec=preexec)
    return (out.out.strip().splitlines() or ["?"])[0]


def detect(names, scratch, vigil_binary, notes):
    """The runtimes among `names` installed here, in ORDER; a note for each skipped."""
    found = []
    mountns = None
    for name in [n for n in ORDER if n in names]:
        root = os.path.join(scratch, "roots", name)
        os.makedirs(root, exist_ok=True)
        if name == "vigil":
            if not (vigil_binary and os.access(vigil_binary, os.X_OK)):
                notes.append(f"vigil skipped: no binary at {vigil_binary}")
                continue
            found.append(Runtime(name, vigil_binary, root,
                                 version=version_line([vigil_binary, "--version"])))
            continue
        binary = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(
            f"/usr/sbin/{name}", os.X_OK) else None)
        if not binary:
            notes.append(f"{name} skipped: not installed (scripts/install-deps --bench)")
            continue
        if name == "crun":
            mountns = mountns or MountNamespace()
            found.append(Runtime(name, binary, root, mountns=mountns,
                                 version=version_line([binary, "--version"])))
        elif name == "runsc":
            flags = ["--network=none", "--ignore-cgroups", "--platform=ptrace"]
            found.append(Runtime(name, binary, root, flags=flags,
                                 version=version_line([binary, "--version"])))
        else:
            found.append(Runtime(name, binary, root, version=version_line([binary, "--version"])))
    return found, mountns

