"""config.json `root`, `mounts`, linux.rootfsPropagation, linux.maskedPaths
and linux.readonlyPaths, seen from /proc/self/mountinfo and by trying."""

import os
import subprocess

from harness import case, register

EROFS = 30


def mount_at(c, p, target):
    """The topmost mount at `target` in the probe's mountinfo."""
    found = [m for m in p["mounts"] if m["target"] == target]
    if not found:
        c.fail("no mount at %s: %s" % (target, sorted({m["target"] for m in p["mounts"]})))
    return found[-1]


def opts(m):
    return set(m["options"]) | set(m["super_options"])


# -- root ---------------------------------------------------------------------

@case("root.readonly.true")
def _(c):
    p = c.probe("create", "/x")
    c.eq(c.check(p)["errno"], EROFS, "errno of creating /x on a read-only root")
    c.expect("ro" in mount_at(c, p, "/")["options"], "/ is not mounted ro")


@case("root.readonly.false")
def _(c):
    c.config["root"]["readonly"] = False
    p = c.probe("create", "/x")
    c.expect(c.check(p)["ok"], "creating /x failed: %s" % c.check(p))
    c.expect(os.path.exists(c.rootfs + "/x"), "/x is not in the bundle's rootfs")
    c.expect("rw" in mount_at(c, p, "/")["options"], "/ is not mounted rw")


@case("root.path.absolute")
def _(c):
    c.config["root"]["path"] = c.rootfs
    p = c.probe("stat", "/probe")
    c.expect(c.check(p)["ok"], "no /probe in an absolute root.path")


@case("root.path.missing-fails")
def _(c):
    c.config["root"]["path"] = "no-such-rootfs"
    r = c.run()
    c.expect(r.rc not in (0, None), "run with a missing root.path succeeded: %s" % r)


@case("mounts.proc-on-a-symlink-fails")
def _(c):
    # The kernel's files would land wherever the link points.
    proc = c.rootfs + "/proc"
    if os.path.isdir(proc) and not os.path.islink(proc):
        os.rmdir(proc)
    os.symlink("/elsewhere", proc)
    cid = c.new_id()
    r = c.run(cid)
    c.expect(r.rc not in (0, None), "run with /proc a symlink succeeded: %s" % r)
    c.expect("must be mounted on ordinary directory" in r.err, "runc's words: %s" % r.err)
    c.eq(c.status(cid), None, "status after the failed run")


@case("mounts.dev-read-only")
def _(c):
    # /dev read-only still gets its devices, symlinks and the mounts beneath.
    for m in c.config["mounts"]:
        if m["destination"] == "/dev":
            m.setdefault("options", []).append("ro")
    p = c.probe("create", "/dev/new-file", "stat", "/dev/null", "stat", "/dev/pts/ptmx",
                "stat", "/dev/fd")
    c.eq(c.check(p, 0).get("errno"), 30, "errno creating a file in a read-only /dev (EROFS)")
    for i, what in ((1, "/dev/null"), (2, "/dev/pts/ptmx"), (3, "/dev/fd")):
        c.expect(c.check(p, i)["ok"], "%s is missing: %s" % (what, c.check(p, i)))


@case("root.pivoted")
def _(c):
    # The host's files are out of reach: the probe's root is the bundle's.
    os.makedirs(c.rootfs + "/only-in-rootfs")
    p = c.probe("stat", "/only-in-rootfs", "stat", c.tmp, "ls", "/")
    c.expect(c.check(p, 0)["ok"], "/only-in-rootfs is missing")
    c.eq(c.check(p, 1)["errno"], 2, "errno of stat of the host's case dir (ENOENT)")
    c.expect("probe" in c.check(p, 2)["entries"], "/probe not listed in /")


@case("root.no-host-mounts-leak")
def _(c):
    p = c.probe()
    leaked = [m["target"] for m in p["mounts"] if m["target"].startswith(("/work", "/home"))]
    c.eq(leaked, [], "host mounts visible in the container")


def propagation_case(mode, want_prefix):
    def fn(c):
        c.linux["rootfsPropagation"] = mode
        p = c.probe()
        prop = mount_at(c, p, "/")["propagation"]
        if want_prefix is None:
            c.eq(prop, [], "propagation of / (private)")
        elif want_prefix == "not-shared":
            # A slave of the host's /: a master only if the host's / is
            # shared, never shared itself.
            c.expect(not any(x.startswith("shared:") for x in prop),
                     "propagation of / is %s, want no shared peer group" % prop)
        else:
            c.expect(any(x.startswith(want_prefix) for x in prop),
                     "propagation of / is %s, want %s…" % (prop, want_prefix))
    return fn


register("linux.rootfsPropagation.private", propagation_case("private", None))
register("linux.rootfsPropagation.slave", propagation_case("slave", "not-shared"))
register("linux.rootfsPropagation.shared", propagation_case("shared", "shared:"))


# -- the default mounts -------------------------------------------------------

def default_mount_case(target, fstype, must):
    def fn(c):
        m = mount_at(c, c.probe(), target)
        c.eq(m["fstype"], fstype, "fstype of " + target)
        missing = set(must) - opts(m)
        c.eq(missing, set(), "options missing on %s (has %s)" % (target, sorted(opts(m))))
    return fn


for _t, _fs, _must in [
        ("/proc", "proc", ["rw"]),
        ("/dev", "tmpfs", ["nosuid", "mode=755", "size=65536k"]),
        ("/dev/pts", "devpts", ["nosuid", "noexec", "ptmxmode=666", "mode=620", "gid=5"]),
        ("/dev/shm", "tmpfs", ["nosuid", "noexec", "nodev", "size=65536k"]),
        ("/dev/mqueue", "mqueue", ["nosuid", "noexec", "nodev"]),
        ("/sys", "sysfs", ["ro", "nosuid", "noexec", "nodev"])]:
    register("mounts.default" + _t.replace("/", "."), default_mount_case(_t, _fs, _must))


# -- mounts given in config.json ----------------------------------------------

@case("mounts.bind.dir")
def _(c):
    src = c.host_dir("data", {"hello": "from the host\n"})
    c.add_mount("/mnt/data", "bind", src, ["rbind"])
    p = c.probe("read", "/mnt/data/hello")
    c.eq(c.check(p).get("data"), "from the host\n", "content of the bound file")


@case("mounts.bind.file")
def _(c):
    src = c.host_dir("files", {"f": "one file\n"})
    c.add_mount("/etc/bound", "none", src + "/f", ["bind"])
    p = c.probe("read", "/etc/bound", "stat", "/etc/bound")
    c.eq(c.check(p).get("data"), "one file\n", "content")
    c.eq(c.check(p, 1).get("type"), "file", "type")


@case("mounts.bind.readonly")
def _(c):
    src = c.host_dir("data", {"f": "x"})
    c.add_mount("/mnt/data", "bind", src, ["bind", "ro"])
    p = c.probe("openw", "/mnt/data/f", "create", "/mnt/data/new")
    c.eq(c.check(p, 0)["errno"], EROFS, "errno of opening for write")
    c.eq(c.check(p, 1)["errno"], EROFS, "errno of create")
    c.expect("ro" in mount_at(c, p, "/mnt/data")["options"], "not mounted ro")


@case("mounts.bind.readwrite")
def _(c):
    src = c.host_dir("data")
    c.add_mount("/mnt/data", "bind", src, ["bind", "rw"])
    p = c.probe("create", "/mnt/data/new")
    c.expect(c.check(p)["ok"], "create failed: %s" % c.check(p))
    c.expect(os.path.exists(src + "/new"), "the file did not reach the host directory")


def with_submount(c):
    src = c.host_dir("tree", {"top": "t"})
    os.makedirs(src + "/sub")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", src + "/sub"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        c.skip("cannot mount a tmpfs on the host: " + r.stderr.strip())
    c.host_mounts.append(src + "/sub")
    with open(src + "/sub/inner", "w") as f:
        f.write("inner")
    return src


@case("mounts.rbind.submounts")
def _(c):
    src = with_submount(c)
    c.add_mount("/mnt/tree", "bind", src, ["rbind"])
    p = c.probe("read", "/mnt/tree/sub/inner")
    c.eq(c.check(p).get("data"), "inner", "content of a file on a submount")


@case("mounts.bind.no-submounts")
def _(c):
    src = with_submount(c)
    c.add_mount("/mnt/tree", "bind", src, ["bind"])
    p = c.probe("read", "/mnt/tree/sub/inner", "read", "/mnt/tree/top")
    c.eq(c.check(p, 0)["errno"], 2, "errno reading a submount's file through a non-recursive bind")
    c.eq(c.check(p, 1).get("data"), "t", "content of the top file")


@case("mounts.rro")
def _(c):
    src = with_submount(c)
    c.add_mount("/mnt/tree", "bind", src, ["rbind", "rro"])
    p = c.probe("openw", "/mnt/tree/sub/inner")
    c.eq(c.check(p)["errno"], EROFS, "errno writing on a submount of an rro bind")


@case("mounts.tmpfs.options")
def _(c):
    c.add_mount("/mnt/t", "tmpfs", "tmpfs", ["size=1m", "mode=700", "nosuid", "nodev", "noexec"])
    p = c.probe("stat", "/mnt/t")
    m = mount_at(c, p, "/mnt/t")
    c.eq(m["fstype"], "tmpfs", "fstype")
    c.eq({"size=1024k", "mode=700", "nosuid", "nodev", "noexec"} - opts(m), set(),
         "options missing (has %s)" % sorted(opts(m)))
    c.eq(c.check(p).get("mode"), 0o700, "mode of the tmpfs root")


def flag_case(flag, shows):
    def fn(c):
        c.add_mount("/mnt/t", "tmpfs", "tmpfs", [flag])
        m = mount_at(c, c.probe(), "/mnt/t")
        c.expect(shows in m["options"], "%s not in %s" % (shows, m["options"]))
    return fn


for _flag, _shows in [("nosuid", "nosuid"), ("nodev", "nodev"), ("noexec", "noexec"),
                      ("noatime", "noatime"), ("nodiratime", "nodiratime"),
                      ("relatime", "relatime"), ("ro", "ro")]:
    register("mounts.option." + _flag, flag_case(_flag, _shows))


@case("mounts.option.noexec-enforced")
def _(c):
    src = c.host_dir("bin")
    import shutil
    shutil.copy2("/bin/busybox", src + "/busybox")
    c.add_mount("/mnt/bin", "bind", src, ["bind", "noexec"])
    c.set_args("/mnt/bin/busybox", "true")
    r = c.run()
    c.expect(r.rc not in (0, None), "exec from a noexec mount succeeded: %s" % r)


@case("mounts.destination.created")
def _(c):
    c.add_mount("/a/b/c", "tmpfs", "tmpfs")
    mount_at(c, c.probe(), "/a/b/c")


@case("mounts.order")
def _(c):
    src = c.host_dir("data", {"f": "inner"})
    c.add_mount("/mnt/outer", "tmpfs", "tmpfs")
    c.add_mount("/mnt/outer/inner", "bind", src, ["bind"])
    p = c.probe("read", "/mnt/outer/inner/f")
    c.eq(c.check(p).get("data"), "inner", "a bind below an earlier tmpfs")


@case("mounts.stacked-last-wins")
def _(c):
    a = c.host_dir("a", {"which": "a"})
    b = c.host_dir("b", {"which": "b"})
    c.add_mount("/mnt/x", "bind", a, ["bind"])
    c.add_mount("/mnt/x", "bind", b, ["bind"])
    p = c.probe("read", "/mnt/x/which")
    c.eq(c.check(p).get("data"), "b", "the later mount on the same destination")


@case("mounts.symlink-destination-stays-in-root")
def _(c):
    # A destination through a symlink pointing out of the rootfs resolves
    # inside it (CVE-2021-30465 family): nothing is mounted on the host.
    escape = c.path("escape")
    os.makedirs(escape)
    os.symlink("/../../../../../../.." + escape, c.rootfs + "/link")
    src = c.host_dir("data", {"f": "x"})
    c.add_mount("/link", "bind", src, ["bind"])
    c.config["root"]["readonly"] = False
    r = c.run()
    c.expect(not os.path.ismount(escape), "the mount escaped to the host")
    c.eq(os.listdir(escape), [], "files in the host directory")
    if r.ok:
        p = c.parse_probe(r.out)
        inside = [m for m in p["mounts"] if m["target"] in (escape, "/link")]
        c.expect(inside, "the bind is nowhere in the container (ran: %s)" % r.ok)


@case("mounts.propagation.shared")
def _(c):
    src = c.host_dir("data")
    c.add_mount("/mnt/data", "bind", src, ["rbind", "rshared"])
    m = mount_at(c, c.probe(), "/mnt/data")
    c.expect(any(x.startswith("shared:") for x in m["propagation"]),
             "propagation %s, want shared" % m["propagation"])


@case("mounts.propagation.private")
def _(c):
    src = c.host_dir("data")
    c.add_mount("/mnt/data", "bind", src, ["rbind", "rprivate"])
    m = mount_at(c, c.probe(), "/mnt/data")
    c.eq(m["propagation"], [], "propagation")


@case("mounts.cgroup")
def _(c):
    c.add_mount("/sys/fs/cgroup", "cgroup", "cgroup", ["nosuid", "noexec", "nodev", "relatime",
                                                        "ro"])
    p = c.probe("ls", "/sys/fs/cgroup")
    c.expect(c.check(p)["ok"], "ls /sys/fs/cgroup: %s" % c.check(p))
    c.expect(c.check(p)["entries"], "/sys/fs/cgroup is empty")
    cg = [m for m in p["mounts"] if m["target"].startswith("/sys/fs/cgroup")]
    c.expect(cg, "nothing mounted under /sys/fs/cgroup")


@case("mounts.unknown-type-fails")
def _(c):
    c.add_mount("/mnt/x", "nosuchfs", "none")
    r = c.run()
    c.expect(r.rc not in (0, None), "a mount of an unknown fs type ran: %s" % r)


# -- maskedPaths and readonlyPaths --------------------------------------------

@case("linux.maskedPaths.file")
def _(c):
    p = c.probe("read", "/proc/keys", "stat", "/proc/keys")
    c.eq(c.check(p).get("data"), "", "content of masked /proc/keys")
    st = c.check(p, 1)
    c.eq((st.get("type"), st.get("major"), st.get("minor")), ("char", 1, 3),
         "masked file is /dev/null")


@case("linux.maskedPaths.dir")
def _(c):
    p = c.probe("ls", "/sys/firmware", "create", "/sys/firmware/x")
    c.eq(c.check(p).get("entries"), [], "entries of masked /sys/firmware")
    c.expect(not c.check(p, 1)["ok"], "created a file in a masked directory")


@case("linux.maskedPaths.custom")
def _(c):
    c.write(c.rootfs + "/etc/secret", "password")
    os.makedirs(c.rootfs + "/secretdir")
    c.write(c.rootfs + "/secretdir/key", "k")
    c.linux["maskedPaths"] += ["/etc/secret", "/secretdir"]
    p = c.probe("read", "/etc/secret", "ls", "/secretdir")
    c.eq(c.check(p).get("data"), "", "content of masked /etc/secret")
    c.eq(c.check(p, 1).get("entries"), [], "entries of masked /secretdir")


@case("linux.maskedPaths.missing-ignored")
def _(c):
    c.linux["maskedPaths"].append("/no/such/path")
    p = c.probe("stat", "/no/such/path")
    c.eq(c.check(p)["errno"], 2, "errno of stat (ENOENT)")


@case("linux.maskedPaths.empty-unmasks")
def _(c):
    c.linux["maskedPaths"] = []
    p = c.probe("stat", "/proc/keys")
    c.expect(c.check(p).get("type") == "file", "/proc/keys is not the real file: %s"
             % c.check(p))


def readonly_case(path):
    def fn(c):
        p = c.probe("openw", path)
        c.eq(c.check(p)["errno"], EROFS, "errno of opening %s for write" % path)
    return fn


register("linux.readonlyPaths.proc-sys", readonly_case("/proc/sys/kernel/hostname"))
register("linux.readonlyPaths.proc-irq", readonly_case("/proc/irq/default_smp_affinity"))


@case("linux.readonlyPaths.custom")
def _(c):
    c.config["root"]["readonly"] = False
    os.makedirs(c.rootfs + "/frozen")
    c.linux["readonlyPaths"].append("/frozen")
    p = c.probe("create", "/frozen/x", "create", "/x")
    c.eq(c.check(p)["errno"], EROFS, "errno of creating in /frozen")
    c.expect(c.check(p, 1)["ok"], "the rest of the root is not writable: %s" % c.check(p, 1))


@case("linux.readonlyPaths.missing-ignored")
def _(c):
    c.linux["readonlyPaths"].append("/no/such/path")
    c.probe()


@case("linux.readonlyPaths.empty-writable")
def _(c):
    c.linux["readonlyPaths"] = []
    p = c.probe("openw", "/proc/sys/kernel/hostname")
    c.expect(c.check(p)["ok"], "/proc/sys not writable without readonlyPaths: %s"
             % c.check(p))
