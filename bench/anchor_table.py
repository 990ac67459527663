#!/usr/bin/env python3
"""spscan against every anchor, one row per type and size, from one run's two CSVs.

usage: anchor_table.py SCAN_BENCH.csv ANCHOR.csv [--markdown]

SCAN_BENCH.csv is scan_bench's (spscan, the toolkit's CUB, Thrust); ANCHOR.csv is
anchor_scan_bench's (CUB of the newest CCCL: its default scan and its lookahead kernel, forced).
Every column is a ratio to a device-to-device copy of the same bytes measured in the same process
(1.0 = copy speed), so the two programs' columns compare even though each timed its own copy.
"spscan" is scan_bench's main column (par_nosync with a caching allocator: every call clears its
tile states first, as storage from a caller's allocator needs); "spscan, kept" is its par_nosync
column without an allocator, the storage spscan keeps between calls (as no policy and
thrust::device calls do: no clearing). The "/ best anchor" columns are each over the best
anchor's ratio: below 1.0, an anchor was faster there. Prints the rows, then, for each spscan
column, the cases where an anchor was faster and the minimum of its last column.
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

    header = ["type", "n", "spscan", "spscan, kept", "CUB (toolkit)", "CUB newest", "CUB lookahead", "Thrust",
              "spscan / best anchor", "kept / best anchor"]
    rows = []
    behind = {"spscan": [], "kept": []}
    leads = {"spscan": [], "kept": []}
    text = lambda v, fmt="{:.3f}": fmt.format(v) if v is not None else "n/a"
    for key in keys:
        mine, other = ours[key], anchors.get(key, {})
        spscan, kept = ratio(mine, "spscan_ratio"), ratio(mine, "spscan_nosync_ratio")
        columns = [ratio(mine, "cub_ratio"), ratio(other, "ratio_default"), ratio(other, "ratio_lookahead"),
                   ratio(mine, "thrust_ratio")]
        best = max((c for c in columns if c is not None), default=None)
        row_leads = []
        for name, value in (("spscan", spscan), ("kept", kept)):
            lead = value / best if value and best else None
            if lead is not None:
                leads[name].append(lead)
                if lead < 1.0:
                    behind[name].append((lead, key))
            row_leads.append(text(lead, "{:.2f}x"))
        rows.append([key[0], f"2^{key[1]}", text(spscan), text(kept)] + [text(c) for c in columns] + row_leads)

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
    for name, what in (("spscan", ""), ("kept", "kept storage: ")):
        if behind[name]:
            print(f"{what}an anchor was faster in {len(behind[name])} of {len(rows)} cases: "
                  + ", ".join(f"{t} 2^{n} ({lead:.2f}x)" for lead, (t, n) in sorted(behind[name])))
        else:
            print(f"{what}no anchor was faster in any of {len(rows)} cases")
    for name, what in (("spscan", "spscan"), ("kept", "spscan with kept storage")):
        if leads[name]:
            print(f"summary: {what} / best anchor, minimum over the matrix {min(leads[name]):.2f}x")


if __name__ == "__main__":
    main()
