#!/usr/bin/env python3
"""spscan against every anchor, one row per type and size, from one run's two CSVs.

usage: anchor_table.py SCAN_BENCH.csv ANCHOR.csv [--markdown]

SCAN_BENCH.csv is scan_bench's (spscan, the toolkit's CUB, Thrust); ANCHOR.csv is
anchor_scan_bench's (CUB of the newest CCCL: its default scan and its lookahead kernel, forced).
Every column is a ratio to a device-to-device copy of the same bytes measured in the same process
(1.0 = copy speed), so the two programs' columns compare even though each timed its own copy.
The last column is spscan's ratio over the best anchor's: below 1.0, an anchor was faster there.
Prints the rows, then the cases where an anchor was faster and the minimum of that last column.
"""

import argparse
import csv
import sys

TYPE_ORDER = ["int8", "int16", "int32", "float", "int64", "double"]


def read(path):
    with open(path, newline="") as f:
        return {(r["type"], int(r["log2n"])): r for r in csv.DictReader(f)}


def ratio(row, column):
    try:
        value = float(row[column])
    except (KeyError, TypeError, ValueError):
        return None
    return value if value > 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scan_bench_csv")
    parser.add_argument("anchor_csv")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table (default: plain columns)")
    args = parser.parse_args()
    ours, anchors = read(args.scan_bench_csv), read(args.anchor_csv)
    keys = sorted(ours, key=lambda k: (TYPE_ORDER.index(k[0]) if k[0] in TYPE_ORDER else 99, k[0], k[1]))
    if not keys:
        sys.exit("anchor_table: no rows")

    header = ["type", "n", "spscan", "CUB (toolkit)", "CUB newest", "CUB lookahead", "Thrust", "spscan / best anchor"]
    rows, behind = [], []
    for key in keys:
        mine, other = ours[key], anchors.get(key, {})
        spscan = ratio(mine, "spscan_ratio")
        columns = [ratio(mine, "cub_ratio"), ratio(other, "ratio_default"), ratio(other, "ratio_lookahead"),
                   ratio(mine, "thrust_ratio")]
        best = max((c for c in columns if c is not None), default=None)
        lead = spscan / best if spscan and best else None
        if lead is not None and lead < 1.0:
            behind.append((lead, key))
        text = lambda v, fmt="{:.3f}": fmt.format(v) if v is not None else "n/a"
        rows.append([key[0], f"2^{key[1]}", text(spscan)] + [text(c) for c in columns] + [text(lead, "{:.2f}x")])

    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        print("  ".join(f"{h:>14}" for h in header))
        for r in rows:
            print("  ".join(f"{c:>14}" for c in r))
    print()
    if behind:
        print(f"an anchor was faster in {len(behind)} of {len(rows)} cases: "
              + ", ".join(f"{t} 2^{n} ({lead:.2f}x)" for lead, (t, n) in sorted(behind)))
    else:
        print(f"no anchor was faster in any of {len(rows)} cases")
    leads = [float(r[-1].rstrip("x")) for r in rows if r[-1] != "n/a"]
    if leads:
        print(f"summary: spscan / best anchor, minimum over the matrix {min(leads):.2f}x")


if __name__ == "__main__":
    main()
