#!/usr/bin/env python3
"""Plot scan_bench's CSV: throughput of copy, spscan, CUB and Thrust per element type.

usage: plot_results.py RESULTS.csv OUTPUT.png [--anchors ANCHOR.csv] [--title TEXT] [--linear]

Throughput counts the bytes a scan must move: n elements read plus n written, i.e.
2 * bytes / time, where `bytes` is the CSV's n * sizeof(T). Copy moves the same bytes, so its
curve is the ceiling the scans are measured against. "spscan" is the CSV's spscan_alloc_ms
(par_nosync with a caching allocator), "spscan (par_nosync)" its spscan_ms. With --anchors, the
CSV of anchor_scan_bench (same run) adds CUB's default scan and its lookahead kernel from the
newest CCCL.
"""

import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")  # render to a file; no display needed
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)

SERIES = [
    # (CSV column, label, line style)
    ("copy_ms", "copy (D2D)", dict(color="black", linestyle="--", marker="")),
    ("spscan_alloc_ms", "spscan", dict(color="tab:red", marker="o")),
    ("spscan_ms", "spscan (par_nosync)", dict(color="tab:red", linestyle=":", marker=".")),
    ("cub_ms", "CUB, toolkit's CCCL", dict(color="tab:blue", marker="s")),
    ("thrust_ms", "thrust::device", dict(color="tab:green", marker="^")),
]

ANCHOR_SERIES = [
    ("cub_default_ms", "CUB, newest CCCL", dict(color="tab:purple", marker="D")),
    ("cub_lookahead_ms", "CUB lookahead kernel (forced)", dict(color="tab:orange", marker="v")),
]

TYPE_ORDER = ["int8", "int16", "int32", "float", "int64", "double"]


def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_results: {path} holds no rows")
    missing = {"type", "log2n", "bytes"} | {column for column, _, _ in SERIES}
    missing -= set(rows[0].keys())
    if missing:
        sys.exit(f"plot_results: {path} lacks columns: {', '.join(sorted(missing))}")
    return rows


def merge_anchors(rows, path):
    """Adds the anchor CSV's times to scan_bench's rows of the same type and size."""
    with open(path, newline="") as f:
        anchors = {(r["type"], r["log2n"]): r for r in csv.DictReader(f)}
    for row in rows:
        anchor = anchors.get((row["type"], row["log2n"]), {})
        for column, _, _ in ANCHOR_SERIES:
            row[column] = anchor.get(column, "nan")


def throughput_gbs(row, column):
    try:
        ms = float(row[column])
    except ValueError:  # "n/a": the anchor did not run there
        return float("nan")
    return 2.0 * float(row["bytes"]) / (ms * 1e-3) / 1e9 if ms > 0 else float("nan")


def plot(rows, output, title, linear, series):
    by_type = {}
    for row in rows:
        by_type.setdefault(row["type"], []).append(row)
    types = [t for t in TYPE_ORDER if t in by_type] + sorted(t for t in by_type if t not in TYPE_ORDER)

    columns = min(3, len(types))
    lines = math.ceil(len(types) / columns)
    fig, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 3.8 * lines), squeeze=False)
    for index, type_name in enumerate(types):
        ax = axes[index // columns][index % columns]
        type_rows = sorted(by_type[type_name], key=lambda r: int(r["log2n"]))
        x = [int(r["log2n"]) for r in type_rows]
        for column, label, style in series:
            ax.plot(x, [throughput_gbs(r, column) for r in type_rows], label=label, **style)
        ax.set_title(type_name)
        ax.set_xlabel("elements (log2)")
        ax.set_ylabel("GB/s (read + written)")
        ax.set_xticks(x)
        if not linear:  # sizes span six decades of throughput; --linear shows the large end
            ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    for index in range(len(types), lines * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(series), 4), frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.09, 1, 0.96 if title else 1))
    fig.savefig(output, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="CSV written by scan_bench --csv")
    parser.add_argument("output", help="PNG file to write")
    parser.add_argument("--anchors", help="CSV written by anchor_scan_bench --csv in the same run")
    parser.add_argument("--title", default="", help="figure title (e.g. the device name)")
    parser.add_argument("--linear", action="store_true", help="linear throughput axis (default: log)")
    args = parser.parse_args()
    rows = read_rows(args.csv)
    series = SERIES
    if args.anchors:
        merge_anchors(rows, args.anchors)
        series = SERIES + ANCHOR_SERIES
    plot(rows, args.output, args.title, args.linear, series)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
