#!/usr/bin/env python3
"""plot-bench.py -- draw warpred-bench's CSV: GB/s against n.

    warpred-bench --full --csv bench.csv
    python3 doc/plot-bench.py bench.csv            # writes doc/bench-cuda.png, doc/bench-cpu.png

One figure per backend, one panel per function.  In each panel: our
backend (solid), the reference measured in the same run (dashed: CUB for
cuda; the OpenMP loop for cpu, where one exists) and the copy ceiling
(dotted: device-to-device cudaMemcpy for cuda, a parallel memcpy for cpu).
The copy ceiling counts bytes read plus bytes written, the operations count
each input read once and each output written once.

Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import argparse
import collections
import csv
import math
import os
import sys

FUNCS = ["reduce", "scan", "exscan", "reduce_rows", "reduce_segments", "argmin", "argmax"]


def load(path):
    """Rows of the 'matrix' section, numbers converted."""
    rows = []
    f = sys.stdin if path == "-" else open(path, newline="")
    with f:
        for r in csv.DictReader(f):
            if r["section"] != "matrix":
                continue
            for k in ("n", "gbps", "ceil_gbps", "ref_gbps"):
                r[k] = float(r[k] or 0)
            rows.append(r)
    return rows


def series(rows, key):
    """{label: sorted [(n, value)]} of the non-zero values of column key."""
    out = collections.defaultdict(list)
    for r in rows:
        if r[key] > 0:
            out[r["param"]].append((r["n"], r[key]))
    return {k: sorted(v) for k, v in out.items()}


def plot_backend(plt, rows, backend, type_, op, outdir):
    mine = [r for r in rows if r["backend"] == backend]
    if not mine:
        return None
    copies = sorted((r["n"], r["gbps"]) for r in mine
                    if r["name"].startswith("copy") and r["type"] == type_ and r["gbps"] > 0)
    funcs = [f for f in FUNCS if any(r["name"] == f for r in mine)]
    if not funcs:
        return None
    cols = min(4, len(funcs))
    nrows = int(math.ceil(len(funcs) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    ref_label = "CUB" if backend == "cuda" else "OpenMP loop"
    for ax, func in zip(axes.flat, funcs):
        sel = [r for r in mine if r["name"] == func and r["type"] == type_
               and (r["op"] == op or func in ("argmin", "argmax"))]
        for i, (param, pts) in enumerate(sorted(series(sel, "gbps").items())):
            label = "warpred-" + backend + (" " + param if param else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", ms=3, color="C%d" % i, label=label)
        for i, (param, pts) in enumerate(sorted(series(sel, "ref_gbps").items())):
            label = ref_label + (" " + param if param else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--s", ms=3, color="C%d" % i,
                    alpha=0.7, label=label)
        if copies:
            ax.plot([p[0] for p in copies], [p[1] for p in copies], ":", color="k",
                    label="copy ceiling")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s %s %s" % (func, type_, "" if func in ("argmin", "argmax") else op))
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(funcs):]:
        ax.set_visible(False)
    fig.suptitle("warpred-bench, %s backend" % backend)
    fig.tight_layout()
    path = os.path.join(outdir, "bench-%s.png" % backend)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="warpred-bench --csv output ('-' for stdin)")
    ap.add_argument("--outdir", default=os.path.dirname(os.path.abspath(__file__)),
                    help="where the PNGs go (default: this script's folder, doc/)")
    ap.add_argument("--type", default="f32", help="element type to draw (default f32)")
    ap.add_argument("--op", default="sum", help="op to draw (default sum)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot-bench.py: needs matplotlib (apt-get install python3-matplotlib)")
    rows = load(args.csv)
    if not rows:
        sys.exit("plot-bench.py: no 'matrix' rows in %s" % args.csv)
    made = [p for p in (plot_backend(plt, rows, b, args.type, args.op, args.outdir)
                        for b in ("cuda", "cpu")) if p]
    if not made:
        sys.exit("plot-bench.py: nothing to draw for type %s, op %s" % (args.type, args.op))
    for p in made:
        print(p)


if __name__ == "__main__":
    main()
