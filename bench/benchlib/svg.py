"""ratios.svg: one row per headline metric, one bar per runtime, the ratio to
runc on a log scale (1 = runc), written directly as SVG."""

import math

from . import stats

COLORS = {"vigil": "#2b6cb0", "crun": "#2f855a", "runsc": "#c05621"}
ROW_H, BAR_H, LEFT, WIDTH, TOP = 30, 8, 250, 820, 60
LO, HI = 1 / 8, 256  # the axis: 1/8 × to 256 ×


def x_of(r):
    r = min(max(r, LO), HI)
    span = math.log2(HI) - math.log2(LO)
    return LEFT + (math.log2(r) - math.log2(LO)) / span * (WIDTH - LEFT - 40)


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write(path, rows, runtimes, stamp):
    height = TOP + ROW_H * len(rows) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="14" font-weight="bold">Ratio to runc '
           f'(log scale; left of 1 is faster / better) — {esc(stamp)}</text>']
    for i, rt in enumerate(runtimes):
        out.append(f'<rect x="{LEFT + i * 90}" y="28" width="12" height="10" '
                   f'fill="{COLORS.get(rt, "#666")}"/>'
                   f'<text x="{LEFT + i * 90 + 16}" y="37">{esc(rt)}</text>')
    r = LO
    while r <= HI:
        x = x_of(r)
        label = f"1/{int(1 / r)}" if r < 1 else f"{int(r)}"
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 8}" x2="{x:.1f}" '
                   f'y2="{TOP + ROW_H * len(rows)}" stroke="{"#000" if r == 1 else "#ddd"}"/>'
                   f'<text x="{x:.1f}" y="{TOP + ROW_H * len(rows) + 14}" '
                   f'text-anchor="middle">{label}×</text>')
        r *= 2
    for j, (workload, name, m) in enumerate(rows):
        y = TOP + j * ROW_H
        out.append(f'<text x="{LEFT - 6}" y="{y + ROW_H / 2 + 4}" text-anchor="end">'
                   f'{esc(workload)}: {esc(name)}</text>')
        for i, rt in enumerate(runtimes):
            ratio = stats.ratio(m, rt)
            if ratio is None:
                continue
            by = y + 3 + i * BAR_H
            x0, x1 = sorted((x_of(1), x_of(ratio)))
            out.append(f'<rect x="{x0:.1f}" y="{by}" width="{max(x1 - x0, 1):.1f}" '
                       f'height="{BAR_H - 1}" fill="{COLORS.get(rt, "#666")}">'
                       f'<title>{esc(rt)}: {ratio:.2f} × runc</title></rect>')
            out.append(f'<text x="{x_of(ratio) + (3 if ratio >= 1 else -3):.1f}" '
                       f'y="{by + BAR_H - 1}" font-size="8" '
                       f'text-anchor="{"start" if ratio >= 1 else "end"}">{ratio:.2f}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
