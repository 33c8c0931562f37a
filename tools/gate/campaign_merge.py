#!/usr/bin/env python3
"""Merges the reports of a sharded campaign (`cvmcheck campaign --shard K/N --seed S`, one CI
matrix job per shard) into one: the conformance tables and counts summed, the findings grouped
by signature across shards (their calls summed, the first shard's report and repro kept).

  python3 tools/gate/campaign_merge.py --out DIR SHARD_DIR_OR_JSON...

Writes DIR/campaign.json (the campaign's own shape, with "shard": "merged K of N"),
DIR/junit.xml and DIR/table.md. Exit 0 when no shard found a mismatch and every compared
backend compared something; 1 otherwise; 2 when the inputs are not shards of one campaign
(different seeds or shard counts, a shard given twice).
"""

import argparse
import json
import os
import sys
import xml.sax.saxutils

COUNTS = ("cases", "ok", "logic_error", "runtime_error", "mismatches", "skipped", "expected")


def load(paths):
    shards = []
    for p in paths:
        path = os.path.join(p, "campaign.json") if os.path.isdir(p) else p
        with open(path) as f:
            shards.append(json.load(f))
    return shards


def check_shards(shards):
    """None, or why these reports are not shards of one campaign."""
    if not shards:
        return "no shard report given"
    seeds = {s["seed"] for s in shards}
    if len(seeds) > 1:
        return f"different seeds {sorted(seeds)}: not shards of one campaign"
    names = [s.get("shard", "1/1") for s in shards]
    counts = {n.split("/")[1] for n in names}
    if len(counts) > 1:
        return f"different shard counts: {names}"
    if len(set(names)) != len(names):
        return f"a shard is given twice: {names}"
    return None


def merge(shards):
    first = shards[0]
    merged = {
        "seed": first["seed"],
        "shard": f"merged {len(shards)} of {first.get('shard', '1/1').split('/')[1]}",
        "seconds": max(s["seconds"] for s in shards),
        "shard_seconds": [s["seconds"] for s in shards],
        "backends": first["backends"],
        "skipped_backends": {},
        "table": {},
        "op_seconds": {},
        "phase_seconds": {},
        "page_faults": {"minor": 0, "major": 0},
        "cpu_seconds": 0.0,
        "run": first.get("run", {}),
        "findings": [],
    }
    for key in ("calls", "mismatching_calls", "expected_failures", "repros_written",
                "repro_bytes", "generator_failures"):
        merged[key] = sum(s.get(key, 0) for s in shards)
    by_signature = {}
    for s in shards:
        merged["skipped_backends"].update(s.get("skipped_backends", {}))
        for op, row in s["table"].items():
            for backend, cell in row.items():
                into = merged["table"].setdefault(op, {}).setdefault(
                    backend, dict.fromkeys(COUNTS, 0))
                for k in COUNTS:
                    into[k] += cell.get(k, 0)
        for op, t in s.get("op_seconds", {}).items():
            merged["op_seconds"][op] = merged["op_seconds"].get(op, 0.0) + t
        # The profile (cvmcheck campaign --profile), summed over the shards like --jobs does.
        for phase, t in s.get("phase_seconds", {}).items():
            merged["phase_seconds"][phase] = merged["phase_seconds"].get(phase, 0.0) + t
        for kind in ("minor", "major"):
            merged["page_faults"][kind] += s.get("page_faults", {}).get(kind, 0)
        merged["cpu_seconds"] += s.get("cpu_seconds", 0.0)
        for f in s["findings"]:
            # Explained and unexplained calls of one signature are two findings, as in a run.
            key = (f["signature"], bool(f.get("expected_by")))
            known = by_signature.get(key)
            if known is None:
                known = dict(f, repro_dirs=list(f.get("repro_dirs", [])),
                             shard=s.get("shard", "1/1"))
                by_signature[key] = known
                merged["findings"].append(known)
            else:
                known["calls"] += f["calls"]
                known["repro_dirs"] += f.get("repro_dirs", [])
    # A backend compared nothing only if it compared nothing in every shard.
    merged["nothing_compared"] = {
        b: why for b, why in first.get("nothing_compared", {}).items()
        if all(b in s.get("nothing_compared", {}) for s in shards)}
    # A declared operator a backend skipped counts only if no shard compared it.
    declared = {}
    for s in shards:
        for b, ops in s.get("declared_not_compared", {}).items():
            for op in ops:
                if merged["table"].get(op, {}).get(b, {}).get("cases", 0) == 0:
                    declared.setdefault(b, set()).add(op)
    merged["declared_not_compared"] = {b: sorted(ops) for b, ops in sorted(declared.items())}
    return merged


def junit(merged):
    attr = xml.sax.saxutils.quoteattr
    esc = xml.sax.saxutils.escape
    cases, failures, skipped = [], 0, 0
    for op in sorted(merged["table"]):
        for backend in merged["backends"]:
            c = merged["table"][op].get(backend, dict.fromkeys(COUNTS, 0))
            body = ""
            if c["mismatches"]:
                failures += 1
                details = "\n".join(f["report"] for f in merged["findings"]
                                    if f["op"] == op and f["backend"] == backend)
                body = (f"<failure message={attr(str(c['mismatches']) + ' mismatching calls')}>"
                        f"{esc(details)}</failure>")
            elif c["cases"] == 0:
                skipped += 1
                why = merged["skipped_backends"].get(backend, "not implemented or no calls")
                body = f"<skipped message={attr(why)}/>"
            cases.append(f'  <testcase classname={attr("cvmcheck." + op)} name={attr(backend)}>'
                         f"{body}</testcase>")
    for backend, why in merged["nothing_compared"].items():
        failures += 1
        cases.append(f'  <testcase classname="cvmcheck.nothing_compared" name={attr(backend)}>'
                     f"<failure message={attr('nothing compared: ' + why)}/></testcase>")
    for backend, ops in merged["declared_not_compared"].items():
        failures += 1
        why = "declared but skipped on every call: " + ", ".join(ops)
        cases.append(f'  <testcase classname="cvmcheck.declared_not_compared" name={attr(backend)}>'
                     f"<failure message={attr(why)}/></testcase>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuite name="cvmcheck-campaign" tests="{len(cases)}" failures="{failures}" '
            f'skipped="{skipped}" time="{merged["seconds"]:.1f}">\n'
            + "\n".join(cases) + "\n</testsuite>\n")


def table(merged):
    lines = [f"## Campaign, seed {merged['seed']} ({merged['shard']} shards)", "",
             "| operator | backend | " + " | ".join(COUNTS) + " |",
             "|---|---|" + "---:|" * len(COUNTS)]
    for op in sorted(merged["table"]):
        for backend in merged["backends"]:
            c = merged["table"][op].get(backend, dict.fromkeys(COUNTS, 0))
            lines.append(f"| {op} | {backend} | " + " | ".join(str(c[k]) for k in COUNTS) + " |")
    lines += ["", f"calls {merged['calls']}, mismatching calls {merged['mismatching_calls']}, "
              f"findings {len(merged['findings'])}"]
    # The call descriptor (docs/call-descriptor.md) names the repro's call exactly.
    lines += [f"- finding `{f['signature']}`: {f['calls']} calls (shard {f['shard']}, "
              f"case seed {f['case_seed']})"
              + (f", call `` {f['descriptor']} ``" if f.get("descriptor") else "")
              for f in merged["findings"]]
    lines += [f"- nothing compared for backend {b}: {why}"
              for b, why in merged["nothing_compared"].items()]
    lines += [f"- nothing compared for backend {b} on {', '.join(ops)}: it declares them but "
              "skipped every call" for b, ops in merged["declared_not_compared"].items()]
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("shards", nargs="+")
    args = p.parse_args(argv)
    try:
        shards = load(args.shards)
    except (OSError, ValueError) as e:
        print(f"campaign_merge: {e}", file=sys.stderr)
        return 2
    problem = check_shards(shards)
    if problem:
        print(f"campaign_merge: {problem}", file=sys.stderr)
        return 2
    merged = merge(shards)
    expected = int(shards[0].get("shard", "1/1").split("/")[1])
    if len(shards) < expected:
        print(f"campaign_merge: warning: {len(shards)} of {expected} shards given; the merged "
              "report covers only those", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "campaign.json"), "w") as f:
        json.dump(merged, f, indent=2)
    with open(os.path.join(args.out, "junit.xml"), "w") as f:
        f.write(junit(merged))
    text = table(merged)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text.splitlines()[-1 - len(merged["findings"]) - len(merged["nothing_compared"])
                            - len(merged["declared_not_compared"])])
    bad = (merged["mismatching_calls"] > 0 or merged["nothing_compared"]
           or merged["declared_not_compared"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
