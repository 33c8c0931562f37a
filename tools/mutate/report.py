"""The kill matrix as JSON (for tools) and Markdown (for people and docs/mutation.md).

Scores follow the usual definition: killed / (mutants that are neither equivalent nor
build-failed; a mutant of the CUDA device runner on a machine without a GPU is "no-device", also
unscored). A build failure says nothing about the harness, and an equivalent mutant cannot
be killed; timeouts stay in the denominator (a hang the harness did not turn into a failure
within its budget is not a kill).
"""

import collections
import json

from modes import MODES, expand_ops

# The scores are kept apart for the CPU kernels and the CUDA element functions (run on
# cuda-host): the CPU score is the one with a target.
PARTS = (("CPU (optimized/)", "optimized/"), ("CUDA (cuda/, on cuda-host)", "cuda/"))


def _score(killed, total):
    return f"{killed}/{total} = {100.0 * killed / total:.1f}%" if total else "n/a"


def scored(results):
    return [r for r in results if r["status"] in ("killed", "survived", "timeout")]


def summary(results):
    """Per operator, per mode and per kind: (killed, scored)."""
    per_op = collections.defaultdict(lambda: [0, 0])
    per_mode = collections.defaultdict(lambda: [0, 0])
    per_kind = collections.defaultdict(lambda: [0, 0])
    per_file = collections.defaultdict(lambda: [0, 0])
    for r in scored(results):
        killed = r["status"] == "killed"
        for op in expand_ops(r["ops"]):
            per_op[op][0] += killed
            per_op[op][1] += 1
        per_kind[r["kind"]][0] += killed
        per_kind[r["kind"]][1] += 1
        per_file[r["file"]][0] += killed
        per_file[r["file"]][1] += 1
        for mode, m in r["modes"].items():
            if m["status"] in ("killed", "survived", "timeout"):
                per_mode[mode][0] += m["status"] == "killed"
                per_mode[mode][1] += 1
    return per_op, per_mode, per_kind, per_file


def write_json(path, run_info, results):
    with open(path, "w") as f:
        json.dump({"run": run_info, "mutants": results}, f, indent=1)


def markdown(run_info, results, title="Mutation testing"):
    counts = collections.Counter(r["status"] for r in results)
    per_op, per_mode, per_kind, per_file = summary(results)
    total_killed = counts["killed"]
    lines = [f"# {title}", ""]
    lines += [f"Run: {run_info.get('started', '?')}, {run_info.get('wall_seconds', 0):.0f} s wall, "
              f"modes {', '.join(run_info.get('modes', []))}"
              f" ({'all modes per mutant' if run_info.get('all_modes') else 'stop at the first kill'}),"
              f" selection: {run_info.get('selection', '?')}.", ""]
    lines += ["| status | mutants |", "|---|---:|"]
    for status in ("killed", "survived", "timeout", "build-failed", "equivalent", "no-device"):
        lines.append(f"| {status} | {counts.get(status, 0)} |")
    lines += ["", f"**Mutation score: {_score(total_killed, len(scored(results)))}** "
              "(killed / non-equivalent, build failures excluded)", ""]
    parts = [(name, [r for r in results if r["file"].startswith(prefix)]) for name, prefix in PARTS]
    parts = [(name, rs) for name, rs in parts if rs]
    lines += ["| part | score | killed within 60 s | slowest kill (s) |", "|---|---|---|---:|"]
    for name, rs in parts:
        kills = [r["time_to_kill"] for r in rs if r["status"] == "killed"
                 and r.get("time_to_kill") is not None]
        fast = sum(1 for t in kills if t <= 60)
        lines.append(f"| {name} | {_score(sum(r['status'] == 'killed' for r in rs), len(scored(rs)))}"
                     f" | {fast}/{len(kills)} | {max(kills) if kills else 0:.1f} |")
    per_part = [(name, summary(rs)) for name, rs in parts]
    names = [name.split(" ")[0] for name, _ in per_part]
    lines += ["", "## Per mode", "",
              "A mode's score counts only the mutants that reached it (with stop-at-first-kill, the "
              "later modes see only the earlier modes' survivors).", "",
              "| mode | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for mode in MODES:
        if any(mode in sm[1] for _, sm in per_part):
            lines.append(f"| {mode} | " + " | ".join(_score(*sm[1][mode]) if mode in sm[1] else ""
                                                      for _, sm in per_part) + " |")
    lines += ["", "## Per operator", "",
              "A mutant of a helper shared by several operators counts for each of them.", "",
              "| operator | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for op in sorted({op for _, sm in per_part for op in sm[0]}):
        lines.append(f"| {op} | " + " | ".join(_score(*sm[0][op]) if op in sm[0] else "n/a"
                                                for _, sm in per_part) + " |")
    lines += ["", "## Per file", "", "| file | score |", "|---|---|"]
    for path in sorted(per_file):
        lines.append(f"| {path} | {_score(*per_file[path])} |")
    lines += ["", "## Per kind", "", "| kind | " + " | ".join(names) + " |",
              "|---|" + "---|" * len(names)]
    for kind in sorted({k for _, sm in per_part for k in sm[2]}):
        lines.append(f"| {kind} | " + " | ".join(_score(*sm[2][kind]) if kind in sm[2] else ""
                                                  for _, sm in per_part) + " |")
    if run_info.get("all_modes"):
        lines += ["", "## Mode gaps", "",
                  "Killed mutants that a mode missed (every mode ran on every mutant): what that "
                  "mode alone would let through.", ""]
        gaps = 0
        for r in results:
            missed = [m for m, v in r["modes"].items() if r["status"] == "killed"
                      and v["status"] in ("survived", "timeout")]
            if missed:
                gaps += 1
                lines.append(f"- `{r['id']}` missed by {', '.join(missed)}, killed by "
                             f"{', '.join(r['killed_by'])}: `{r['change']}`")
        if not gaps:
            lines.append("None.")
    survivors = [r for r in results if r["status"] in ("survived", "timeout")]
    lines += ["", "## Survivors", ""]
    if not survivors:
        lines.append("None.")
    for r in survivors:
        lines.append(f"- `{r['id']}` ({r['status']}, {', '.join(r['ops'])}): `{r['change']}`")
    lines += ["", "## Every mutant", "",
              "| id | status | killed by | time to kill (s) | change |", "|---|---|---|---:|---|"]
    for r in results:
        change = r["change"].replace("|", "\\|")
        if len(change) > 140:
            change = change[:137] + "..."
        ttk = f"{r['time_to_kill']:.1f}" if r.get("time_to_kill") is not None else ""
        lines.append(f"| `{r['id']}` | {r['status']} | {', '.join(r['killed_by'])} | {ttk} | `{change}` |")
    return "\n".join(lines) + "\n"
