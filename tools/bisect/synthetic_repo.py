"""A small repository whose history the bisect tests search: a shell stand-in for cvmcheck
(impl.sh, "built" by build.sh into build/bin/cvmcheck, as the real one is built into
build/bin/cvmcheck) whose optimized `max` kernel is planted, broken, fixed across commits.

The stand-in answers `ops` and `run --call` as cvmcheck does (the JSON of a mismatch without a
"signature" field, as binaries from before that field print it), and `corpus --from-call`.
FAKE_FLAKE=FILE makes the bug show in one replay of three (a counter in FILE);
FAKE_BUILD_LOG=FILE records each build's commit; FAKE_BUILD_DELAY=S makes each build take S s.
"""

import os
import subprocess

IMPL = r'''#!/bin/sh
# A stand-in for cvmcheck: the operators it has, and the state of its optimized max kernel
# (0 right, 1 clamps at zero, 2 drops an element).
OPS="sum"
MAX_BUG=0
cmd=$1; shift
case "$cmd" in
ops)
  for op in $OPS; do printf '%-22s 1    reference,optimized\n' "$op"; done ;;
run)
  [ "$1" = --call ] || { echo "cvmcheck run: give --call" >&2; exit 2; }
  op=${2#op=}; op=${op%% *}
  case " $OPS " in *" $op "*) ;; *) echo "call descriptor: unknown op $op" >&2; exit 3 ;; esac
  bug=0; [ "$op" = max ] && bug=$MAX_BUG
  if [ "$bug" != 0 ] && [ -n "$FAKE_FLAKE" ]; then
    n=$(( $(cat "$FAKE_FLAKE" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$FAKE_FLAKE"
    [ $((n % 3)) -eq 0 ] || bug=0
  fi
  case $bug in
  0) echo '{"matches":true,"outcome":"ok"}' ;;
  1) echo '{"matches":false,"outcome":"ok","difference":"output 0 value at index 1 (coords [1]): optimized 0 vs reference -1"}'; exit 1 ;;
  *) echo '{"matches":false,"outcome":"ok","difference":"output 0 shape: optimized [1] vs reference [2]"}'; exit 1 ;;
  esac ;;
corpus)
  out=; while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
  mkdir -p "$out" && echo max > "$out/0123abcd" && echo "$out/0123abcd" ;;
*) exit 2 ;;
esac
'''

BUILD = r'''#!/bin/sh
# Builds the stand-in the way the project builds cvmcheck: into build/bin/cvmcheck.
[ -z "$FAKE_BUILD_LOG" ] || echo "$BISECT_COMMIT" >> "$FAKE_BUILD_LOG"
[ -z "$FAKE_BUILD_DELAY" ] || sleep "$FAKE_BUILD_DELAY"
# The bisect leaves the corpus out of the worktrees it builds in (--skip-paths).
if [ -e corpus ]; then echo "corpus/ was checked out" >&2; exit 1; fi
if grep -q BROKEN impl.sh; then echo "impl.sh: syntax error" >&2; exit 1; fi
mkdir -p build/bin && cp impl.sh build/bin/cvmcheck && chmod +x build/bin/cvmcheck
'''

BUILD_CMD = "sh build.sh"
DESCRIPTOR = "op=max attrs={\"axis\":\"(-1,)\"} in0=i32:2x1:p2:[0,-1] expect=ok backend=optimized"
SIGNATURE = "max|optimized|value|output 0"

# The main history, 24 commits after the first: (what changes, subject). Changes: "ops=..." the
# operators, "bug=N" the max kernel's state, "broken"/"unbroken" the build, else a notes line.
MAIN = [("ops=sum", "Core: sum"), ("note", "Docs: sum"), ("note", "CI: lint"),
        ("note", "Tests: sum edges"), ("ops=sum max", "Operator max"),
        ("note", "Docs: max"), ("note", "Bench: max"), ("note", "Tests: max shapes"),
        ("note", "CI: cache"), ("note", "Docs: README"),
        ("bug=1", "optimized max: a faster clamp"),            # k = 10
        ("note", "Docs: contract"), ("note", "Tests: sum large"),
        ("broken", "WIP: half a refactor"),                    # j = 13
        ("unbroken", "Finish the refactor"), ("note", "CI: shards"), ("note", "Docs: glossary"),
        ("note", "Tests: more max"), ("note", "Bench: numbers"),
        ("bug=2", "optimized max: vector tail"),              # fails differently: 19
        ("bug=1", "Revert vector tail"), ("note", "Docs: faq"),
        ("bug=0", "optimized max: clamp to the input's minimum"),  # fix = 22
        ("note", "Docs: changelog"), ("note", "CI: nightly")]
K, J, DIFFERENT, FIX = 10, 13, 19, 22

# A history where max comes in with the bug already in it (at commit 3).
SINCE_ADDED = [("ops=sum", "Core: sum"), ("note", "Docs"), ("note", "Tests"),
               ("ops=sum max|bug=1", "Operator max with an optimized kernel"),
               ("note", "Docs: max"), ("note", "Bench"), ("note", "CI"), ("note", "Tests 2")]


def _git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def _apply(repo, change, index):
    path = os.path.join(repo, "impl.sh")
    with open(path) as f:
        text = f.read()
    for part in change.split("|"):
        if part.startswith("ops="):
            text = _replace_line(text, "OPS=", f'OPS="{part[4:]}"')
        elif part.startswith("bug="):
            text = _replace_line(text, "MAX_BUG=", f"MAX_BUG={part[4:]}")
        elif part == "broken":
            text += "BROKEN\n"
        elif part == "unbroken":
            text = text.replace("BROKEN\n", "")
        else:
            with open(os.path.join(repo, "NOTES"), "a") as notes:
                notes.write(f"note {index}\n")
    with open(path, "w") as f:
        f.write(text)


def _replace_line(text, prefix, line):
    return "\n".join(line if old.startswith(prefix) else old for old in text.split("\n"))


def make(repo, history=MAIN):
    """Creates the repository; returns its commits, oldest first (commit i is history[i])."""
    os.makedirs(repo)
    _git(repo, "init", "-q", "-b", "main")
    os.makedirs(os.path.join(repo, "corpus"))
    for name, text in (("impl.sh", IMPL), ("build.sh", BUILD), ("NOTES", ""),
                       (".gitignore", "/build/\n/reports/\n"), ("corpus/input", "seed\n")):
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    commits = []
    for index, (change, subject) in enumerate(history):
        _apply(repo, change, index)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", subject)
        commits.append(_git(repo, "rev-parse", "HEAD"))
    return commits
