#!/usr/bin/env python3
"""What each tile's prefix waited for, from a ring trace (scan_timeline --only ring --csv-dir DIR).

A ring CTA finds tile t's prefix from its previous tile p's prefix and the aggregates of the
tiles between p and t (ring/running_prefix.h). For every tile of the middle half of the run, this
prints when the later of the two was there (counted from t's id), and how long the prefix warp
took from then to t's prefix: the second is the prefix warp's own time per tile. Then the run's
ends: when each CTA's first tile was loaded, how long its last tile took from loaded to stored
(the drain), and the span against the time all tiles take at the steady rate of loads. With
--rounds, the run round by round instead (round k: every CTA's k-th tile; for mid sizes, a few
tiles a CTA): the p50 (p90) of the six trace times, from the run's first id, and how long each
prefix came after its inputs (its gap's aggregates, the previous tile's included, and the
previous prefix) were there.

Usage: bench/probes/ring_trace_gaps.py [--rounds] DIR/ring-<case>-<log2n>.csv [...]
"""
import csv
import sys


def percentiles(values):
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return "p10 %7.2f  p50 %7.2f  p90 %7.2f" % (pick(0.1), pick(0.5), pick(0.9))


def previous_tiles(rows):
    """Each tile's CTA's previous tile (None for a CTA's first); rows are in tile order."""
    previous_of, last_of_cta = [None] * len(rows), {}
    for tile, row in enumerate(rows):
        previous_of[tile] = last_of_cta.get(row["cta"])
        last_of_cta[row["cta"]] = tile
    return previous_of


def report(path):
    rows = list(csv.DictReader(open(path)))
    ids = [int(r["id"]) for r in rows]
    aggregates = [int(r["aggregate"]) for r in rows]
    prefixes = [int(r["prefix"]) for r in rows]
    previous_of = previous_tiles(rows)
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
    report_ends(rows)


def report_ends(rows):
    """The run's start and drain, per CTA (times in the CSV count from the first id)."""
    by_cta = {}
    for row in rows:
        by_cta.setdefault(row["cta"], []).append(row)
    at = lambda row, stage: int(row[stage]) / 1000
    first_loaded = [min(at(r, "loaded") for r in mine) for mine in by_cta.values()]
    last_tiles = [max(mine, key=lambda r: int(r["id"])) for mine in by_cta.values()]
    drain = [at(r, "done") - at(r, "loaded") for r in last_tiles]
    last_wait = [at(r, "prefix") - at(r, "aggregate") for r in last_tiles]
    counts = [len(mine) for mine in by_cta.values()]
    loaded = sorted(at(r, "loaded") for r in rows)
    low, high = len(loaded) // 5, 4 * len(loaded) // 5
    rate = (high - low) / (loaded[high] - loaded[low])  # tiles a us, middle 60 % of the loads
    span = max(at(r, "done") for r in rows)
    print("  tiles a CTA                                     %d .. %d" % (min(counts), max(counts)))
    print("  first tile loaded (us)                         ", percentiles(first_loaded))
    print("  last tile: loaded -> stored (us)               ", percentiles(drain))
    print("  last tile: aggregate -> prefix (us)            ", percentiles(last_wait))
    print("  span %.1f us; all tiles at the steady rate (%.1f a us) %.1f us" % (span, rate, len(rows) / rate))


STAGES = ["id", "loaded", "aggregate", "prefix", "scan_start", "done"]


def report_rounds(path):
    rows = list(csv.DictReader(open(path)))
    origin = min(int(r["id"]) for r in rows)
    at = [{s: (int(r[s]) - origin) / 1000 for s in STAGES} for r in rows]
    previous_of = previous_tiles(rows)
    round_of = [0] * len(rows)
    for tile, previous in enumerate(previous_of):
        round_of[tile] = 0 if previous is None else round_of[previous] + 1
    pick = lambda values, q: sorted(values)[min(len(values) - 1, int(q * len(values)))]
    print("%s: %d tiles, span %.2f us, last tile loaded at %.2f us" %
          (path.split("/")[-1], len(rows), max(t["done"] for t in at), max(t["loaded"] for t in at)))
    print("round tiles  " + "  ".join("%13s" % s for s in STAGES) + "   prefix after its inputs")
    rounds = max(round_of) + 1
    for k in range(rounds):
        if 6 < k < rounds - 3 and k % 4:
            continue
        mine = [t for t in range(len(rows)) if round_of[t] == k]
        cells = ["%6.2f(%5.2f)" % (pick([at[t][s] for t in mine], 0.5), pick([at[t][s] for t in mine], 0.9)) for s in STAGES]
        late = []
        for t in mine:
            previous = previous_of[t]
            gap_last = max((at[g]["aggregate"] for g in range(previous or 0, t)), default=0.0)
            previous_prefix = 0.0 if previous is None else at[previous]["prefix"]
            late.append(at[t]["prefix"] - max(gap_last, previous_prefix, at[t]["id"]))
        print("%5d %5d  " % (k, len(mine)) + "  ".join(cells) + "   %5.2f (%5.2f)" % (pick(late, 0.5), pick(late, 0.9)))


if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if a != "--rounds"]
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        if "--rounds" in sys.argv[1:]:
            report_rounds(path)
        else:
            report(path)
