#!/usr/bin/env python3
"""Classifies every golden case on which the original CVM runtime differs from the contract.

Input: the --json results of replay_golden.py for one backend of the cvm-runtime worker (golden/,
any suite in its format, or case directories given with --case, e.g. a campaign's repros). Each
failing case must match exactly one rule below: a deliberate difference of the contract
(docs/contract.md "Where we differ from the original runtime" = shared/SEMANTICS.md section 6,
or a Decisions item of docs/ops/), an operator the original lacks, or a named bug of the original
(docs/conformance/cvm-runtime.md, "Bugs of the original"). A rule states what it expects to see
(error class, which output property differs, the original's own message), so it never absorbs a
different failure of the same case. Cases no rule explains are listed as unexplained, and the
exit status is 1.

Usage:
  /usr/bin/python3 adapters/cvm-runtime/classify.py --results R.json --backend formal|cpu
      [--golden DIR] [--write-xfail FILE] [--summary] [--campaign campaign.json]
"""
import argparse
import json
import os
import re
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("adapters/cvm-runtime/classify.py: needs numpy, which this python3 ({}) lacks: apt-get install python3-numpy, "
             "or pip install numpy".format(sys.executable))

S6 = "contract.md 'Where we differ from the original runtime' / SEMANTICS.md s6"

# id -> (kind, reason). kind: "contract" or "bug".
REASONS = {
    "param-error": ("contract", S6 + ": attribute parse failure (unknown, missing, malformed or "
                    "non-string value, units < 1, num_newaxis < 1) is the original's runtime_error "
                    "(ParamError, JSON reader or layout CHECK); logic_error here"),
    "unknown-op": ("contract", S6 + ": unknown operator name is the original's runtime_error "
                   "(CHECK in Op::Get); logic_error here"),
    "alias-unknown": ("contract", "contract.md 'Operator names' / SEMANTICS.md 1.4: the aliases "
                      "`slice` and `get_valid_count` are accepted here; the original registers "
                      "neither (runtime_error from Op::Get)"),
    "reduce-dtype-any-string": ("contract", "docs/ops/reduce.md Decisions: `dtype` takes any string "
                                "and has no effect; the original's parser accepts only its list of "
                                "type names (ParamError, runtime_error)"),
    "shape-check-runtime": ("contract", S6 + ": dense W/B shape mismatch, conv2d bias mismatch, "
                            "left shift with p0 + shift_bit > 32 are the original's runtime_error "
                            "(shape-assign CHECK, 'infer precision failed'); logic_error here"),
    "conv2d-weight-unchecked": ("contract", S6 + ": conv2d weight shape inconsistent with the "
                                "attributes is not checked by the original (it reads/writes out of "
                                "bounds: wrong values or a crash); logic_error here (docs/ops/nn.md "
                                "Decisions: weight shape, kernel_size >= 1)"),
    "max-attr-inclusive": ("contract", S6 + ": ranges with max_attr are inclusive of 4096 in the "
                           "original (the call runs: ok, or too slow for the timeout), exclusive "
                           "here (logic_error)"),
    "data-clamped": ("contract", S6 + ": input data outside its precision: the original clamps the "
                     "`data` input (input 0) and runs; every input is rejected here"),
    "int8-precision": ("contract", S6 + ": int8 tensor declared with precision above 8 is accepted "
                       "(widened to int32) by the original; logic_error here"),
    "max-empty-axis": ("contract", S6 + ": max with axis=() gives max(0, max X) in the original; "
                       "the true maximum here"),
    "where-1d-condition": ("contract", S6 + ": where with a 1-D condition copies bytes instead of "
                           "elements in the original (values from outside the row); whole rows here"),
    "where-precision": ("contract", S6 + ": where's output precision is p(cond) in the original; "
                        "max(p1, p2) here"),
    "greater-precision": ("contract", S6 + ": broadcast_greater's output precision is p0 in the "
                          "original; max(p0, 2) here"),
    "right-shift-overflow": ("contract", S6 + ": cvm_right_shift with shift_bit 1 on 2^31-1 "
                             "overflows int32 in the original (-2^30); exact 2^30 here"),
    "reshape-minus1-position": ("contract", S6 + ": reshape -1 after a -2/-3/-4 code: the original "
                                "writes the inferred size at the code's index in the list (a wrong "
                                "shape, a failed product check, or a write past the end of its "
                                "shape vector: heap corruption, abort); at its output position here"),
    "reshape-split-zero": ("contract", S6 + ": reshape -4 with a 0: the original divides by the "
                           "0 when the other part is -1 (SIGFPE, the process dies); logic_error "
                           "here"),
    "reshape-code-below-minus-4": ("contract", S6 + ": reshape code below -4 is silently ignored by "
                                   "the original; logic_error here"),
    "slice-default-end": ("contract", S6 + ": strided_slice's default `end` is (1,) in the original "
                          "(axis 0 ends at 1); the full extent here (formalization v2)"),
    "slice-lists-longer": ("contract", S6 + ": strided_slice attribute lists longer than N are "
                           "accepted by the original (extra entries read past the shape); "
                           "logic_error here"),
    "gvc-k32": ("contract", S6 + ": get_valid_counts K: the original allows at most 31; 32 here "
                "(formalization v2)"),
    "fill-precision": ("contract", S6 + ": -1 fill in get_valid_counts / non_max_suppression with "
                       "p0 = 1: the original's output precision is p0 (too small for -1); "
                       "max(p0, 2) here"),
    "nms-precision-31": ("contract", S6 + ": non_max_suppression input precision 31 or 32 is "
                         "accepted by the original (coordinate differences overflow int32); "
                         "logic_error here"),
    "bug-strided-slice-huge-stride": ("bug", "bug of the original 'strided-slice-huge-stride': "
                                      "StridedSliceInferShape computes the slice size as "
                                      "(interval + |s| - 1) / |s| in int64: for |s| near 2^63 the sum "
                                      "overflows (and std::abs(INT64_MIN) is undefined), the size "
                                      "becomes 0 or negative and the graph's shape check rejects "
                                      "the call; the contract takes one element"),
    "bug-reshape-split-part-truncated-to-int": ("bug", "bug of the original "
                                                "'reshape-split-part-truncated-to-int': "
                                                "ReshapeInferShape reads a -4 split's two parts "
                                                "as int: a part outside int32 is truncated "
                                                "(INT64_MIN becomes 0: division by zero, SIGFPE; "
                                                "2^63-1 becomes -1: inferred), where the contract "
                                                "rejects the call"),
    "bug-cpu-left-shift-attr-as-string": ("bug", "bug of the original "
                                          "'cpu-left-shift-attr-as-string': the cpu cvm_left_shift "
                                          "kernel converts its attribute handle (args[2]) to "
                                          "std::string, whose type check fails: every call is a "
                                          "runtime_error"),
    "bug-cpu-right-shift-large-shift": ("bug", "bug of the original "
                                        "'cpu-right-shift-large-shift': for shift_bit >= 31 the cpu "
                                        "kernel returns a >> 31 (0 or -1) instead of the rounded "
                                        "quotient that the formal backend and the contract give"),
    "bug-cpu-right-shift-unclipped": ("bug", "bug of the original 'cpu-right-shift-unclipped': when "
                                      "precision + shift_bit >= 32 the cpu cvm_right_shift kernel "
                                      "skips the clip to the output precision (e.g. 65536 where "
                                      "precision 17 allows 65535)"),
    "bug-cpu-reduce-kept-unit-dim": ("bug", "bug of the original 'cpu-reduce-kept-unit-dim': the "
                                     "cpu sum/max drop every size-1 dim of the output shape and then "
                                     "map the remaining output dims onto the kept input dims, which "
                                     "still include the size-1 ones: with a kept input dim of size "
                                     "1 the outputs read the wrong elements"),
    "bug-cpu-nms-early-return": ("bug", "bug of the original 'cpu-nms-early-return': on a batch "
                                 "with valid_count <= 0 the cpu non_max_suppression returns from "
                                 "the whole call, so the later batches' outputs are never written"),
    "bug-cpu-nms-max-output-size-0": ("bug", "bug of the original 'cpu-nms-max-output-size-0': the "
                                      "cpu kernel treats max_output_size = 0 as unlimited; formal "
                                      "and the contract keep no row"),
    "bug-cpu-nms-negative-id-suppresses": ("bug", "bug of the original "
                                           "'cpu-nms-negative-id-suppresses': a row with a negative "
                                           "id is not output by the cpu kernel but still "
                                           "suppresses the rows after it (formal and the contract "
                                           "skip it)"),
}


def load_case(golden, key, directory=None):
    d = directory or os.path.join(golden, key)
    case = json.load(open(os.path.join(d, "case.json")))
    arrays = [np.load(os.path.join(d, i["file"]), allow_pickle=False) for i in case["inputs"]]
    return case, arrays


def parse_tuple(text):
    text = text.strip()
    if text and text[0] not in "([":
        return [int(text)]
    body = text[1:-1].strip().rstrip(",")
    return [int(t) for t in body.split(",")] if body.strip() else []


def minus1_misplaced(codes, ndim):
    """Whether the original's ReshapeInferShape writes an inferred -1 at a list index that is not
    its output position (it writes oshape[i] with i the code's index in the list)."""
    out, src, i = 0, 0, 0
    while i < len(codes):
        c = codes[i]
        if c > 0 or c == 0:
            out, src = out + 1, src + 1
        elif c == -1:
            if i != out:
                return True
            out, src = out + 1, src + 1
        elif c == -2:
            out, src = out + max(0, ndim - src), max(src, ndim)
        elif c == -3:
            out, src = out + 1, src + 2
        elif c == -4:
            out, src, i = out + 2, src + 1, i + 2
        i += 1
    return False


def split_zero_with_infer(codes):
    """A -4 split whose parts are a 0 and a -1: the original divides by the 0."""
    i = 0
    while i < len(codes):
        if codes[i] == -4:
            parts = codes[i + 1:i + 3]
            if 0 in parts and -1 in parts:
                return True
            i += 2
        i += 1
    return False


def split_part_outside_int32(codes):
    """A -4 split whose part does not fit int32: the original reads the parts as int."""
    i = 0
    while i < len(codes):
        if codes[i] == -4:
            if any(not -(1 << 31) <= p < (1 << 31) for p in codes[i + 1:i + 3]):
                return True
            i += 2
        i += 1
    return False


def classify(res, case, arrays, backend):
    """The rule id explaining a failing result, or None."""
    op = case["op"]
    name = res["case"].split("/", 1)[1]
    # A campaign repro is named by its seed; its note names the rule the call breaks.
    hint = re.search(r"\brule=([A-Za-z0-9_]+)", case.get("note", "") or "")
    if hint:
        name += " " + hint.group(1)
    want = case.get("expect", {}).get("outcome")
    got = res.get("outcome")
    msg = res.get("message", "")
    detail = res.get("detail", "")
    attrs = case.get("attrs", {}) if isinstance(case.get("attrs"), dict) else {}
    precs = [i["precision"] for i in case["inputs"]]
    value_diff = detail.startswith("output") and "value at" in detail
    prec_diff = detail.startswith("output") and "precision" in detail
    shape_diff = detail.startswith("output") and "shape" in detail

    # Both backends overflow (t + 1) here, before any clip: the contract's row, not a cpu bug.
    if op == "cvm_right_shift" and value_diff and int(attrs.get("shift_bit", "0")) == 1 and \
            int(arrays[0].max()) == (1 << 31) - 1:
        return "right-shift-overflow"
    # cpu-only bugs next: they mask what formal shows for the same case.
    if backend == "cpu":
        if op == "cvm_left_shift" and got == "runtime_error" and "packed_func.h" in msg:
            return "bug-cpu-left-shift-attr-as-string"
        if op == "cvm_right_shift" and value_diff and int(attrs.get("shift_bit", "0")) >= 31:
            return "bug-cpu-right-shift-large-shift"
        if op == "cvm_right_shift" and value_diff and \
                int(attrs.get("precision", "0")) + int(attrs.get("shift_bit", "0")) >= 32:
            return "bug-cpu-right-shift-unclipped"
        if op in ("sum", "max") and value_diff:
            n = arrays[0].ndim
            axes = {a + n if a < 0 else a for a in parse_tuple(attrs.get("axis", "()"))}
            exclude = attrs.get("exclude", "false").strip() in ("true", "True", "1")
            reduced = set(range(n)) if not axes else (set(range(n)) - axes if exclude else axes)
            kept = [d for d in range(n) if d not in reduced]
            if reduced and any(arrays[0].shape[d] == 1 for d in kept):
                return "bug-cpu-reduce-kept-unit-dim"
        if op == "non_max_suppression" and value_diff:
            vc = arrays[1].reshape(-1)
            if any(v <= 0 for v in vc[:-1]):
                return "bug-cpu-nms-early-return"
            if attrs.get("max_output_size", "-1").strip() == "0":
                return "bug-cpu-nms-max-output-size-0"
            if (arrays[0][..., 0] < 0).any():
                return "bug-cpu-nms-negative-id-suppresses"

    if got == "runtime_error" and "is not registered" in msg and op in ("slice", "get_valid_count"):
        return "alias-unknown"
    if op in ("sum", "max") and want == "ok" and got == "runtime_error" and \
            re.search(r"Invalid Input: .*valid values are", msg) and "dtype" in attrs:
        return "reduce-dtype-any-string"
    if want == "logic_error" and got == "runtime_error":
        if re.search(r"Invalid Parameter format|Cannot find argument|is not presented|"
                     r"should be greater equal to|json\.h:\d+:.*Expect '\"'|Invalid Input: |"
                     r"layout\.h:\d+:.*Invalid layout", msg):
            return "param-error"
        if "is not registered" in msg:
            return "unknown-op"
        if op in ("dense", "conv2d") and re.search(r"(nn|convolution)\.cc:\d+:.*(Shape|shape)", msg):
            return "shape-check-runtime"
        if op == "cvm_left_shift" and "infer precision failed" in msg and \
                precs[0] + int(attrs.get("shift_bit", "0")) > 32:
            return "shape-check-runtime"
    if op == "conv2d" and want == "logic_error" and got in ("ok", "crash") and \
            re.search(r"weight|kernel_size_zero|kernel_size_below_1", name):
        return "conv2d-weight-unchecked"
    if want == "logic_error" and re.search(r"4096|above_4095", name) and (
            got in ("ok", "hang") or (got == "runtime_error" and "frame limit" in msg)):
        return "max-attr-inclusive"
    if want == "logic_error" and got == "ok":
        if re.search(r"value_outside_precision|int32_min_value", name):
            p = precs[0]
            a = (1 << (p - 1)) - 1 if 1 <= p <= 32 else None
            if a is not None and int(np.abs(arrays[0].astype(np.int64)).max()) > a and all(
                    1 <= q <= 32 and int(np.abs(x.astype(np.int64)).max()) <= (1 << (q - 1)) - 1
                    for x, q in zip(arrays[1:], precs[1:])):
                return "data-clamped"
        if "int8_precision_above_8" in name and any(
                x.dtype == np.int8 and q > 8 for x, q in zip(arrays, precs)):
            return "int8-precision"
        if op == "reshape" and any(c < -4 for c in parse_tuple(attrs.get("shape", "()"))):
            return "reshape-code-below-minus-4"
        if op == "strided_slice" and any(
                len(parse_tuple(attrs.get(k, "()"))) > arrays[0].ndim for k in ("begin", "end", "stride")):
            return "slice-lists-longer"
        if op == "non_max_suppression" and precs[0] in (31, 32):
            return "nms-precision-31"
    if op == "max" and value_diff and parse_tuple(attrs.get("axis", "()")) == [] and \
            int(arrays[0].max()) < 0:
        return "max-empty-axis"
    if op == "where":
        one_d = arrays[0].ndim == 1 and arrays[1].ndim > 1
        if one_d and (value_diff or prec_diff):
            return "where-1d-condition"
        if prec_diff:
            return "where-precision"
    if op == "broadcast_greater" and prec_diff:
        return "greater-precision"
    if op == "reshape":
        codes = parse_tuple(attrs.get("shape", "()"))
        if split_part_outside_int32(codes):
            return "bug-reshape-split-part-truncated-to-int"
        if got == "crash" and split_zero_with_infer(codes):
            return "reshape-split-zero"
        if minus1_misplaced(codes, arrays[0].ndim) and (
                shape_diff or got == "crash" or (want == "ok" and got == "logic_error")):
            return "reshape-minus1-position"
    if op == "strided_slice":
        stride = parse_tuple(attrs.get("stride", "()"))
        if want == "ok" and got == "logic_error" and any(abs(s) > (1 << 63) - (1 << 24) for s in stride):
            return "bug-strided-slice-huge-stride"
        if (shape_diff or (want == "ok" and got == "logic_error")) and \
                len(parse_tuple(attrs.get("end", "()"))) < arrays[0].ndim:
            return "slice-default-end"
    if op == "get_valid_counts" and want == "ok" and got == "logic_error" and arrays[0].shape[-1] == 32:
        return "gvc-k32"
    if op in ("get_valid_counts", "non_max_suppression") and prec_diff and precs[0] == 1:
        return "fill-precision"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--backend", required=True, choices=["formal", "cpu"])
    ap.add_argument("--golden", default=os.path.join(os.path.dirname(__file__), "..", "..", "golden"))
    ap.add_argument("--write-xfail")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--campaign", help="a campaign.json whose repro directories the results replayed: "
                    "classify its findings (a finding is explained when its repros are)")
    args = ap.parse_args()
    results = json.load(open(args.results))
    by_rule, unexplained = {}, []
    rule_of_dir = {}
    counts = {"pass": 0, "skipped": 0}
    for res in results:
        if res["status"] in ("pass", "skipped"):
            counts[res["status"]] += 1
            continue
        case, arrays = load_case(args.golden, res["case"], res.get("dir"))
        rule = classify(res, case, arrays, args.backend)
        rule_of_dir[os.path.realpath(res.get("dir", ""))] = rule or "UNEXPLAINED"
        if rule is None:
            unexplained.append(res)
        else:
            by_rule.setdefault(rule, []).append(res["case"])
    if args.write_xfail:
        with open(args.write_xfail, "w") as f:
            f.write(f"# Expected failures of the original CVM runtime's {args.backend} backend on golden/\n"
                    f"# (adapters/cvm-runtime, docs/conformance/cvm-runtime.md). Generated by\n"
                    f"# adapters/cvm-runtime/classify.py from a replay; every entry names the contract\n"
                    f"# section or the bug of the original that explains it. Format: 'op/case reason'.\n")
            for rule in REASONS:
                if rule not in by_rule:
                    continue
                kind, reason = REASONS[rule]
                f.write(f"\n# [{rule}] ({kind}) {reason}\n")
                for key in sorted(by_rule[rule]):
                    f.write(f"{key} [{rule}] {'bug of the original' if kind == 'bug' else S6}\n")
    total = sum(len(v) for v in by_rule.values())
    print(f"backend {args.backend}: pass {counts['pass']}, expected failures {total}, "
          f"unexplained {len(unexplained)}, skipped {counts['skipped']} (operators the original lacks)")
    if args.summary:
        for rule in REASONS:
            if rule in by_rule:
                print(f"  {len(by_rule[rule]):4d}  [{rule}] ({REASONS[rule][0]})")
    for res in unexplained:
        print(f"unexplained: {res['case']}: {res.get('outcome')}: {res.get('detail')}: "
              f"{res.get('message', '')[:200]}")
    bad_findings = 0
    if args.campaign:
        for res in results:
            if res["status"] == "pass":
                rule_of_dir[os.path.realpath(res.get("dir", ""))] = "agreed on replay"
        findings = json.load(open(args.campaign))["findings"]
        print(f"campaign findings: {len(findings)}")
        for f in findings:
            dirs = f.get("repro_dirs") or ([f["repro_dir"]] if f.get("repro_dir") else [])
            rules = [rule_of_dir.get(os.path.realpath(d), "NOT REPLAYED") for d in dirs]
            real = {r for r in rules if r not in ("agreed on replay",)}
            ok = real and not any(r in ("UNEXPLAINED", "NOT REPLAYED") for r in real)
            bad_findings += 0 if ok else 1
            print(f"  {'' if ok else 'UNEXPLAINED '}{f['signature']} ({f['calls']} calls): "
                  f"{', '.join(rules) if rules else 'no repro'}")
    return 1 if unexplained or bad_findings else 0


if __name__ == "__main__":
    sys.exit(main())
