"""Workload 2: Python with the host's /usr, /lib, /lib64, /bin bind-mounted
read-only: an import-heavy one-liner and a typical agent data task (a 200k-row
CSV written to /tmp, parsed, aggregated, written out as JSON). Each timed as
the whole `run`, so container start is included; the host runs the same
command directly as the native baseline."""

import os

from .. import bundles, proc

NAME = "python"
PYTHON = "/usr/bin/python3"
IMPORTS = "import json,csv,email,http.client,decimal,statistics"
DATA_TASK = r"""
import csv, json, os, random, statistics, collections
D = os.environ.get('BENCH_TMP', '/tmp')
random.seed(7)
with open(D + '/rows.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['id', 'region', 'product', 'units', 'price'])
    regions = ['north', 'south', 'east', 'west', 'central']
    for i in range(ROWS):
        w.writerow([i, regions[i % 5], 'p%d' % (i % 97), random.randint(1, 50),
                    round(random.uniform(1, 500), 2)])
totals = collections.defaultdict(float)
prices = collections.defaultdict(list)
with open(D + '/rows.csv', newline='') as f:
    for row in csv.DictReader(f):
        totals[row['region']] += int(row['units']) * float(row['price'])
        prices[row['product']].append(float(row['price']))
summary = {'revenue': totals,
           'median_price': {k: statistics.median(v) for k, v in prices.items()}}
with open(D + '/summary.json', 'w') as f:
    json.dump(summary, f, indent=1, sort_keys=True)
print(len(summary['median_price']))
"""


def run(ctx):
    if not os.access(PYTHON, os.X_OK):
        ctx.problem(NAME, "all", f"{PYTHON} not installed; skipped")
        return
    rows = 200000
    native_tmp = ctx.path("native-tmp", "x")[:-2]
    if os.path.isdir("/dev/shm"):
        native_tmp = os.path.join("/dev/shm", os.path.basename(ctx.scratch) + "-python")
    os.makedirs(native_tmp, exist_ok=True)
    cases = [
        ("import-heavy startup", [PYTHON, "-c", IMPORTS], ctx.rounds(3, 10),
         f"`python3 -c '{IMPORTS}'`, whole `run`"),
        ("data task (200k-row CSV)", [PYTHON, "-c", DATA_TASK.replace("ROWS", str(rows))],
         ctx.rounds(2, 5),
         f"write a {rows}-row CSV to /tmp (tmpfs), parse, aggregate, write JSON; whole `run`"),
    ]
    for metric, args, rounds, what in cases:
        bundle = bundles.Bundle(ctx.path("bundles", "python-" + metric.split()[0]), "host")
        bundle.write_config(bundles.config(args, extra_mounts=bundles.host_binds()))
        for _, rt in ctx.interleaved(rounds, [None, *ctx.runtimes, *ctx.mediated]):
            if rt is None:
                # The host's /tmp is disk here; the container's is tmpfs.
                env = dict(os.environ, BENCH_TMP=native_tmp)
                out = proc.run(args, timeout=300, env=env)
                name = "native"
            else:
                cid = ctx.new_id("py")
                out = rt.run(bundle.path, cid, timeout=300)
                name = rt.name
                if out.ok:
                    rt.ids.discard(cid)
                else:
                    rt.delete(cid, force=True)
            if not out.ok:
                ctx.problem(NAME, name, f"{metric} failed: " + out.describe())
                continue
            ctx.add(NAME, metric, name, out.seconds * 1e3, "ms", what)
        ctx.note(NAME, f"{metric}: {rounds} rounds.")
    import shutil
    shutil.rmtree(native_tmp, ignore_errors=True)
