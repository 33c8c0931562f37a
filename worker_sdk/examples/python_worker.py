#!/usr/bin/env python3
"""An example external backend in Python (numpy): abs, negative, clip, cvm_clip, elemwise_add and
sum, written from the contract (docs/contract.md, docs/ops/elementwise.md, docs/ops/reduce.md).
Besides the arithmetic a worker must check every input and attribute and refuse a bad one with
LogicError, so that its error classes agree with the reference's; most of this file is that.

    /usr/bin/python3 worker_sdk/examples/python_worker.py     (speaks the protocol on stdin/stdout)
    cvmcheck campaign --ops abs,sum --backends exec:"/usr/bin/python3 worker_sdk/examples/python_worker.py"
"""

import os
import re
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("worker_sdk/examples/python_worker.py: needs numpy, which this python3 ({}) lacks: apt-get install python3-numpy, "
             "or pip install numpy".format(sys.executable))

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import cvmcheck_worker as cw  # noqa: E402  (the helper lives beside this folder)

_SPACE = " \t\n\r"
_DECIMAL = re.compile(r"[+-]?[0-9]+")
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def alpha(p):
    return (1 << (p - 1)) - 1


def bitlen(v):
    return int(abs(int(v))).bit_length()


def check_inputs(call, count):
    """The contract's tensor limits and input rules (docs/contract.md, "Tensors")."""
    if len(call.inputs) != count:
        raise cw.LogicError(f"{call.op} takes {count} input(s), got {len(call.inputs)}")
    for k, t in enumerate(call.inputs):
        shape = t.array.shape
        if not 1 <= len(shape) <= 6 or any(not 1 <= d <= 1 << 24 for d in shape):
            raise cw.LogicError(f"input {k} shape {shape} breaks the tensor limits")
        if t.array.size > 1 << 30:
            raise cw.LogicError(f"input {k} has more than 2^30 elements")
        if not 1 <= t.precision <= 32:
            raise cw.LogicError(f"input {k} precision {t.precision} outside [1, 32]")
        if t.array.dtype == np.int8 and t.precision > 8:
            raise cw.LogicError(f"input {k} is int8 with precision {t.precision} > 8")
        a = alpha(t.precision)
        if t.array.min() < -a or t.array.max() > a:
            raise cw.LogicError(f"input {k} holds a value outside precision {t.precision}")


def attrs_of(call, schema):
    """The attributes as {name: text}, defaults filled in; `schema` maps each allowed name to its
    default text (None: required)."""
    if call.attrs is None:
        raise cw.LogicError(f"attributes are not an object of strings: {call.attrs_json}")
    for key in call.attrs:
        if key not in schema:
            raise cw.LogicError(f"unknown attribute '{key}'")
    out = {}
    for key, default in schema.items():
        if key not in call.attrs and default is None:
            raise cw.LogicError(f"missing attribute '{key}'")
        out[key] = call.attrs.get(key, default)
    return out


def parse_int(text, lo=INT32_MIN, hi=INT32_MAX, what="int"):
    body = text.strip(_SPACE)
    if not _DECIMAL.fullmatch(body):
        raise cw.LogicError(f"malformed {what} '{text}'")
    value = int(body)
    if not lo <= value <= hi:
        raise cw.LogicError(f"{what} '{text}' out of range")
    return value


def parse_bool(text):
    body = text.strip(_SPACE)
    if body in ("true", "True", "1"):
        return True
    if body in ("false", "False", "0"):
        return False
    raise cw.LogicError(f"malformed bool '{text}'")


def parse_tuple(text):
    """(1, 2), [1,2], (1,), (), [] or a bare 3; int64 entries; one trailing comma allowed."""
    body = text.strip(_SPACE)
    entry = dict(lo=-(1 << 63), hi=(1 << 63) - 1, what="tuple entry")
    if not body:
        raise cw.LogicError(f"malformed tuple '{text}'")
    if body[0] not in "([":
        return [parse_int(body, **entry)]
    if len(body) < 2 or body[-1] != {"(": ")", "[": "]"}[body[0]]:
        raise cw.LogicError(f"malformed tuple '{text}'")
    inner = body[1:-1].strip(_SPACE)
    if not inner:
        return []
    items = inner.split(",")
    if items[-1].strip(_SPACE) == "" and len(items) > 1:
        items.pop()  # the one trailing comma
    return [parse_int(item, **entry) for item in items]


def unary(call, schema, count=1):
    attrs = attrs_of(call, schema)
    check_inputs(call, count)
    return attrs, call.inputs[0]


def op_abs(call):
    _, x = unary(call, {})
    return [cw.Tensor(np.abs(x.array.astype(np.int32)), x.precision)]


def op_negative(call):
    _, x = unary(call, {})
    return [cw.Tensor(-x.array.astype(np.int32), x.precision)]


def op_clip(call):
    attrs, x = unary(call, {"a_min": None, "a_max": None})
    lo, hi = parse_int(attrs["a_min"]), parse_int(attrs["a_max"])
    if lo == INT32_MIN or hi == INT32_MIN:
        raise cw.LogicError("clip bound outside [-(2^31 - 1), 2^31 - 1]")
    if lo >= hi:
        raise cw.LogicError(f"a_min {lo} must be below a_max {hi}")
    precision = bitlen(max(abs(lo), abs(hi)) + 1) + 1
    if precision > 32:
        raise cw.LogicError(f"clip output precision {precision} above 32")
    return [cw.Tensor(np.clip(x.array.astype(np.int64), lo, hi), precision)]


def op_cvm_clip(call):
    attrs, x = unary(call, {"precision": None, "is_sign": "true"})
    precision = parse_int(attrs["precision"])
    parse_bool(attrs["is_sign"])  # accepted and ignored, but it must be a bool
    if not 1 <= precision <= 32:
        raise cw.LogicError(f"cvm_clip precision {precision} outside [1, 32]")
    a = alpha(precision)
    return [cw.Tensor(np.clip(x.array.astype(np.int64), -a, a), precision)]


def op_elemwise_add(call):
    attrs_of(call, {})
    check_inputs(call, 2)
    a, b = call.inputs
    if a.array.shape != b.array.shape:
        raise cw.LogicError(f"input shapes {a.array.shape} and {b.array.shape} differ")
    precision = max(a.precision, b.precision) + 1
    if precision > 32:
        raise cw.LogicError(f"output precision {precision} above 32")
    return [cw.Tensor(a.array.astype(np.int64) + b.array, precision)]


def op_sum(call):
    attrs, x = unary(call, {"axis": "()", "keepdims": "false", "exclude": "false",
                            "dtype": "int32"})
    axes = parse_tuple(attrs["axis"])
    keepdims, exclude = parse_bool(attrs["keepdims"]), parse_bool(attrs["exclude"])
    n = x.array.ndim
    for a in axes:
        if not -n <= a < n:
            raise cw.LogicError(f"axis {a} outside [{-n}, {n})")
    listed = [a + n if a < 0 else a for a in axes]
    if len(set(listed)) != len(listed):
        raise cw.LogicError(f"axis {axes} repeats an axis")
    if not listed:
        reduced = tuple(range(n))
    elif exclude:
        reduced = tuple(a for a in range(n) if a not in listed)
    else:
        reduced = tuple(sorted(listed))
    y = np.sum(x.array, axis=reduced, dtype=np.int64, keepdims=keepdims)
    if len(reduced) == n and not keepdims:
        y = y.reshape(1)  # every axis reduced: (1,), where numpy gives a scalar
    precision = x.precision + bitlen(x.array.size // max(y.size, 1))
    if precision > 32:
        raise cw.LogicError(f"sum output precision {precision} above 32")
    return [cw.Tensor(y, precision)]


OPS = {"abs": op_abs, "negative": op_negative, "clip": op_clip, "cvm_clip": op_cvm_clip,
       "elemwise_add": op_elemwise_add, "sum": op_sum}


def handle(call):
    op = OPS.get(call.op)
    if op is None:
        raise cw.LogicError(f"unknown operator '{call.op}'")
    return op(call)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # --help, or anything: the worker takes no arguments
        print(__doc__.strip())
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    sys.exit(cw.serve("example-python", list(OPS), handle))
