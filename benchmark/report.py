#!/usr/bin/env python3
"""Tables (markdown) and charts (PNG, with matplotlib when available) from Google Benchmark JSON
written by benchmark_device_sort / benchmark_segmented_sort.

Benchmark names are <op>/<impl>/<type>/<case...>; hipflashsort is paired with the other impl
of the same <op>/<type>/<case> (the vendor peer measured in the same process).

    report.py results.json [more.json ...] [--charts DIR] [--label "H100, 2026-11-22, abc123"]
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict


def load(paths):
    rows = OrderedDict()
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("error_occurred"):
                print(f"warning: {b['name']}: {b.get('error_message')}", file=sys.stderr)
                continue
            # Google Benchmark appends run options (iterations:1, manual_time) to the name.
            parts = [p for p in b["name"].split("/") if not p.startswith("iterations:") and p not in ("manual_time", "real_time")]
            op, impl, typ, case = parts[0], parts[1], parts[2], "/".join(parts[3:])
            rows.setdefault((op, typ, case), {})[impl] = b
    return rows


def gkeys(b):
    return b.get("Gkeys/s", 0.0)


def table(rows):
    out = ["| operation | type | case | hipflashsort Gkeys/s | peer | peer Gkeys/s | ratio |",
           "|---|---|---|---:|---|---:|---:|"]
    ratios = {}
    for (op, typ, case), impls in rows.items():
        ours = impls.get("hipflashsort")
        peers = [k for k in impls if k != "hipflashsort"]
        if not ours or not peers:
            continue
        peer = impls[peers[0]]
        r = gkeys(ours) / gkeys(peer) if gkeys(peer) else float("nan")
        ratios.setdefault(op, []).append(r)
        out.append(f"| {op} | {typ} | {case} | {gkeys(ours):.2f} | {peers[0]} | {gkeys(peer):.2f} | {r:.2f} |")
    summary = []
    for op, rs in ratios.items():
        good = [r for r in rs if r > 0 and not math.isnan(r)]
        if good:
            geo = math.exp(sum(math.log(r) for r in good) / len(good))
            summary.append(f"- {op}: {len(good)} cases, geometric-mean ratio {geo:.2f}, "
                           f"min {min(good):.2f}, max {max(good):.2f}")
    return "\n".join(out), "\n".join(summary)


def charts(rows, outdir, label):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no charts", file=sys.stderr)
        return []
    os.makedirs(outdir, exist_ok=True)
    groups = OrderedDict()
    for (op, typ, case), impls in rows.items():
        groups.setdefault((op, typ), []).append((case, impls))
    written = []
    for (op, typ), cases in groups.items():
        xs = [c for c, _ in cases]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        impl_names = sorted({k for _, impls in cases for k in impls})
        for impl in impl_names:
            ys = [gkeys(impls[impl]) if impl in impls else float("nan") for _, impls in cases]
            ax.plot(range(len(xs)), ys, marker="o", label=impl)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("Gkeys/s")
        ax.set_title(f"{op} {typ} — {label}")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = os.path.join(outdir, f"{op}_{typ.replace('+', '_')}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--charts", help="directory for PNG charts")
    ap.add_argument("--label", default="", help="GPU, date and commit, printed on the charts")
    args = ap.parse_args()
    rows = load(args.json)
    t, s = table(rows)
    print(t)
    print()
    print(s)
    if args.charts:
        for p in charts(rows, args.charts, args.label):
            print(f"chart: {p}", file=sys.stderr)


if __name__ == "__main__":
    main()
