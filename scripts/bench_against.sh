#!/usr/bin/env bash
# Compares spscan's speed with another version's, in one run: builds scan_bench from BASELINE (a
# source tree of spscan, e.g. `git archive <rev> | tar -x -C DIR`) and from this tree, runs them
# alternately (baseline, current, baseline, current: drift of the GPU's clocks or of the copy's
# time shows in both), and prints, per type and size, the mean spscan/copy ratio of each and the
# difference. The ratio is the one scan_bench reports for spscan with a caching allocator.
#
# Usage: scripts/bench_against.sh BASELINE [scan_bench option]...   (e.g. --max-log2 28 --no-extras)
# CURRENT_BENCH=path uses an already built scan_bench of this tree instead of building one;
# ROUNDS=N alternates N times (default 2).
# Output: $OUT (default ./out)/bench_against.csv and the table on stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
baseline=$(cd "$1" && pwd)
shift
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
jobs=$(nproc)

build() { # build <source dir> <build dir>
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSPSCAN_BUILD_TESTS=OFF \
    -DSPSCAN_BUILD_EXAMPLES=OFF > "$2.configure.log" 2>&1
  cmake --build "$2" --target scan_bench --parallel "$jobs" > "$2.build.log" 2>&1
}
build "$baseline" "$root/build/bench-baseline"
baseline_bench="$root/build/bench-baseline/bench/scan_bench"
current_bench=${CURRENT_BENCH:-}
if [[ -z $current_bench ]]; then
  build "$root" "$root/build/bench-current"
  current_bench="$root/build/bench-current/bench/scan_bench"
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
def load(version):
    rows = {}
    for r in range(1, rounds + 1):
        with open(f"{out}/against-{version}-{r}.csv") as f:
            for row in csv.DictReader(f):
                rows.setdefault((row["type"], int(row["log2n"])), []).append(float(row["spscan_ratio"]))
    return {k: statistics.mean(v) for k, v in rows.items()}
base, cur = load("baseline"), load("current")
with open(f"{out}/bench_against.csv", "w") as f:
    f.write("type,log2n,baseline_ratio,current_ratio,difference\n")
    print(f"{'type':<7}{'n':>6}  {'baseline':>9}{'current':>9}{'diff':>8}")
    worst = None
    for key in sorted(base, key=lambda k: (k[0], k[1])):
        if key not in cur:
            continue
        b, c = base[key], cur[key]
        f.write(f"{key[0]},{key[1]},{b:.4f},{c:.4f},{c - b:+.4f}\n")
        print(f"{key[0]:<7}2^{key[1]:<4}  {b:9.3f}{c:9.3f}{c - b:+8.3f}")
        worst = (c - b, key) if worst is None or c - b < worst[0] else worst
    print(f"summary: largest loss {worst[0]:+.3f} of copy speed ({worst[1][0]} 2^{worst[1][1]})")
PY
