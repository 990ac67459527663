#!/usr/bin/env python3
"""A ring trace round by round (scan_timeline --only ring22 --csv-dir DIR, or any ring section).

Round k is every CTA's k-th tile. For each round this prints the p50 (p90) of the six trace
times (id, loaded, aggregate published, prefix found, scan started, done), in us from the run's
first id; then, per round, how long each tile's prefix came after it could have: after the later
of its gap's last aggregate (the tiles between the CTA's previous tile and this one) and the
CTA's previous prefix. At mid sizes (a few tiles a CTA) this shows whether the loads, the
aggregates or the prefix warp's own chain set the end (bench/NOTES.md, ninth session).

Usage: bench/ring_trace_rounds.py DIR/ring-<case>-<log2n>.csv [...]
"""
import csv
import sys

STAGES = ["id", "loaded", "aggregate", "prefix", "scan_start", "done"]


def pick(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(path):
    rows = list(csv.DictReader(open(path)))
    origin = min(int(r["id"]) for r in rows)
    at = [{s: (int(r[s]) - origin) / 1000 for s in STAGES} for r in rows]
    round_of, previous_of, last_of_cta = [0] * len(rows), [None] * len(rows), {}
    for tile, row in enumerate(rows):  # rows are in tile order: a CTA's tiles rise
        previous = last_of_cta.get(row["cta"])
        previous_of[tile] = previous
        round_of[tile] = 0 if previous is None else round_of[previous] + 1
        last_of_cta[row["cta"]] = tile
    end = max(t["done"] for t in at)
    print(f"\n{path}: {len(rows)} tiles, {len(last_of_cta)} CTAs, span {end:.2f} us, "
          f"last tile loaded at {max(t['loaded'] for t in at):.2f} us")
    print("round tiles  " + "  ".join(f"{s:>13}" for s in STAGES) + "   prefix after ready")
    rounds = max(round_of) + 1
    for k in range(rounds):
        mine = [i for i in range(len(rows)) if round_of[i] == k]
        if 6 < k < rounds - 3 and k % 4:
            continue
        cells = [f"{pick([at[i][s] for i in mine], 0.5):6.2f}({pick([at[i][s] for i in mine], 0.9):5.2f})" for s in STAGES]
        late = []
        for i in mine:
            previous = previous_of[i]
            first = 0 if previous is None else previous
            gap_last = max((at[j]["aggregate"] for j in range(first, i)), default=0.0)
            previous_prefix = 0.0 if previous is None else at[previous]["prefix"]
            late.append(at[i]["prefix"] - max(gap_last, previous_prefix, at[i]["id"]))
        print(f"{k:5d} {len(mine):5d}  " + "  ".join(cells) + f"   {pick(late, 0.5):5.2f} ({pick(late, 0.9):5.2f})")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)
