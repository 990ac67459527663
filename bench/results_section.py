#!/usr/bin/env python3
"""The tables of one GPU's section of bench/RESULTS.md, from the bench.log of one
`scripts/gpu_check.sh` run (with or without --only-bench) on that GPU.

usage: results_section.py BENCH.log > section.md

Prints, in RESULTS.md's order, each benchmark's table as the benchmark wrote it: the scan matrix
against every anchor (bench/anchor_table.py's markdown), by-key scans, stream compaction, call
time, iterator inputs and the sharded scan's one-GPU rows, then a pointer to bench/ABLATION.md.
The machine, commit and command lines above them are the writer's (they are not in the log).
Exits with a message when a benchmark's part of the log is missing or failed.
"""

import sys


def parts(lines):
    """The log's parts: '## <program or command>' header -> its lines."""
    found, name = {}, None
    for line in lines:
        if line.startswith("## "):
            name = line[3:].strip()
            found.setdefault(name, [])
        elif name is not None:
            found[name].append(line)
    return found


def part(found, suffix):
    """The lines of the part whose header names the file `suffix` (a program or a script)."""
    for name, lines in found.items():
        if any(word.endswith("/" + suffix) for word in name.split(" ")):
            return lines
    sys.exit(f"results_section.py: the log has no part for {suffix}")


def between(lines, first, stop=None):
    """From the first line that starts with `first` up to (not including) the next empty line, or
    the next line that starts with `stop`."""
    out, inside = [], False
    for line in lines:
        if not inside and line.startswith(first):
            inside = True
        elif inside and (line.strip() == "" or (stop is not None and line.startswith(stop))):
            break
        if inside:
            out.append(line)
    if not out:
        sys.exit(f"results_section.py: no block starting with {first!r}")
    return out


def code(lines):
    return ["```"] + lines + ["```"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    found = parts(open(sys.argv[1]).read().split("\n"))
    scan = part(found, "scan_bench")
    anchors = part(found, "anchor_table.py")
    by_key = part(found, "scan_by_key_bench")
    select = part(found, "select_bench")
    call_time = part(found, "call_time_bench")
    sharded = part(found, "sharded_scan_bench")
    out = ["### Scans against every anchor (`build/bench/scan_bench`, `build/bench/anchor_scan_bench`)", ""]
    out += between(anchors, "| type |")
    out += [""] + [line for line in anchors if line.startswith(("an anchor was faster", "no anchor was faster", "kept storage:", "summary:"))]
    out += ["", "### By-key scans (`build/bench/scan_by_key_bench`)", ""]
    out += ["Ratio = copy of the same traffic (keys and values read, values written) / call time.", ""]
    out += code(between(by_key, "value ", "summary"))
    out += [""] + [line for line in by_key if line.startswith("summary")]
    out += ["", "### Stream compaction (`build/bench/select_bench`)", ""]
    out += [
        "spscan's selection program as its kernel route calls it (not yet the default route of",
        "`copy_if`: `detail/select.inl`) against `cub::DeviceSelect::If` (its kernel alone, the count",
        "left on the device; then waited for by a stream synchronization, the least a call that returns",
        "its count pays; and, in the last two columns, with its count read back to the host and",
        "waited for, as a `copy_if` caller uses it) and `thrust::copy_if`; spscan and Thrust wait for",
        "the count (the call's result). Ratio = a copy with the same traffic (the input read, the",
        "selected part written) / call time.",
        "",
    ]
    out += between(select, "| type |", "summary")
    out += [""] + [line for line in select if line.startswith("summary") or line.startswith("waited-for bound")]
    if any(line.startswith("| form |") for line in select):  # not in runs before the forms table
        forms = between(select, "| form |", "forms summary")
        out += ["", "The other forms at half selected, int32, against Thrust's same call (stencils and",
                "partition_copy's second output run on the classic engine):", ""]
        out += forms + [""] + [line for line in select if line.startswith("forms summary")]
    out += ["", "### Call time as users write the call (`build/bench/call_time_bench`)", ""]
    out += ['Host clock, median of 301 calls; "+ sync" forms synchronize after each call.', ""]
    table = [line for line in call_time if not line.startswith(("call_time_bench", "goal"))]
    out += code("\n".join(table).strip("\n").split("\n"))
    out += [""] + code(between(scan, "call time at 2^16"))
    out += ["", "### Iterator inputs (`build/bench/scan_bench`)", ""]
    out += code(between(scan, "iterator inputs at"))
    out += ["", "### Sharded scans (`build/bench/sharded_scan_bench`)", ""]
    out += ["One GPU only on this machine: the one-GPU scan of a 2^30 int32 shard and its parts.", ""]
    out += code(between(sharded, "GPU 0,"))
    out += [""] + between(sharded, "| GPUs |", "checks")
    out += ["", "### The ablation", ""]
    out += ["`bench/ABLATION.md` has the ablation's tables and what they show (its runs name their tree);",
            "this run's ablation numbers are the CSV at the end of its bench.log."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
