#!/usr/bin/env python3
"""What each tile's prefix waited for, from a ring trace (scan_timeline --only ring --csv-dir DIR).

A ring CTA finds tile t's prefix from its previous tile p's prefix and the aggregates of the
tiles between p and t (ring/running_prefix.h). For every tile of the middle half of the run, this
prints when the later of the two was there (counted from t's id), and how long the prefix warp
took from then to t's prefix: the second is the prefix warp's own time per tile.

Usage: bench/ring_trace_gaps.py DIR/ring-<case>-<log2n>.csv [...]
"""
import csv
import sys


def percentiles(values):
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return "p10 %7.2f  p50 %7.2f  p90 %7.2f" % (pick(0.1), pick(0.5), pick(0.9))


def report(path):
    rows = list(csv.DictReader(open(path)))
    ids = [int(r["id"]) for r in rows]
    aggregates = [int(r["aggregate"]) for r in rows]
    prefixes = [int(r["prefix"]) for r in rows]
    previous_of, last_of_cta = [None] * len(rows), {}
    for tile, row in enumerate(rows):
        previous_of[tile] = last_of_cta.get(row["cta"])
        last_of_cta[row["cta"]] = tile
    gap_length, gap_ready, previous_ready, own_time = [], [], [], []
    for tile in range(len(rows) // 4, len(rows) - len(rows) // 4):
        previous = previous_of[tile]
        if previous is None:
            continue
        gap_last = max(aggregates[previous + 1 : tile], default=0)
        gap_length.append(tile - previous)
        gap_ready.append((gap_last - ids[tile]) / 1000)
        previous_ready.append((prefixes[previous] - ids[tile]) / 1000)
        own_time.append((prefixes[tile] - max(gap_last, prefixes[previous])) / 1000)
    gap_last_share = sum(g > p for g, p in zip(gap_ready, previous_ready)) / max(1, len(gap_ready))
    print(path.split("/")[-1])
    print("  tiles between a CTA's tiles                    ", percentiles(gap_length))
    print("  id -> the gap's last aggregate (us)            ", percentiles(gap_ready))
    print("  id -> the previous tile's prefix (us)          ", percentiles(previous_ready))
    print("  later of the two -> this tile's prefix (us)    ", percentiles(own_time))
    print("  tiles whose gap came after the previous prefix  %.2f" % gap_last_share)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)
