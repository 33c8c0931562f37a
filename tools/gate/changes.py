"""What changed between two revisions: the revisions checked, the diff parsed into files and
line numbers. Everything here is plain git plus text, so the unit tests can feed it diffs.

Bad input ends the gate with a GateError carrying its exit code (docs/gate.md lists them).
"""

import dataclasses
import re
import subprocess

# Exit codes of the gate (docs/gate.md). 0 and 1 are the verdict; the rest mean the gate could
# not judge, and say why, so a misconfigured CI job never reads as a pass.
EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_REVISION = 3   # unknown revision, base not in a shallow clone, head not checked out
EXIT_DIRTY = 4      # uncommitted changes: the diff would not be what is tested
EXIT_NO_CHANGES = 5
EXIT_INTERNAL = 6   # a step could not run at all (build of the base, a tool crashed)


class GateError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


@dataclasses.dataclass
class FileChange:
    """One changed file. `added` holds the head's line numbers that are new or changed;
    `touched` adds the head position of each pure deletion (for attribution only)."""
    path: str                 # the head path (the base path for a deleted file)
    status: str = "M"         # A, M, D or R
    old_path: str = ""
    added: set = dataclasses.field(default_factory=set)
    touched: set = dataclasses.field(default_factory=set)
    binary: bool = False


def git(repo, *args, check=True):
    proc = subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=repo,
                          capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise GateError(EXIT_INTERNAL, f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc


def _is_shallow(repo):
    out = git(repo, "rev-parse", "--is-shallow-repository", check=False).stdout.strip()
    return out == "true"


_SHALLOW_HINT = ("this is a shallow clone: fetch the base's history (actions/checkout with "
                 "fetch-depth: 0, or `git fetch --unshallow`)")


def resolve(repo, rev, role):
    """The commit id of `rev`, or a GateError saying why not."""
    proc = git(repo, "rev-parse", "--verify", "--quiet", rev + "^{commit}", check=False)
    if proc.returncode == 0:
        return proc.stdout.strip()
    why = f"{role} revision '{rev}' is not a commit in this repository"
    if _is_shallow(repo):
        why += "; " + _SHALLOW_HINT
    raise GateError(EXIT_REVISION, why)


def check_revisions(repo, base, head):
    """(base id, head id, merge-base id). The head must be the checked-out commit, because the
    gate builds and tests the work tree."""
    base_id = resolve(repo, base, "base")
    head_id = resolve(repo, head, "head")
    checked_out = git(repo, "rev-parse", "HEAD").stdout.strip()
    if head_id != checked_out:
        raise GateError(EXIT_REVISION, f"head '{head}' ({head_id[:12]}) is not the checked-out "
                        f"commit ({checked_out[:12]}): check it out first; the gate tests the "
                        "work tree")
    proc = git(repo, "merge-base", base_id, head_id, check=False)
    if proc.returncode != 0:
        why = f"'{base}' and '{head}' have no common ancestor here"
        if _is_shallow(repo):
            why += "; " + _SHALLOW_HINT
        raise GateError(EXIT_REVISION, why)
    return base_id, head_id, proc.stdout.strip()


def check_clean(repo):
    """Tracked changes or untracked files that git does not ignore make the tree dirty: the
    gate would test files the diff does not show."""
    lines = [l for l in git(repo, "status", "--porcelain").stdout.splitlines() if l.strip()]
    if lines:
        shown = "\n  ".join(lines[:10]) + ("\n  ..." if len(lines) > 10 else "")
        raise GateError(EXIT_DIRTY, "the work tree has uncommitted changes; commit or stash "
                        f"them (the gate tests committed revisions):\n  {shown}")


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def parse_diff(text):
    """Unified diff text (`git diff -U0 -M`) -> [FileChange], in diff order."""
    files, current = [], None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = FileChange(path="")
            files.append(current)
            # Fallback names for diffs with no ---/+++ lines (binary files, pure renames).
            m = re.match(r"^diff --git a/(.*) b/(.*)$", line)
            if m:
                current.old_path, current.path = m.group(1), m.group(2)
            continue
        if current is None:
            continue
        if line.startswith("new file mode"):
            current.status = "A"
        elif line.startswith("deleted file mode"):
            current.status = "D"
            current.path = current.old_path
        elif line.startswith("rename from "):
            current.status = "R"
            current.old_path = line[len("rename from "):]
        elif line.startswith("rename to "):
            current.path = line[len("rename to "):]
        elif line.startswith("Binary files "):
            current.binary = True
        elif line.startswith("--- "):
            if line != "--- /dev/null":
                current.old_path = line[len("--- a/"):]
        elif line.startswith("+++ "):
            if line != "+++ /dev/null":
                current.path = line[len("+++ b/"):]
        else:
            m = _HUNK.match(line)
            if m:
                start = int(m.group(1))
                count = 1 if m.group(2) is None else int(m.group(2))
                if count == 0:
                    current.touched.add(max(start, 1))  # deleted after line `start`
                else:
                    current.added.update(range(start, start + count))
                    current.touched.update(range(start, start + count))
    return files


def changed_files(repo, base_id, head_id):
    """The changes of head since it forked from base (`git diff base...head`)."""
    text = git(repo, "diff", "-U0", "-M", "--no-color", "--no-ext-diff",
               f"{base_id}...{head_id}").stdout
    return parse_diff(text)
