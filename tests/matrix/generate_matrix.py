#!/usr/bin/env python3
"""Writes the type matrix's test sources: every call Thrust accepts of each algorithm family, for
every element type and every output / init / accumulator type Thrust accepts with it, and each
policy form with each input iterator form (pairwise with the call's forms and types). Each cell is
one GoogleTest case calling a check of matrix_cell.h.

Usage: generate_matrix.py OUT_DIR [--scope full|slice]
  full   every cell
  slice  the cells of a few type pairs chosen for what they exercise (a narrow input into a wide
         accumulator, the widest into the narrowest, the half and struct types) and every tenth
         pairwise cell: what a build that must be quick compiles
Prints one line per source written: "<family> <path>". A file whose text is unchanged is not
rewritten, so that a reconfigure rebuilds nothing."""

import argparse
import os
import sys

# name, C++ type, kind
TYPES = [
    ("bool", "bool", "bool"),
    ("char", "char", "int"),
    ("int8", "std::int8_t", "int"),
    ("uint8", "std::uint8_t", "uint"),
    ("int16", "std::int16_t", "int"),
    ("uint16", "std::uint16_t", "uint"),
    ("int32", "std::int32_t", "int"),
    ("uint32", "std::uint32_t", "uint"),
    ("int64", "std::int64_t", "int"),
    ("uint64", "std::uint64_t", "uint"),
    ("float", "float", "float"),
    ("double", "double", "float"),
    ("half", "__half", "half"),
    ("pair", "spscan_matrix::pair", "pair"),
]
CPP = {name: cpp for name, cpp, _ in TYPES}
SIZE = {"bool": 1, "char": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
        "uint64": 8, "float": 4, "double": 8, "half": 2, "pair": 8}
KIND = {name: kind for name, _, kind in TYPES}
ARITHMETIC = {"bool", "int", "uint", "float"}

POLICIES = ["none", "thrust_device", "spscan_par", "par_nosync", "with_allocator"]

# Keys of the by-key cells, taken in turn (1-byte keys beside 8-byte values lay their image in
# stages differently from 4-byte ones).
KEYS = ["int32", "uint8", "int64", "uint16", "int8", "uint32"]

# Type pairs of the slice (see the usage).
SLICE_PAIRS = {
    ("uint8", "int64"), ("bool", "uint64"), ("int8", "double"), ("char", "int32"), ("uint16", "int64"),
    ("int32", "int64"), ("float", "double"), ("int64", "int8"), ("double", "uint8"), ("half", "half"),
    ("pair", "pair"), ("uint32", "uint32"),
}


def plus_accepts(x, t):
    """thrust::plus<>(X, T) is a valid call: both arithmetic, or both __half (a __half mixes with
    nothing: every mix is ambiguous)."""
    return (KIND[x] in ARITHMETIC and KIND[t] in ARITHMETIC) or (KIND[x] == "half" and KIND[t] == "half")


def converts(t, x):
    """A T is assigned to an X, as Thrust writes its outputs (every arithmetic type and __half,
    but for the 64-bit integers into __half: std::int64_t is a long, which matches none of
    __half's assignments better than the others)."""
    if KIND[t] == "pair" or KIND[x] == "pair":
        return t == x
    return not (x == "half" and t in {"int64", "uint64"})


def computed_ok(t):
    """A counting_iterator<T> or constant_iterator<T> over 1-2 M elements keeps its sums exact."""
    return KIND[t] in {"int", "uint", "float"}


# The forms of each family, and whether a form accepts the types (T in, X out / init).
def scan_form_ok(form, t, x):
    pair = KIND[t] == "pair"
    if pair:
        return x == "pair" and form in {"exclusive_init_op", "inclusive_op", "inclusive_init_op"}
    if form in {"exclusive_init_op", "exclusive_init", "inclusive_init_op"}:
        return plus_accepts(x, t)
    return converts(t, x)


def transform_form_ok(form, t, x):
    """The unary op casts (static_cast takes every arithmetic type into __half), and the scan
    runs in X."""
    if KIND[t] == "pair" or KIND[x] == "pair":
        return t == x
    return plus_accepts(x, x)


def by_key_form_ok(form, t, x):
    if KIND[t] == "pair":
        return x == "pair" and form in {"exclusive_init_pred_op", "inclusive_pred_op"}
    if form in {"exclusive_init", "exclusive_init_pred_op"}:
        return plus_accepts(x, t)
    return converts(t, x)


def select_form_ok(form, t, x):
    return converts(t, x)


def reduce_by_key_form_ok(form, t, x):
    """The sums run in T: by default under thrust::plus<X> (the values' output type), which takes
    two Ts and gives back an X that goes into a T; under op_for<T> otherwise. No __half values:
    CCCL 3.5's Thrust does not compile reduce_by_key of them (its identity test compares a __half
    with 0, which matches two operators)."""
    if KIND[t] == "half" or KIND[x] == "half":
        return False
    if KIND[t] == "pair":
        return x == "pair" and form == "pred_op"
    if form in {"plain", "pred"}:
        return plus_accepts(x, t) and converts(t, x) and converts(x, t)
    return plus_accepts(t, t) and converts(t, x)


FAMILIES = {
    # family: (suite, check, form enum, forms, form check, type-cell form chooser, inputs)
    "scan": dict(
        suite="ScanMatrix",
        forms=["exclusive_init_op", "exclusive_init", "exclusive", "inclusive", "inclusive_op", "inclusive_init_op"],
        form_ok=scan_form_ok,
        inputs=["raw_pointer", "vector_iterator", "counting", "transform", "constant"],
    ),
    "transform_scan": dict(
        suite="TransformScanMatrix",
        forms=["inclusive", "inclusive_init", "exclusive"],
        form_ok=transform_form_ok,
        inputs=["raw_pointer", "vector_iterator", "counting", "transform", "constant"],
    ),
    "scan_by_key": dict(
        suite="ScanByKeyMatrix",
        forms=["exclusive_init", "exclusive_init_pred_op", "exclusive", "inclusive", "inclusive_pred_op"],
        form_ok=by_key_form_ok,
        inputs=["raw_pointer", "vector_iterator", "counting", "transform", "constant", "zip"],
    ),
    "select": dict(
        suite="SelectMatrix",
        forms=["copy_if", "copy_if_stencil", "remove_copy_if", "remove_copy_if_stencil", "partition_copy",
               "partition_copy_stencil"],
        form_ok=select_form_ok,
        inputs=["raw_pointer", "vector_iterator", "counting", "transform", "constant", "zip"],
    ),
    "reduce_by_key": dict(
        suite="ReduceByKeyMatrix",
        forms=["plain", "pred", "pred_op"],
        form_ok=reduce_by_key_form_ok,
        inputs=["raw_pointer", "vector_iterator", "counting", "transform", "constant", "zip"],
    ),
}


def type_cell_form(family, t, x, index):
    """The form a type cell calls: the one whose accumulator is X where the types allow it (the
    output, the init and the accumulator are then all X), else one that converts only the output;
    the selections take their forms in turn."""
    spec = FAMILIES[family]
    if family == "select":
        forms = spec["forms"]
        form = forms[index % len(forms)]
        return form if spec["form_ok"](form, t, x) else None
    preferred = {
        "scan": ["exclusive_init", "exclusive_init_op", "inclusive"],
        "transform_scan": ["inclusive"],
        "scan_by_key": ["exclusive_init", "exclusive_init_pred_op", "inclusive"],
        "reduce_by_key": ["plain", "pred_op"],
    }[family]
    for form in preferred:
        if spec["form_ok"](form, t, x):
            return form
    return None


def check_call(family, form, policy, input_form, t, x, key):
    types = f"{CPP[t]}, {CPP[x]}"
    if family == "scan":
        return f"check_scan<{types}, scan_form::{form}, policy_form::{policy}, input_form::{input_form}>();"
    if family == "transform_scan":
        return (f"check_transform_scan<{types}, transform_scan_form::{form}, policy_form::{policy}, "
                f"input_form::{input_form}>();")
    if family == "scan_by_key":
        return (f"check_scan_by_key<{CPP[key]}, {types}, by_key_form::{form}, policy_form::{policy}, "
                f"input_form::{input_form}>();")
    if family == "reduce_by_key":
        return (f"check_reduce_by_key<{CPP[key]}, {types}, reduce_by_key_form::{form}, policy_form::{policy}, "
                f"input_form::{input_form}>();")
    return f"check_select<{types}, select_form::{form}, policy_form::{policy}, input_form::{input_form}>();"


def type_cells(family):
    """One cell per (T, X) the family accepts: raw pointers (a device_vector's iterators where the
    policy form has no policy), the policy forms in turn."""
    cells = []
    index = 0
    for t, _, _ in TYPES:
        for x, _, _ in TYPES:
            form = type_cell_form(family, t, x, index)
            if form is None:
                continue
            policy = POLICIES[index % len(POLICIES)]
            key = KEYS[index % len(KEYS)]
            if SIZE[t] == 8 and SIZE[x] == 8:
                key = "uint8"  # a tile's 1-byte keys beside its 8-byte values: 512 bytes a warp
            name = f"{t}_into_{x}" + (f"_by_{key}_keys" if family in {"scan_by_key", "reduce_by_key"} else "")
            cells.append(dict(group=t, name=name, pair=(t, x), pairwise=False,
                              call=check_call(family, form, policy, "raw_pointer", t, x, key),
                              comment=f"{form}, {policy}"))
            index += 1
    return cells


def removal_cells():
    """The removals in place, one cell per element type, the forms and the policy forms in turn
    (remove, which compares elements with ==, for the arithmetic types)."""
    cells = []
    for index, (t, cpp, kind) in enumerate(TYPES):
        form = ["remove_if", "remove_if_stencil", "remove"][index % 3]
        if form == "remove" and kind not in ARITHMETIC:
            form = "remove_if"
        policy = POLICIES[index % len(POLICIES)]
        cells.append(dict(group=t, name=f"{t}_{form}_in_place", pair=(t, t), pairwise=False,
                          call=f"check_removal_in_place<{cpp}, removal_form::{form}, policy_form::{policy}>();",
                          comment=policy))
    return cells


def candidate_pairs(input_form):
    """Type pairs for a pairwise cell of an input form, in the order they are taken."""
    if input_form == "counting":
        return [("int64", "int64"), ("uint32", "uint64"), ("uint64", "uint64"), ("double", "double"), ("int32", "int64")]
    if input_form == "constant":
        return [("int32", "int32"), ("int8", "int64"), ("float", "float"), ("uint16", "uint32"), ("double", "double"),
                ("int64", "int64")]
    pairs = []
    for t, _, _ in TYPES:
        for x, _, _ in TYPES:
            if t != "bool" or x != "bool":
                pairs.append((t, x))
    # Spread the types: every sixteenth pair of the product in turn (a new input type each time).
    return [pairs[(i * 16) % len(pairs)] for i in range(len(pairs))]


def pairwise_cells(family):
    """Every policy form with every input form of the family, once each; the call's forms, the
    types and the keys in turn."""
    spec = FAMILIES[family]
    cells = []
    index = 0
    cursor = {}
    for input_form in spec["inputs"]:
        for policy in POLICIES:
            form = spec["forms"][index % len(spec["forms"])]
            candidates = candidate_pairs(input_form)
            start = cursor.get(input_form, 0)
            chosen = None
            for step in range(len(candidates)):
                t, x = candidates[(start + step) % len(candidates)]
                if not spec["form_ok"](form, t, x):
                    continue
                if input_form in {"counting", "constant"} and not computed_ok(t):
                    continue
                chosen = (t, x)
                cursor[input_form] = start + step + 1
                break
            if chosen is None:
                raise SystemExit(f"generate_matrix.py: no type pair for {family} {form} {input_form}")
            t, x = chosen
            key = KEYS[index % len(KEYS)]
            name = f"{policy}_{input_form}_{form}_{t}_into_{x}" + (
                f"_by_{key}_keys" if family in {"scan_by_key", "reduce_by_key"} else "")
            cells.append(dict(group="forms", name=name, pair=(t, x), pairwise=True, index=index,
                              call=check_call(family, form, policy, input_form, t, x, key), comment=""))
            index += 1
    return cells


HEADER = """// Generated by tests/matrix/generate_matrix.py: the {family} cells of the type matrix{part}.
// Each case is one call Thrust accepts, run through spscan and checked against Thrust
// (tests/matrix/matrix_cell.h). Do not edit: change the generator.
#include "matrix_cell.h"

using namespace spscan_matrix;
"""


def render(family, part, cells):
    lines = [HEADER.format(family=family, part={"forms": ": each policy form with each input form",
                                                  "slice": ": a slice"}.get(part, f" with {part} elements"))]
    for cell in cells:
        suite = FAMILIES[family]["suite"] + ("Forms" if cell["pairwise"] else "")
        comment = f" // {cell['comment']}" if cell["comment"] else ""
        lines.append(f"\nTEST({suite}, {cell['name']}){comment}\n{{\n  {cell['call']}\n}}\n")
    return "".join(lines)


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--scope", choices=["full", "slice"], default="full")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    written = []
    for family in FAMILIES:
        cells = type_cells(family) + (removal_cells() if family == "select" else []) + pairwise_cells(family)
        if args.scope == "slice":
            cells = [c for c in cells if (c["pair"] in SLICE_PAIRS and not c["pairwise"])
                     or (c["pairwise"] and c["index"] % 10 == 0)]
        # Four input types a source (~50 cells), the pairwise cells in one of their own; a slice in
        # one source a family. Fewer, larger sources compile faster: each pays its headers once per
        # architecture.
        groups = {}
        order = []
        for cell in cells:
            group = cell["group"] if args.scope == "full" else "slice"
            if group not in {"forms", "slice"}:
                position = [name for name, _, _ in TYPES].index(group)
                group = "_".join(name for name, _, _ in TYPES[position - position % 4:position - position % 4 + 4])
            if group not in groups:
                groups[group] = []
                order.append(group)
            groups[group].append(cell)
        for group in order:
            path = os.path.join(args.out_dir, f"{family}_{group}.cu")
            write_if_changed(path, render(family, group, groups[group]))
            written.append((family, path))
    # Sources of an earlier run that this one did not write are stale.
    keep = {os.path.basename(path) for _, path in written}
    for name in os.listdir(args.out_dir):
        if name.endswith(".cu") and name not in keep:
            os.remove(os.path.join(args.out_dir, name))
    for family, path in written:
        print(family, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
