#!/usr/bin/env python3
"""Plot ablation_bench's CSV: every variant's speed as a ratio to a copy of the same bytes (copy
time / call time, measured in the same run) against log2 of the input size, one line per variant,
one panel per level and element type, the copy's 1.0 drawn as the ceiling.

usage: plot_ablation.py ABLATION.csv OUTPUT.png
       plot_ablation.py --check ABLATION.csv      (read and validate only; no matplotlib needed)

The CSV is ablation_bench's (bench/ablation/csv.h): text fields quoted, as variant names hold commas.
"""

import csv
import sys

COLUMNS = ["level", "variant", "type", "log2n", "ms", "copy_ms", "ratio", "exact"]


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
                        "type": row["type"],
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

    # One panel per level and type: the device schemes for each type, the block scans (int32).
    panels = []
    for row in rows:
        if (row["level"], row["type"]) not in panels:
            panels.append((row["level"], row["type"]))
    figure, axes_list = plt.subplots(1, len(panels), figsize=(7 * len(panels), 6.5), squeeze=False)
    colors = plt.get_cmap("tab20").colors
    for axes, (level, type_name) in zip(axes_list[0], panels):
        of_panel = [r for r in rows if r["level"] == level and r["type"] == type_name]
        for k, name in enumerate(variants_in_order(of_panel)):
            points = [r for r in of_panel if r["variant"] == name]
            axes.plot(
                [r["log2n"] for r in points],
                [r["ratio"] for r in points],
                "-" if k < 20 else "--",
                color=colors[k % 20],
                marker="os^vD<>"[k % 7],
                markersize=3,
                label=name,
            )
        axes.axhline(1.0, color="k", linestyle=":", label="copy of the same bytes")
        axes.set_ylim(0, 1.05)
        axes.set_xlabel(f"log2 of the {type_name} elements")
        axes.set_ylabel("copy time / call time")
        axes.set_title(f"{level} level, {type_name}")
        axes.legend(fontsize=6, loc="lower right" if level == "device" else "upper left")
        axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(output, dpi=110)


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
