"""The gate's three reports: a Markdown summary (for $GITHUB_STEP_SUMMARY), JUnit XML (one
testcase per step) and SARIF 2.1.0 (findings and surviving mutants at a changed file and line,
so a code-scanning upload annotates the pull request's lines)."""

import dataclasses
import json
import os
import xml.sax.saxutils

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")

# SARIF rules: id -> (level, description).
RULES = {
    "gate/test-failure": ("error", "A test of an affected operator failed"),
    "gate/golden-failure": ("error", "A golden case of an affected operator failed"),
    "gate/campaign-finding": ("error", "The differential campaign found a mismatch"),
    "gate/corpus-finding": ("error", "A fuzz corpus input of an affected operator failed"),
    "gate/surviving-mutant": ("warning", "A mutant of a changed line survived the cheap modes"),
    "gate/slowdown": ("warning", "A touched kernel got slower beyond the measured noise"),
    "gate/not-checked": ("note", "A change needs a backend this runner cannot run"),
}


@dataclasses.dataclass
class Step:
    """One check the gate ran: passed, failed, error (could not run) or skipped (with why)."""
    name: str
    status: str
    seconds: float = 0.0
    what: str = ""     # one line: what it ran
    tail: str = ""     # the log's interesting part when it failed


@dataclasses.dataclass
class Result:
    """One SARIF result."""
    rule: str
    message: str
    path: str
    line: int
    level: str = ""

    def level_or_default(self):
        return self.level or RULES[self.rule][0]


def sarif(results, version="1"):
    rule_ids = list(RULES)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cvmcheck-gate",
                "version": version,
                "rules": [{"id": rid, "shortDescription": {"text": RULES[rid][1]},
                           "defaultConfiguration": {"level": RULES[rid][0]}}
                          for rid in rule_ids],
            }},
            "results": [{
                "ruleId": r.rule,
                "ruleIndex": rule_ids.index(r.rule),
                "level": r.level_or_default(),
                "message": {"text": r.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": r.path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": max(1, int(r.line))},
                }}],
            } for r in results],
        }],
    }


def junit(steps, seconds):
    esc = xml.sax.saxutils.escape
    attr = xml.sax.saxutils.quoteattr
    failures = sum(s.status in ("failed", "error") for s in steps)
    skipped = sum(s.status == "skipped" for s in steps)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuite name="cvmcheck-gate" tests="{len(steps)}" failures="{failures}" '
           f'skipped="{skipped}" time="{seconds:.1f}">']
    for s in steps:
        body = f"<system-out>{esc(s.what)}</system-out>"
        if s.status in ("failed", "error"):
            body = f"<failure message={attr(s.status + ': ' + s.what)}>{esc(s.tail)}</failure>"
        elif s.status == "skipped":
            body = f"<skipped message={attr(s.what)}/>"
        out.append(f'  <testcase classname="cvmcheck.gate" name={attr(s.name)} '
                   f'time="{s.seconds:.1f}">{body}</testcase>')
    out.append("</testsuite>")
    return "\n".join(out) + "\n"


def markdown(header, verdict, impact_rows, steps, results, notes):
    """header: (base, head, merge_base) short ids; impact_rows: [(path, maps to)]."""
    base, head, fork = header
    lines = [f"## cvmcheck gate: {verdict}", "",
             f"`{base}...{head}` (fork point `{fork}`)", "", "| changed path | checked as |",
             "|---|---|"]
    lines += [f"| `{p}` | {why} |" for p, why in impact_rows]
    lines += [""] + [f"- {n}" for n in notes]
    if steps:
        lines += ["", "| step | result | time | what ran |", "|---|---|---:|---|"]
        lines += [f"| {s.name} | {_badge(s.status)} | {s.seconds:.0f} s | {s.what} |"
                  for s in steps]
    if results:
        lines += ["", "| where | what |", "|---|---|"]
        lines += [f"| `{r.path}:{r.line}` | {r.level_or_default()}: "
                  f"{r.message.splitlines()[0]} |" for r in results]
    for s in steps:
        if s.status in ("failed", "error") and s.tail:
            lines += ["", f"<details><summary>{s.name}: log</summary>", "", "```",
                      s.tail.strip(), "```", "</details>"]
    return "\n".join(lines) + "\n"


def _badge(status):
    return {"passed": "passed", "failed": "**FAILED**", "error": "**ERROR**",
            "skipped": "skipped"}.get(status, status)


def write_all(out_dir, md_text, steps, seconds, results):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(md_text)
    with open(os.path.join(out_dir, "junit.xml"), "w") as f:
        f.write(junit(steps, seconds))
    with open(os.path.join(out_dir, "gate.sarif"), "w") as f:
        json.dump(sarif(results), f, indent=1)
        f.write("\n")
