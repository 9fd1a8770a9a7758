#!/usr/bin/python3
"""Runs a walkthrough of the docs as written: every ```sh block of the
section, in order, in one bash (set -euo pipefail), and checks that each
```text block that follows an sh block is what that block printed.

usage: walkthrough.py DOC HEADING VIGIL [DIR]

DOC is a Markdown file, HEADING the start of the section's "## " heading
(the section ends at the next "## "). VIGIL is the binary the commands call
as `vigil`. The section's variables are set to a private directory: root,
image, work (see docs/agents.md), and timeout=5s (room for a loaded
CI host: every request but the last must end well within it). An expected line must
match an output line, in order (others may come between); "…" in it
matches any text. The blocks run in DIR (the current directory by
default); a job a block left in the background is ended with the
walkthrough. Prints "ok - ..." / "not ok - ..." per block and
"N passed, M failed"; exits 77 when not root.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "@@walkthrough-block@@"


def section(doc, heading):
    with open(doc) as f:
        text = f.read()
    start = text.index("\n## " + heading)
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def blocks(text):
    """[(sh code, expected text lines or None)] in order."""
    found = re.findall(r"```(sh|text)\n(.*?)```", text, re.S)
    out = []
    for kind, body in found:
        if kind == "sh":
            out.append([body, None])
        elif out and out[-1][1] is None:
            out[-1][1] = body.splitlines()
        else:
            sys.exit("walkthrough.py: a text block that follows no sh block")
    return out


def matches(expected, actual):
    """Whether each expected line matches an actual line, in order."""
    lines = iter(actual)
    for want in expected:
        pattern = fnmatch.translate(want.replace("*", "[*]").replace("…", "*"))
        if not any(re.fullmatch(pattern, line) for line in lines):
            return want
    return None


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    doc, heading, vigil = argv[1], argv[2], os.path.realpath(argv[3])
    cwd = argv[4] if len(argv) == 5 else None
    if os.geteuid() != 0:
        print("skip: the walkthrough runs containers (root)")
        return 77
    steps = blocks(section(doc, heading))
    tmp = tempfile.mkdtemp(prefix="vigil-walkthrough-")
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    os.symlink(vigil, os.path.join(bin_dir, "vigil"))
    env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], root=tmp + "/root",
               image=tmp + "/image", work=tmp + "/work", timeout="5s")
    script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "".join(
        f"echo '{MARK}'\n{code}" for code, _ in steps)
    try:
        run = subprocess.run(["bash", "-c", script], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=300, cwd=cwd)
        outputs = run.stdout.split(MARK + "\n")[1:]
        passed = failed = 0
        for i, (code, expected) in enumerate(steps):
            name = f"block {i + 1}: {code.strip().splitlines()[0][:60]}"
            got = outputs[i] if i < len(outputs) else None
            missing = None if got is None or expected is None else matches(
                expected, got.splitlines())
            if got is None or missing is not None:
                failed += 1
                why = "not reached" if got is None else f"no line matches {missing!r}"
                print(f"not ok - {name}\n#   {why}; output:")
                for line in (got or run.stdout).splitlines()[-20:]:
                    print("#   " + line)
            else:
                passed += 1
                print(f"ok - {name}")
        if run.returncode != 0:
            failed += 1
            print(f"not ok - the walkthrough exits 0 (exit {run.returncode})")
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    finally:
        listed = subprocess.run([vigil, "--root", tmp + "/root", "list", "-q"],
                                capture_output=True, text=True).stdout.split()
        for cid in listed:
            subprocess.run([vigil, "--root", tmp + "/root", "delete", "--force", cid],
                           capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
