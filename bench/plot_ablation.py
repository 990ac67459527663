#!/usr/bin/env python3
"""Plot ablation_bench's CSV: throughput of every variant against the input size, one line per
variant, with the copy of the same bytes as the ceiling.

usage: plot_ablation.py ABLATION.csv OUTPUT.png

Throughput counts what a scan must move: n int32 read plus n written (8 n bytes) per call time.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")  # render to a file; no display needed
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    figure, axes = plt.subplots(figsize=(10, 6))
    variants = []
    for row in rows:
        if row["variant"] not in variants:
            variants.append(row["variant"])
    copy = {}
    for name in variants:
        points = [r for r in rows if r["variant"] == name]
        sizes = [2 ** int(r["log2n"]) for r in points]
        rates = [8 * n / (float(r["ms"]) * 1e-3) / 1e9 for n, r in zip(sizes, points)]
        style = "-" if points[0]["level"] == "device" else "--"
        axes.plot(sizes, rates, style, marker="o", markersize=3, label=name)
        for n, r in zip(sizes, points):
            copy.setdefault(n, []).append(8 * n / (float(r["copy_ms"]) * 1e-3) / 1e9)
    sizes = sorted(copy)
    axes.plot(sizes, [sorted(copy[n])[len(copy[n]) // 2] for n in sizes], "k:", label="copy (same bytes)")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("int32 elements")
    axes.set_ylabel("GB/s (read + write)")
    axes.set_title("Scan algorithms side by side (dashed: block level, solid: device level)")
    axes.legend(fontsize=7, loc="upper left")
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
