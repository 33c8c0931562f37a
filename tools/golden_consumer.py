#!/usr/bin/env python3
"""A consumer of the cvmcheck golden suite written with numpy and json only.

It proves docs/golden-format.md is enough to use the fixtures from another language: it loads
every case listed in MANIFEST.json, checks every file's sha256, every tensor's dtype, order,
shape limits and precision, and recomputes the simple operators (elementwise, broadcast,
transpose, reduce, ...) with numpy itself, comparing values, shapes and output precisions
exactly with the stored outputs.

Usage: /usr/bin/python3 tools/golden_consumer.py [GOLDEN_DIR]
Exit status 0 when every check passes.
"""
import argparse
import hashlib
import json
import os
import re
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("tools/golden_consumer.py: needs numpy, which this python3 ({}) lacks: apt-get install python3-numpy, "
             "or pip install numpy".format(sys.executable))

MAX_NDIM, MAX_DIM, MAX_ELEMENTS = 6, 1 << 24, 1 << 30


def alpha(p):
    return (1 << (p - 1)) - 1


def bitlen(k):
    return int(k).bit_length()


def parse_tuple(text):
    text = text.strip()
    if not text or text[0] not in "([":
        return (int(text),)
    body = text[1:-1].strip().rstrip(",")
    return tuple(int(t) for t in body.split(",")) if body.strip() else ()


def parse_bool(text):
    return text.strip() in ("true", "True", "1")


def load(case_dir, entry):
    array = np.load(os.path.join(case_dir, entry["file"]), allow_pickle=False)
    assert array.dtype in (np.int8, np.int32), f"{entry['file']}: dtype {array.dtype}"
    assert array.flags["C_CONTIGUOUS"], f"{entry['file']}: not C order"
    return array, entry["precision"]


def check_tensor(array, precision, what):
    """The tensor rules of the contract, for a tensor that a valid call or an output holds."""
    assert 1 <= array.ndim <= MAX_NDIM, f"{what}: ndim {array.ndim}"
    assert all(1 <= d <= MAX_DIM for d in array.shape), f"{what}: shape {array.shape}"
    assert array.size <= MAX_ELEMENTS, f"{what}: too many elements"
    assert 1 <= precision <= 32, f"{what}: precision {precision}"
    a = alpha(precision)
    assert int(np.abs(array.astype(np.int64)).max()) <= a, f"{what}: value beyond precision"


# Recomputations: (inputs as int64 arrays, precisions, attrs) -> (output, precision) or None when
# this consumer does not handle the attribute combination.
def elementwise_binary(op):
    def run(x, p, attrs):
        if attrs or x[0].shape != x[1].shape:
            return None
        y = x[0] + x[1] if op == "add" else x[0] - x[1]
        return y, max(p) + 1
    return run


def broadcast(op):
    def run(x, p, attrs):
        if attrs:
            return None
        a, b = x
        if op == "add":
            return a + b, max(p) + 1
        if op == "sub":
            return a - b, max(p) + 1
        if op == "mul":
            return a * b, p[0] + p[1]
        if op == "max":
            return np.maximum(a, b), max(p)
        if op == "greater":
            return (a > b).astype(np.int64), max(p[0], 2)
        if op == "div":
            bb = np.broadcast_to(b, np.broadcast(a, b).shape)
            aa = np.broadcast_to(a, bb.shape)
            safe = np.where(bb == 0, 1, bb)
            q = np.abs(aa) // np.abs(safe) * np.sign(aa) * np.sign(safe)  # truncation
            return np.where(bb == 0, 0, q), p[0]
        return None
    return run


def reduce(op):
    def run(x, p, attrs):
        (a,), n = x, x[0].ndim
        axes = parse_tuple(attrs.get("axis", "()"))
        keepdims = parse_bool(attrs.get("keepdims", "false"))
        exclude = parse_bool(attrs.get("exclude", "false"))
        listed = {ax + n if ax < 0 else ax for ax in axes}
        reduced = tuple(range(n)) if not axes else tuple(
            i for i in range(n) if (i in listed) != exclude)
        f = np.sum if op == "sum" else np.max
        y = f(a, axis=reduced, keepdims=keepdims) if reduced else a.copy()
        if len(reduced) == n and not keepdims:
            y = np.reshape(y, (1,))
        ratio = a.size // max(1, np.size(y))
        return np.asarray(y), (p[0] + bitlen(ratio) if op == "sum" else p[0])
    return run


def transpose(x, p, attrs):
    axes = parse_tuple(attrs.get("axes", "()"))
    return np.transpose(x[0], axes if axes else None), p[0]


def unary(f, precision=None):
    def run(x, p, attrs):
        if attrs:
            return None
        return f(x[0]), (precision if precision else p[0])
    return run


def cvm_clip(x, p, attrs):
    prec = int(attrs["precision"])
    a = alpha(prec)
    return np.clip(x[0], -a, a), prec


RECOMPUTE = {
    "elemwise_add": elementwise_binary("add"),
    "elemwise_sub": elementwise_binary("sub"),
    "broadcast_add": broadcast("add"),
    "broadcast_sub": broadcast("sub"),
    "broadcast_mul": broadcast("mul"),
    "broadcast_max": broadcast("max"),
    "broadcast_greater": broadcast("greater"),
    "broadcast_div": broadcast("div"),
    "sum": reduce("sum"),
    "max": reduce("max"),
    "transpose": transpose,
    "abs": unary(np.abs),
    "negative": unary(np.negative),
    "relu": unary(lambda a: np.maximum(a, 0)),
    "cvm_clip": cvm_clip,
}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Exit status 0 when every check passes, 1 when one fails, 2 for usage errors.")
    parser.add_argument("golden_dir", nargs="?", default="golden",
                        help="the suite's directory, holding MANIFEST.json (default golden)")
    root = parser.parse_args(argv).golden_dir
    if not os.path.isfile(os.path.join(root, "MANIFEST.json")):
        parser.error(f"{root}: no MANIFEST.json there (not a golden suite directory)")
    with open(os.path.join(root, "MANIFEST.json")) as f:
        manifest = json.load(f)
    assert manifest["format"] == "cvmcheck-golden", "not a cvmcheck golden suite"
    assert manifest["format_version"] == 1, "unknown format version"
    counts = {"cases": 0, "ok": 0, "errors": 0, "recomputed": 0}
    failures = []
    for entry in manifest["cases"]:
        case_dir = os.path.join(root, entry["dir"])
        where = entry["dir"]
        try:
            for name, digest in entry["files"].items():
                assert sha256(os.path.join(case_dir, name)) == digest, f"{name}: sha256"
            with open(os.path.join(case_dir, "case.json")) as f:
                case = json.load(f)
            assert case["op"] == entry["op"]
            expect = case["expect"]
            assert expect["outcome"] == entry["outcome"]
            counts["cases"] += 1
            inputs = [load(case_dir, t) for t in case["inputs"]]
            if expect["outcome"] != "ok":
                counts["errors"] += 1
                continue
            counts["ok"] += 1
            for k, (array, precision) in enumerate(inputs):
                check_tensor(array, precision, f"input {k}")
                if array.dtype == np.int8:
                    assert precision <= 8, f"input {k}: int8 with precision {precision}"
            outputs = [load(case_dir, t) for t in expect["outputs"]]
            for k, (array, precision) in enumerate(outputs):
                assert array.dtype == np.int32, f"output {k} is not int32"
                check_tensor(array, precision, f"output {k}")
            recompute = RECOMPUTE.get(case["op"])
            attrs = case.get("attrs") or {}
            if recompute is None or not isinstance(attrs, dict):
                continue
            got = recompute([a.astype(np.int64) for a, _ in inputs], [p for _, p in inputs], attrs)
            if got is None:
                continue
            y, precision = got
            want, want_precision = outputs[0]
            assert y.shape == want.shape, f"shape {y.shape} vs stored {want.shape}"
            assert precision == want_precision, f"precision {precision} vs {want_precision}"
            assert np.array_equal(y, want.astype(np.int64)), "values differ from numpy"
            counts["recomputed"] += 1
        except (AssertionError, KeyError, ValueError, OSError) as e:
            failures.append(f"{where}: {e}")
    for line in failures:
        print("FAIL", line)
    print(f"golden consumer: {counts['cases']} cases ({counts['ok']} ok, {counts['errors']} "
          f"error cases), {counts['recomputed']} recomputed with numpy, {len(failures)} failed")
    print(f"{counts['cases'] - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or counts["cases"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
