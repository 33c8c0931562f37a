"""What is being bisected: one finding (a signature from the findings store, a call descriptor or
a case directory), how one revision's `cvmcheck` replays it, and what one replay says.

A replay is judged by its signature (harness/engine/verdict.h, finding_signature): the same
signature is the same bug, another signature is another failure. `cvmcheck run` prints it as
"signature"; a binary from before that field existed prints only the difference's text, from
which derive_signature rebuilds the same string.
"""

import json
import os
import re
import shlex
import subprocess
from dataclasses import asdict, dataclass
from typing import Optional


@dataclass
class Finding:
    op: str
    backend: str
    signature: Optional[str] = None  # None until the bad revision shows it
    descriptor: str = ""
    repro_dir: str = ""
    source: str = ""  # "store", "descriptor" or "case"
    # Commits the store saw it at (short hashes, may be empty).
    first_commit: str = ""
    last_commit: str = ""

    def to_json(self):
        return asdict(self)

    def replay_args(self):
        """The `cvmcheck run` arguments that replay it: the descriptor when there is one (it
        names the call exactly, with its threads), else the case directory."""
        if self.descriptor:
            return ["run", "--call", self.descriptor, "--backend", self.backend]
        return ["run", os.path.abspath(self.repro_dir), "--backend", self.backend]


def descriptor_field(descriptor, name):
    """The value of `name=` in a call descriptor (fields are separated by single spaces and
    only attrs holds spaces-free JSON), or ""."""
    for token in descriptor.split(" "):
        if token.startswith(name + "="):
            return token[len(name) + 1:]
    return ""


def from_descriptor(descriptor, backend=""):
    op = descriptor_field(descriptor, "op")
    if not op:
        raise SystemExit("cvmcheck bisect: the call descriptor names no op= field")
    backend = backend or descriptor_field(descriptor, "backend")
    if not backend:
        raise SystemExit("cvmcheck bisect: the descriptor names no backend=; give --backend")
    return Finding(op=op, backend=backend, descriptor=descriptor, source="descriptor")


def from_case(case_dir, backend):
    path = os.path.join(case_dir, "case.json")
    try:
        with open(path) as f:
            op = json.load(f)["op"]
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"cvmcheck bisect: {path}: not a readable case ({e})")
    if not backend:
        raise SystemExit("cvmcheck bisect: a case directory needs --backend")
    return Finding(op=op, backend=backend, repro_dir=os.path.abspath(case_dir), source="case")


def from_store(cvmcheck, store, key):
    """The finding `key` (a signature or its start) as `cvmcheck findings show --json` gives it."""
    command = [cvmcheck, "findings", "show", key, "--json", "--store", store]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        raise SystemExit(f"cvmcheck bisect: cannot run {cvmcheck} to read the store ({e}); "
                         "give --cvmcheck")
    if done.returncode != 0:
        raise SystemExit(f"cvmcheck bisect: {shlex.join(command)}: {done.stderr.strip()}")
    f = json.loads(done.stdout)
    repro = f.get("repro_dir", "")
    if not f.get("descriptor") and not (repro and os.path.isdir(repro)):
        raise SystemExit(f"cvmcheck bisect: {f['signature']}: the store holds neither a "
                         f"descriptor nor an existing repro directory ({repro or 'none'})")
    return Finding(op=f["op"], backend=f["backend"], signature=f["signature"],
                   descriptor=f.get("descriptor", ""), repro_dir=repro, source="store",
                   first_commit=f.get("first_commit", ""), last_commit=f.get("last_commit", ""))


def looks_like_descriptor(text):
    return text.startswith("op=")


# The difference texts of core/compare.cc, each to its signature kind.
_CLASS = re.compile(r"^outcome: \S+ (\S+) vs \S+ (\S+)")
_RULE = re.compile(r"^rule: \S+ (\S+) vs \S+ (\S+)")
_OUTPUT = re.compile(r"^output (\d+) (shape|precision|dtype|value)\b")
_FAILURE = re.compile(r"^\S+ (crash|hang|protocol_error): ")


def derive_signature(op, backend, report):
    """The signature of a failing replay from a binary that does not print one."""
    if "expectation_failure" in report:
        return f"{op}|reference|expectation"
    text = report.get("difference", "")
    m = _CLASS.match(text)
    if m:
        return f"{op}|{backend}|class|{m.group(2)}->{m.group(1)}"
    m = _RULE.match(text)
    if m:
        return f"{op}|{backend}|rule|{m.group(2)}->{m.group(1)}"
    if text.startswith("output count:"):
        return f"{op}|{backend}|output_count"
    m = _OUTPUT.match(text)
    if m:
        return f"{op}|{backend}|{m.group(2)}|output {m.group(1)}"
    m = _FAILURE.match(text)
    if m:
        return f"{op}|{backend}|{m.group(1)}"
    return f"{op}|{backend}|?"


def same_signature(found, wanted):
    """A derived expectation signature has no rule and classes: its start must match."""
    if found == wanted:
        return True
    return found.endswith("|expectation") and wanted.startswith(found + "|")


def judge_replay(finding, returncode, stdout, stderr, timed_out):
    """One replay as {"outcome": pass|fail|cannot, "signature", "detail"}.

    cannot: the revision cannot run this call (a usage error, an unreadable descriptor or case,
    the backend skipping the operator): like `git bisect run`'s 125, it says nothing about the
    bug. A crash or a hang of the replay itself is a failure with its own signature."""
    if timed_out:
        return {"outcome": "fail", "signature": f"{finding.op}|{finding.backend}|replay timed out",
                "detail": "the replay did not finish within --call-timeout"}
    if returncode < 0:
        return {"outcome": "fail", "signature": f"{finding.op}|{finding.backend}|signal "
                f"{-returncode}", "detail": f"the replay died of signal {-returncode}"}
    report = last_json_line(stdout)
    tail = stderr.strip().splitlines()[-1:] or [""]
    if report is None or returncode not in (0, 1):
        return {"outcome": "cannot", "signature": "",
                "detail": f"exit {returncode}: {tail[0][:300]}"}
    if "skipped" in report:
        return {"outcome": "cannot", "signature": "", "detail": f"skipped: {report['skipped']}"}
    if returncode == 0 and report.get("matches", True):
        return {"outcome": "pass", "signature": "", "detail": ""}
    signature = report.get("signature") or derive_signature(finding.op, finding.backend, report)
    return {"outcome": "fail", "signature": signature, "detail": report.get("difference", "")}


def last_json_line(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def parse_ops_listing(text):
    """{op or alias: [backends]} from `cvmcheck ops` text: name, arity, the backends separated
    by commas (each possibly followed by "(unavailable: ...)", itself holding parentheses), then
    " alias:NAME" for each alias."""
    ops = {}
    for line in text.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 3 or not parts[1][:1].isdigit():
            continue
        backends, rest = split_backends(parts[2])
        ops[parts[0]] = backends
        for alias in re.findall(r"\balias:(\S+)", rest):
            ops[alias] = backends
    return ops


def split_backends(text):
    """The backend names at the start of `text`, and the text after them."""
    names, depth, current = [], 0, ""
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and ch == " ":
            return names + ([current] if current else []), text[i:]
        elif depth == 0 and ch == ",":
            names.append(current)
            current = ""
        elif depth == 0:
            current += ch
    return names + ([current] if current else []), ""


def absence(ops, finding):
    """Why the revision cannot have the bug at all (its operator, or the backend's kernel for
    it, does not exist yet), or "" when it can. A backend unknown to every operator is no
    absence: it may be a variant or an external backend this revision names differently."""
    if ops is None:
        return ""
    if finding.op not in ops:
        return f"operator {finding.op} does not exist"
    known = {b for backends in ops.values() for b in backends}
    if finding.backend in known and finding.backend not in ops[finding.op]:
        return f"backend {finding.backend} does not implement {finding.op}"
    return ""
