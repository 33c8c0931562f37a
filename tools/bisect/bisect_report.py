"""What a finished bisect says: the first bad commit with its subject and changed files, the fix,
the revisions skipped and why, the flakes, `git bisect log`, and the JSON with OSV-style
`introduced` / `fixed` events (https://ossf.github.io/osv-schema/, "ranges" of type GIT).
"""

import hashlib
import shlex

from bisect_builds import git
from bisect_state import verdict_of, BAD, SKIP


def commit_facts(repo, commit):
    parents = git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    if parents:
        status = git(repo, "diff", "--name-status", parents[0], commit)
    else:
        status = git(repo, "show", "--name-status", "--format=", commit)
    files = [line.split("\t", 1)[::-1] for line in status.splitlines() if "\t" in line]
    return {"commit": commit, "subject": git(repo, "log", "-1", "--format=%s", commit),
            "author": git(repo, "log", "-1", "--format=%an <%ae>", commit),
            "date": git(repo, "log", "-1", "--format=%cI", commit),
            "files": [{"path": path, "status": st} for path, st in files]}


def revision_rows(state, repeat):
    """Every judged revision: commit, subject, verdict, why, and how many replays failed."""
    rows = []
    for commit, record in state.records().items():
        kind, why = verdict_of(record, state.signature, repeat)
        runs = record.get("runs", [])
        failed = sum(1 for r in runs if r["outcome"] == "fail")
        rows.append({"commit": commit, "subject": record.get("subject", ""), "verdict": kind,
                     "why": why, "replays": len(runs), "failed": failed})
    return rows


def flakes(rows):
    """Bad revisions where some replays passed: the finding is flaky there."""
    return [r for r in rows if r["verdict"] == BAD and r["failed"] < r["replays"]]


def different(rows):
    return [r for r in rows if r["verdict"] == SKIP and r["why"].startswith("fails differently")]


def osv_record(finding, signature, repo_url, introduced, fixed, since_added):
    events = []
    if introduced:
        events.append({"introduced": introduced})
    if fixed:
        events.append({"fixed": fixed})
    ident = hashlib.sha1((signature or "").encode()).hexdigest()[:12]
    record = {"schema_version": "1.6.0", "id": f"CVMCHECK-{ident}", "summary": signature,
              "details": f"{finding.op} on backend {finding.backend}",
              "affected": [{"ranges": [{"type": "GIT", "repo": repo_url, "events": events}]}]}
    if since_added:
        record["database_specific"] = {"present_since_operator_added": since_added}
    return record


def introduced_line(intro):
    if intro.get("first") and intro.get("since_root"):
        return "present since the repository's first commit"
    if intro.get("since_added"):
        return ("present since the operator was added, by this commit (its parent: "
                f"{intro['since_added']})")
    if intro.get("candidates"):
        return "one of these; the others between them were skipped"
    if not intro.get("first"):
        return ("unknown: no good revision found, and the oldest revisions cannot be tested; "
                f"the oldest bad one is {intro.get('oldest_bad', '?')[:10]}")
    return "first bad commit"


def text_report(result):
    """The report a person reads, in the order they ask: which commit, is it fixed, can I trust
    it (skips, flakes), how to check (the log)."""
    out = [f"finding     {result['signature']}",
           f"replay      cvmcheck {shlex.join(result['replay'])}  "
           f"(x{result['repeat']} per revision)"]
    if result["probes"]:
        out.append("searched    back from the bad revision: " + ", ".join(
            f"{p['commit'][:10]} {p['verdict']}" for p in result["probes"]))
    out += _commit_section("introduced", result["introduced"], result["introduced_note"],
                           result["introduced_candidates"])
    out += _commit_section("fixed", result.get("fixed"),
                           result["fixed_note"] or "first commit without it",
                           result["fixed_candidates"])
    for row in result["skipped"]:
        out.append(f"skipped     {row['commit'][:10]} {row['why']}")
    for row in result["flaky"]:
        out.append(f"flaky       {row['commit'][:10]}: the finding reproduced in {row['failed']} "
                   f"of {row['replays']} replays")
    if result.get("regression_input"):
        out.append(f"promoted    {result['regression_input']} (a corpus input; commit it)")
    elif result.get("promotion_note"):
        out.append(f"promoted    nothing: {result['promotion_note']}")
    s = result["stats"]
    out.append(f"cost        {s['builds']} builds ({s['build_seconds']:.1f} s, "
               f"{s['average_build_seconds']:.1f} s each), {s['reused']} reused, "
               f"{s['replays']} replays, {s['wall_seconds']:.1f} s wall")
    for phase, log in result["bisect_log"].items():
        if log:
            out.append(f"git bisect log ({phase}):")
            out += ["  " + line for line in log.strip().splitlines()]
    out.append(f"json        {result['json_path']}")
    return "\n".join(out) + "\n"


def _commit_section(label, facts, note, candidates):
    if not facts:
        lines = [f"{label:<11} {note}"]
        lines += [f"            {c['commit'][:10]} {c['subject']}" for c in candidates]
        return lines
    lines = [f"{label:<11} {facts['commit'][:10]} {facts['subject']}", f"            ({note})"]
    lines += [f"            {f['status']:<2} {f['path']}" for f in facts["files"][:20]]
    if len(facts["files"]) > 20:
        lines.append(f"            ... and {len(facts['files']) - 20} more files")
    return lines
