#!/usr/bin/env bash
# Whether a change leaves every kernel the same code: compiles each source to PTX for sm_90 as it
# is in <commit> (its headers, its version of the source) and as it is in the work tree, and
# compares each kernel's body with mangled names and the translation unit's numbering (branch
# labels, call sequences, strings) taken out. A change that only moves code (files, helpers,
# host-side choices) and leaves every body the same changes neither the speed nor the bits of any
# of these kernels; the GPU A/B then measures host-side cost only.
#
# With --machine-code it compares what ptxas makes of them instead (each kernel's sm_90 machine
# code, the cubin's .text section): PTX that differs only in the order of independent
# instructions may still become the same machine code, and machine code that is the same runs
# the same.
#
# Usage: scripts/ptx-identity.sh [--machine-code] <commit> [source.cu ...]
#   sources: paths in the repository (default: bench/scan_bench.cu bench/scan_by_key_bench.cu
#   bench/select_bench.cu). Needs nvcc only, no GPU. Exit status 0 when every kernel body of every
#   source is in both versions as often; 1 otherwise (the kernels found in one version only are
#   listed).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=ptx
if [[ ${1:-} == --machine-code ]]; then
  mode=cubin
  shift
fi
(($# >= 1)) || { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 2; }
commit=$1
shift
sources=("$@")
((${#sources[@]})) || sources=(bench/scan_bench.cu bench/scan_by_key_bench.cu bench/select_bench.cu)
source scripts/env.sh > /dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old"
git archive "$commit" include tests bench | tar -x -C "$work/old"

compile() { # compile <root> <source> <output>
  nvcc -std=c++17 -arch=sm_90 -O3 --extended-lambda --expt-relaxed-constexpr \
    -I"$1/include" -I"$1/tests" -I"$1/bench" "-$mode" "$1/$2" -o "$3"
}

status=0
for source in "${sources[@]}"; do
  name=$(basename "$source" .cu)
  compile "$work/old" "$source" "$work/$name.old.$mode" &
  compile "$PWD" "$source" "$work/$name.new.$mode"
  wait $!
  python3 - "$work/$name.old.$mode" "$work/$name.new.$mode" "$source" << 'EOF' || status=1
import collections, hashlib, re, struct, sys

def ptx_bodies(path):
    text = open(path).read()
    for m in re.finditer(r'^\.(?:visible|weak) \.entry (\S+)\((.*?)^\}', text, re.S | re.M):
        body = re.sub(r'_Z[0-9A-Za-z_$]+', 'NAME', m.group(0))
        # numbered per translation unit, not per kernel
        body = re.sub(r'\$L__BB[0-9]+_', 'BB_', body)
        body = re.sub(r'callseq [0-9]+', 'callseq', body)
        body = re.sub(r'\$str(\$[0-9]+)?', '$str', body)
        yield m.group(1), body.encode()

def machine_code(path):
    # ELF64: every function's machine code is a section named .text.<mangled name>
    data = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    entsize, count, names_index = struct.unpack_from('<HHH', data, 0x3A)
    headers = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * entsize) for i in range(count)]
    names_at = headers[names_index][4]
    for h in headers:
        name = data[names_at + h[0]:data.index(b'\0', names_at + h[0])].decode()
        if name.startswith('.text.'):
            yield name[6:], data[h[4]:h[4] + h[5]]

def bodies(path):
    count, names = collections.Counter(), {}
    for name, body in (machine_code(path) if path.endswith('.cubin') else ptx_bodies(path)):
        digest = hashlib.sha1(body).hexdigest()
        count[digest] += 1
        names.setdefault(digest, name)
    return count, names

old, old_names = bodies(sys.argv[1])
new, new_names = bodies(sys.argv[2])
only_old, only_new = old - new, new - old
print(f"{sys.argv[3]}: {sum(old.values())} kernels before, {sum(new.values())} after; "
      f"{sum(only_old.values())} bodies before only, {sum(only_new.values())} after only")
for digest in only_old:
    print("  before only:", old_names[digest][:120])
for digest in only_new:
    print("  after only: ", new_names[digest][:120])
sys.exit(0 if not only_old and not only_new else 1)
EOF
done
exit $status
