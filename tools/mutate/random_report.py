"""Progress lines, the JSON report and the Markdown table of a random-mutant run
(random_mutants.py).

Statuses: killed-campaign (the campaign exited 1 on a mismatch or a backend with nothing
compared, or crashed or hung, or left a declared path unreached in its time and again in twice
that time, `unreached`: `campaign` says which), killed-tests (the campaign passed, the
operator's unit tests failed), survived, build-failed, equivalent (tools/mutate/equivalent.txt),
no-isa (code only an ISA this CPU lacks runs: not judged here), killed-sanitizer (with
--sanitize: the release campaign passed, the ASan+UBSan build's campaign of the same seed failed:
a memory error that changed no output).
The score is over the mutants that built and are not equivalent: the campaign's alone (the
sanitizer's campaign counted with it when the run used one), and with the unit tests. Each
survivor names the kernel paths its line belongs to (line_paths.py) and the unmutated
campaign's calls on each: 0 calls is a path the generators miss.
"""

import collections
import json
import os

STATUSES = ("killed-campaign", "killed-sanitizer", "killed-tests", "survived", "build-failed",
            "equivalent", "no-isa")


def _pct(k, n):
    return f"{k}/{n} = {100.0 * k / n:.1f}%" if n else "n/a"


def scores(results):
    """(killed by the campaign, killed by campaign or tests, scored)."""
    counts = collections.Counter(r["status"] for r in results)
    campaign = counts["killed-campaign"] + counts["killed-sanitizer"]
    scored = campaign + counts["killed-tests"] + counts["survived"]
    return campaign, campaign + counts["killed-tests"], scored


def short_score(results):
    """(killed by the short time box's campaign, scored), or None without --short-seconds."""
    judged = [r for r in results if r["status"] in ("killed-campaign", "killed-sanitizer",
                                                    "killed-tests", "survived")]
    if not any("short" in r for r in results):
        return None
    return sum(1 for r in judged if r.get("short") not in (None, "survived")), len(judged)


def score_line(results):
    campaign, both, scored = scores(results)
    line = (f"score: campaign alone {_pct(campaign, scored)}, campaign + unit tests "
            f"{_pct(both, scored)} (non-equivalent mutants that built)")
    short = short_score(results)
    if short:
        line += f"; short time box, campaign alone {_pct(*short)}"
    return line


def progress(i, n, r):
    status = r["status"]
    if status == "killed-campaign" and r.get("campaign") != "mismatch":
        status += f" ({r['campaign']})"
    parts = []
    if "build_seconds" in r:
        parts.append(f"build {r['build_seconds']:.0f} s")
    if "campaign_seconds" in r:
        parts.append(f"campaign {r['campaign_seconds']:.0f} s, {r.get('campaign_calls')} calls")
    if "short_seconds" in r:
        parts.append(f"short {r['short']} {r['short_seconds']:.0f} s")
    if "unit_seconds" in r:
        parts.append(f"unit {r['unit_seconds']:.0f} s")
    detail = f" ({', '.join(parts)})" if parts else ""
    return f"[{i}/{n}] {r['id']}: {status}{detail}  {r['change'][:100]}"


def write(out, info, results):
    with open(os.path.join(out, "random.json"), "w") as f:
        json.dump({"run": info, "mutants": results}, f, indent=1)
    with open(os.path.join(out, "random.md"), "w") as f:
        f.write(markdown(info, results))


def _cell(text, limit=110):
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def markdown(info, results):
    counts = collections.Counter(r["status"] for r in results)
    campaign, both, scored = scores(results)
    lines = [f"Seed {info['seed']}, {len(results)} of {info['n']} drawn mutants run, "
             f"campaign {info['seconds']:g} s each (all operators, default backends), "
             f"tree {info.get('commit', '?')}, {info.get('wall_seconds', 0):.0f} s wall; "
             f"pool {info['pool']} sites. Unmutated campaign: {info.get('baseline_calls')} "
             f"calls in {info.get('baseline_seconds')} s.", "",
             "| status | mutants |", "|---|---:|"]
    for status in STATUSES:
        lines.append(f"| {status} | {counts.get(status, 0)} |")
    odd = collections.Counter(r.get("campaign") for r in results
                              if r["status"] == "killed-campaign" and r.get("campaign") != "mismatch")
    if odd:
        lines.append("")
        lines.append("Campaign kills that were not a mismatch: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(odd.items())) + ".")
    lines += ["", f"**Campaign alone: {_pct(campaign, scored)}**; campaign + unit tests: "
              f"{_pct(both, scored)} (over the mutants that built and are not equivalent)."]
    short = short_score(results)
    if short:
        lines += ["", f"**Short time box, {info.get('short_seconds', 0):g} s, campaign alone: "
                  f"{_pct(*short)}** (the same mutants; unmutated: "
                  f"{info.get('short_baseline_calls')} calls"
                  + (", unreached paths not judged" if info.get("short_allows_unreached") else "")
                  + ")."]
    lines += ["",
              "| rule | drawn | campaign | sanitizer | tests only | survived | no build | equivalent "
              "| no ISA |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    by_kind = collections.defaultdict(collections.Counter)
    for r in results:
        by_kind[r["kind"]][r["status"]] += 1
    for kind in sorted(by_kind):
        c = by_kind[kind]
        lines.append(f"| {kind} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES)
                     + " |")
    lines += ["", "| # | mutant | status | campaign | change |", "|---:|---|---|---|---|"]
    for r in results:
        camp = r.get("campaign", "")
        if r.get("campaign_seconds") is not None:
            camp += f" {r['campaign_seconds']:.0f} s"
        if r.get("short"):
            camp += ("; " if camp else "") + f"short: {r['short']}"
        lines.append(f"| {r.get('index', '')} | `{r['id']}` | {r['status']} | {camp} | "
                     f"`{_cell(r['change'])}` |")
    survivors = [r for r in results if r["status"] == "survived"]
    lines += ["", "Survivors (real bugs neither the campaign nor the unit tests caught):"
              if survivors else "Survivors: none."]
    for r in survivors + [r for r in results if r["status"] == "killed-tests"]:
        lines.append(f"- `{r['id']}` ({', '.join(r['ops'])}, {r['status']}): "
                     f"`{_cell(r['change'], 160)}`; {path_note(r)}")
    equivalent = [r for r in results if r["status"] == "equivalent"]
    if equivalent:
        lines += ["", "Equivalent (tools/mutate/equivalent.txt; *reviewed after this run* when "
                  "the run itself judged it):"]
    for r in equivalent:
        after = f" *reviewed after this run, which judged it {r['was']}*" if r.get("was") else ""
        lines.append(f"- `{r['id']}`: {r.get('reason', '')}{after}")
    return "\n".join(lines) + "\n"


def path_note(r):
    """Where a mutant the campaign missed sits: its paths and the unmutated campaign's calls."""
    paths = r.get("paths")
    if not paths:
        return "no declared path"
    return "paths " + ", ".join(f"{pid} ({calls} calls)" for pid, calls in paths.items())


def print_pool(mutants):
    per_kind = collections.Counter(m.kind for m in mutants)
    per_file = collections.Counter(m.path for m in mutants)
    print(f"{len(mutants)} sites, {len(per_kind)} rules, {len(per_file)} files")
    for kind, n in sorted(per_kind.items()):
        print(f"  {kind:14} {n}")
    for path, n in sorted(per_file.items()):
        print(f"  {path:34} {n}")
