"""Where the finding came in and where it went: a backward search for a good revision when only a
bad one is known, then `git bisect`, driven one revision at a time in a worktree of its own (the
user's checkout and its own bisect stay untouched), once for the commit that introduced the
finding and, when a later revision no longer has it, once for the commit that fixed it.
"""

import os
import re
import shutil
import subprocess

from bisect_builds import git
from bisect_state import ABSENT, BAD, GOOD, SKIP

# git bisect's terms for each search and the mark each verdict gives. In the introduced search
# a revision without the operator is good (the bug cannot be older than its operator); in the
# fixed search it is skipped (an operator removed later is no fix).
INTRODUCED = {"old": "good", "new": "bad",
              "mark": {BAD: "bad", GOOD: "good", ABSENT: "good", SKIP: "skip"}}
FIXED = {"old": "broken", "new": "fixed",
         "mark": {BAD: "broken", GOOD: "fixed", ABSENT: "skip", SKIP: "skip"}}

_FIRST = re.compile(r"^([0-9a-f]{40}) is the first \S+ commit$", re.M)
_LEFT = re.compile(r"Bisecting: (\d+) revisions? left to test after this \(roughly (\d+) steps?\)")


def search_back(ev, repo, bad):
    """Walks back from `bad` along first parents at distances 1, 2, 4, ... until a revision is
    good or has no operator yet. Returns (that revision or None, the nearest bad revision to
    it, the probes as [(commit, kind)])."""
    chain = git(repo, "rev-list", "--first-parent", bad).split()
    nearest_bad, probes, distance = bad, [], 1
    while len(chain) > 1:
        index = min(distance, len(chain) - 1)
        commit = chain[index]
        kind, _ = ev.verdict(commit)
        probes.append((commit, kind))
        if kind in (GOOD, ABSENT):
            return commit, nearest_bad, probes
        if kind == BAD:
            nearest_bad = commit
        if index == len(chain) - 1:
            break
        distance *= 2
    return None, nearest_bad, probes


class GitBisect:
    """git bisect in the worktree `driver`, created without a checkout (--no-checkout bisects
    by BISECT_HEAD alone, so no revision's files are ever written there)."""

    def __init__(self, repo, driver, progress):
        self.repo, self.driver, self.progress = repo, os.path.abspath(driver), progress

    def _git(self, *args, check=True):
        done = subprocess.run(["git", "-C", self.driver, *args], capture_output=True, text=True)
        out = done.stdout + done.stderr
        if check and done.returncode not in (0, 2):  # 2: "We cannot bisect more!"
            raise SystemExit(f"cvmcheck bisect: git {' '.join(args[:2])}: {out.strip()}")
        return out

    def open(self):
        self.close()
        git(self.repo, "worktree", "add", "--detach", "--no-checkout", "--force", self.driver,
            "HEAD")

    def close(self):
        if not os.path.exists(self.driver):
            return
        self._git("bisect", "reset", check=False)
        if git(self.repo, "worktree", "remove", "--force", self.driver, check=False) is None:
            shutil.rmtree(self.driver, ignore_errors=True)
            git(self.repo, "worktree", "prune", check=False)

    def run(self, ev, terms, old, new, phase):
        """The first `new` commit between the `old` commits and `new`: {"first": commit or None,
        "candidates": [commits] when skipped ones hide it, "log": git bisect log}."""
        self.open()
        try:
            out = self._git("bisect", "start", "--no-checkout", f"--term-old={terms['old']}",
                            f"--term-new={terms['new']}", new, *old)
            while True:
                found = _FIRST.search(out)
                if found:
                    return self._result(found.group(1), [])
                if "only 'skip'ped commits left" in out:
                    return self._result(None, re.findall(r"^[0-9a-f]{40}$", out, re.M))
                left = _LEFT.search(out)
                if left is None:
                    raise SystemExit(f"cvmcheck bisect: git bisect said: {out.strip()}")
                commit = self._git("rev-parse", "BISECT_HEAD").strip()
                self.progress(phase, int(left.group(1)), int(left.group(2)))
                kind, _ = ev.verdict(commit)
                out = self._git("bisect", terms["mark"][kind], commit)
        finally:
            self.close()

    def _result(self, first, candidates):
        return {"first": first, "candidates": candidates, "log": self._git("bisect", "log")}


def parents(repo, commit):
    return git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]


def since_added(ev, repo, commit):
    """Why the first bad commit is where the operator (or the backend's kernel for it) came
    in, or "": one of its parents has none. Parents are judged only when some revision was
    found without the operator, which is when the question arises."""
    if not any(r.get("absent") for r in ev.state.records().values()):
        return ""
    for parent in parents(repo, commit):
        kind, why = ev.verdict(parent)
        if kind == ABSENT:
            return why
    return ""


def find_introduced(ev, repo, bad, goods, driver, progress):
    """{"first", "candidates", "log", "since_added", "since_root", "probes", "good"}."""
    probes = []
    if goods:
        for good in goods:
            kind, why = ev.verdict(good)
            if kind == BAD:
                raise SystemExit(f"cvmcheck bisect: the good revision {good[:10]} has the "
                                 f"finding ({why})")
    else:
        good, bad, probes = search_back(ev, repo, bad)
        if good is None:
            return _without_good(bad, probes)
        goods = [good]
    result = GitBisect(repo, driver, progress).run(ev, INTRODUCED, goods, bad, "introduced")
    result.update(probes=probes, good=goods, since_root=False,
                  since_added=since_added(ev, repo, result["first"]) if result["first"] else "")
    return result


def _without_good(bad, probes):
    """No good revision back to the first commit (search_back's last probe is the root, and no
    probe means `bad` is the root): the bug is as old as the history when the root has it;
    when the root does not build or run, only the oldest bad revision is known."""
    root, root_kind = probes[-1] if probes else (bad, BAD)
    first = root if root_kind == BAD else None
    return {"first": first, "candidates": [], "log": "", "probes": probes, "good": [],
            "since_added": "", "since_root": first is not None, "oldest_bad": bad}


def find_fixed(ev, repo, bad, head, driver, progress):
    """The commit after `bad` from which `head` no longer has the finding, or None when head
    still has it (or cannot tell)."""
    kind, why = ev.verdict(head)
    if kind != GOOD:
        return {"first": None, "candidates": [], "log": "", "head": head, "head_verdict": kind,
                "head_why": why}
    result = GitBisect(repo, driver, progress).run(ev, FIXED, [bad], head, "fixed")
    result.update(head=head, head_verdict=kind, head_why=why)
    return result
