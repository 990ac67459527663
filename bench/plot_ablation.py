#!/usr/bin/env python3
"""Plot ablation_bench's CSV: throughput of every variant against the input size, one line per
variant, with the copy of the same bytes as the ceiling.

usage: plot_ablation.py ABLATION.csv OUTPUT.png
       plot_ablation.py --check ABLATION.csv      (read and validate only; no matplotlib needed)

Throughput counts what a scan must move: n int32 read plus n written (8 n bytes) per call time.
The CSV is ablation_bench's (bench/ablation/csv.h): text fields quoted, as variant names hold commas.
"""

import csv
import sys

COLUMNS = ["level", "variant", "log2n", "ms", "copy_ms", "ratio", "exact"]


def read_rows(path):
    """The CSV's rows, with numbers converted; exits with a message on a malformed file."""
    with open(path, newline="") as file:
        reader = csv.DictReader(file)
        if reader.fieldnames != COLUMNS:
            sys.exit(f"{path}: columns {reader.fieldnames}, expected {COLUMNS}")
        rows = []
        for line, row in enumerate(reader, start=2):
            if None in row or None in row.values():
                sys.exit(f"{path}:{line}: {len(row)} fields where {len(COLUMNS)} were expected (an unquoted comma?)")
            if row["level"] not in ("block", "device"):
                sys.exit(f"{path}:{line}: level {row['level']!r} is neither block nor device")
            try:
                rows.append(
                    {
                        "level": row["level"],
                        "variant": row["variant"],
                        "log2n": int(row["log2n"]),
                        "ms": float(row["ms"]),
                        "copy_ms": float(row["copy_ms"]),
                        "ratio": float(row["ratio"]),
                        "exact": row["exact"] == "1",
                    }
                )
            except ValueError as error:
                sys.exit(f"{path}:{line}: {error}")
    if not rows:
        sys.exit(f"{path}: no measurements")
    return rows


def variants_in_order(rows):
    names = []
    for row in rows:
        if row["variant"] not in names:
            names.append(row["variant"])
    return names


def plot(rows, output):
    import matplotlib

    matplotlib.use("Agg")  # render to a file; no display needed
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 6))
    copy = {}
    for name in variants_in_order(rows):
        points = [r for r in rows if r["variant"] == name]
        sizes = [2 ** r["log2n"] for r in points]
        rates = [8 * n / (r["ms"] * 1e-3) / 1e9 for n, r in zip(sizes, points)]
        style = "-" if points[0]["level"] == "device" else "--"
        axes.plot(sizes, rates, style, marker="o", markersize=3, label=name)
        for n, r in zip(sizes, points):
            copy.setdefault(n, []).append(8 * n / (r["copy_ms"] * 1e-3) / 1e9)
    sizes = sorted(copy)
    axes.plot(sizes, [sorted(copy[n])[len(copy[n]) // 2] for n in sizes], "k:", label="copy (same bytes)")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("int32 elements")
    axes.set_ylabel("GB/s (read + write)")
    axes.set_title("Scan algorithms side by side (dashed: block level, solid: device level)")
    axes.legend(fontsize=7, loc="upper left")
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(output, dpi=120)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        rows = read_rows(sys.argv[2])
        print(f"{sys.argv[2]}: {len(rows)} measurements of {len(variants_in_order(rows))} variants")
    elif len(sys.argv) == 3:
        plot(read_rows(sys.argv[1]), sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
