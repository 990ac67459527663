#!/usr/bin/env bash
# Compares spscan's speed with another version's, in one run: builds a benchmark (scan_bench, or
# BENCH=scan_by_key_bench) from BASELINE (a source tree of spscan, e.g. `git archive <rev> | tar -x
# -C DIR`) and from this tree, runs them alternately (baseline, current, baseline, current: drift
# of the GPU's clocks or of the copy's time shows in both), and prints, per case (scan_bench: type;
# scan_by_key_bench: value type and segments) and size, the mean spscan/copy ratio of each and the
# difference. The ratio is the one the benchmark reports for spscan (scan_bench: with a caching
# allocator).
#
# Usage: [BENCH=scan_by_key_bench] scripts/bench_against.sh BASELINE [benchmark option]...
#        (e.g. --max-log2 28 --no-extras for scan_bench, --min-log2 20 for scan_by_key_bench)
# CURRENT_BENCH=path uses an already built benchmark of this tree instead of building one;
# BASELINE_BENCH=path an already built baseline (then no BASELINE argument: every argument is a
# benchmark option), so two builds made elsewhere (a probe's header variants) run alternately;
# ROUNDS=N alternates N times (default 2).
# Output: $OUT (default ./out)/bench_against.csv and the table on stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
baseline_bench=${BASELINE_BENCH:-}
if [[ -z $baseline_bench ]]; then
  baseline=$(cd "$1" && pwd)
  shift
fi
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
jobs=$(nproc)
bench=${BENCH:-scan_bench}

build() { # build <source dir> <build dir>
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSPSCAN_BUILD_TESTS=OFF \
    -DSPSCAN_BUILD_EXAMPLES=OFF > "$2.configure.log" 2>&1
  cmake --build "$2" --target "$bench" --parallel "$jobs" > "$2.build.log" 2>&1
}
if [[ -z $baseline_bench ]]; then
  build "$baseline" "$root/build/bench-baseline"
  baseline_bench="$root/build/bench-baseline/bench/$bench"
fi
current_bench=${CURRENT_BENCH:-}
if [[ -z $current_bench ]]; then
  build "$root" "$root/build/bench-current"
  current_bench="$root/build/bench-current/bench/$bench"
fi

rounds=${ROUNDS:-2}
for round in $(seq 1 "$rounds"); do
  echo "[bench_against] round $round: baseline"
  "$baseline_bench" --csv "$OUT/against-baseline-$round.csv" "$@" > /dev/null
  echo "[bench_against] round $round: current"
  "$current_bench" --csv "$OUT/against-current-$round.csv" "$@" > /dev/null
done

python3 - "$OUT" "$rounds" << 'PY'
import csv, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
def case_of(row):  # scan_bench: type; scan_by_key_bench: value type and segments
    return " ".join(row[c] for c in ("type", "value", "segments") if c in row)
def load(version):
    rows = {}
    for r in range(1, rounds + 1):
        with open(f"{out}/against-{version}-{r}.csv") as f:
            for row in csv.DictReader(f):
                rows.setdefault((case_of(row), int(row["log2n"])), []).append(float(row["spscan_ratio"]))
    return {k: statistics.mean(v) for k, v in rows.items()}
base, cur = load("baseline"), load("current")
width = max([7] + [len(k[0]) + 1 for k in base])
with open(f"{out}/bench_against.csv", "w") as f:
    f.write("case,log2n,baseline_ratio,current_ratio,difference\n")
    print(f"{'case':<{width}}{'n':>6}  {'baseline':>9}{'current':>9}{'diff':>8}")
    worst = None
    for key in sorted(base, key=lambda k: (k[0], k[1])):
        if key not in cur:
            continue
        b, c = base[key], cur[key]
        f.write(f"{key[0]},{key[1]},{b:.4f},{c:.4f},{c - b:+.4f}\n")
        print(f"{key[0]:<{width}}2^{key[1]:<4}  {b:9.3f}{c:9.3f}{c - b:+8.3f}")
        worst = (c - b, key) if worst is None or c - b < worst[0] else worst
    print(f"summary: largest loss {worst[0]:+.3f} of copy speed ({worst[1][0]} 2^{worst[1][1]})")
PY
