"""The command line as scripts written for runc read it: every `update`
flag's validation, `--version`'s lines, each verb's `--help` layout
(docs/conformance.md, "Drop-in for runc")."""

import re

from harness import case, register


def running_sleeper(c):
    c.sleeper()
    return c.create_start()


# Bad values of every `update` flag fail with status 1, name what was wrong
# (a word both runtimes' messages share) and change nothing; good ones reach
# the cgroup. (flags, cgroup file checked, the word in the error or None if
# the update succeeds)
UPDATE_VALUES = [
    (["--memory", "abc"], None, "memory"),
    (["--memory", "-5"], None, "memory"),
    (["--memory-reservation", "x"], None, "memory-reservation"),
    (["--memory", "2m", "--memory-swap", "1m"], ("memory", "memory.limit_in_bytes"), "mem"),
    (["--cpu-share", "x"], None, "cpu-share"),
    (["--cpu-share", "-1"], None, "cpu-share"),
    (["--cpu-quota", "abc"], None, "cpu-quota"),
    (["--cpu-period", "-1"], None, "cpu-period"),
    (["--cpu-rt-runtime", "99999999"], ("cpu", "cpu.rt_runtime_us"), "runtime"),
    (["--cpuset-cpus", "bad"], ("cpuset", "cpuset.cpus"), "cpus"),
    (["--cpuset-cpus", "4096"], ("cpuset", "cpuset.cpus"), "cpus"),
    (["--cpuset-mems", "63"], ("cpuset", "cpuset.mems"), "mems"),
    (["--blkio-weight", "5"], None, "weight"),
    (["--pids-limit", "abc"], ("pids", "pids.max"), "pids-limit"),
    (["--no-such-flag", "1"], None, "no-such-flag"),
]


def update_values_case(flags, watched, word):
    def fn(c):
        cid = running_sleeper(c)
        before = c.cgroup_file(*watched) if watched else None
        r = c.rt("update", *flags, cid)
        c.eq(r.rc, 1, "exit status of update %s (%s)" % (" ".join(flags), r))
        c.expect(word in r.err.lower(), "the error does not name %r: %r" % (word, r.err))
        if watched:
            c.eq(c.cgroup_file(*watched), before, "%s after the failed update" % watched[1])
    return fn


for flags, watched, word in UPDATE_VALUES:
    register("update.bad-value" + "".join(flags).replace("--", "."),
             update_values_case(flags, watched, word))


@case("update.good-values-reach-the-cgroup")
def _(c):
    cid = running_sleeper(c)
    r = c.rt("update", "--memory", "1g", "--pids-limit", "-1", "--cpu-share", "512", cid)
    c.expect(r.ok, "update: %s" % r)
    c.eq(c.cgroup_file("memory", "memory.limit_in_bytes"), str(1 << 30), "memory limit")
    c.eq(c.cgroup_file("pids", "pids.max"), "max", "pids.max")
    c.eq(c.cgroup_file("cpu", "cpu.shares"), "512", "cpu.shares")
    r = c.rt("update", cid)
    c.expect(r.ok, "update without flags: %s" % r)


# `--version` and each verb's `--help`/`-h` in runc's layout: scripts read
# "NAME version X" and "spec: Y"; people read urfave/cli's sections.
@case("global.version-lines")
def _(c):
    r = c.rt("--version")
    c.expect(r.ok, "--version: %s" % r)
    lines = r.out.splitlines()
    c.expect(lines and re.fullmatch(r"\S+ version \S+", lines[0]),
             "first line is not `NAME version X`: %r" % r.out)
    c.expect(any(re.fullmatch(r"spec: \d+\.\d+\.\d+(-dev)?", l) for l in lines),
             "no `spec: X.Y.Z` line: %r" % r.out)


HELP_VERBS = {  # verb: whether runc lists options for it
    "create": True, "delete": True, "events": True, "exec": True, "kill": True, "list": True,
    "pause": False, "ps": True, "resume": False, "run": True, "spec": True, "start": False,
    "state": False, "update": True,
}


def help_layout_case(verb, has_options, flag):
    def fn(c):
        r = c.rt(verb, flag)
        c.eq(r.rc, 0, "exit status of %s %s (%s)" % (verb, flag, r))
        pattern = r"NAME:\n   \S+ %s - .+\n\nUSAGE:\n   \S+ %s" % (verb, verb)
        c.expect(re.match(pattern, r.out), "not runc's NAME/USAGE layout: %r" % r.out[:200])
        if has_options:
            c.expect("\nOPTIONS:\n   --" in r.out, "no OPTIONS section: %r" % r.out)
    return fn


for verb, has_options in HELP_VERBS.items():
    register("help-layout." + verb, help_layout_case(verb, has_options, "--help"))
register("help-layout.kill-h", help_layout_case("kill", True, "-h"))
