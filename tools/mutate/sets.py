"""Named mutant sets: which lines of the kernels a set covers (tools/mutate/sets/NAME.txt).

One entry a line, `#` starts a comment:

  optimized/nn_isa_avx2.cc                     the whole file
  optimized/nn_generic.h@pack_w_generic        the lines of one function (the catalogue's
                                               attribution: the nearest column-0 definition)
  optimized/dense.cc:172-176 | } else if (x8)  lines 172 to 176 (or one line: PATH:N); the text after `|` must occur
                                               in line 172, so an edit that moves the lines
                                               makes the set fail loudly instead of drifting

`mutate.py --set NAME` or `--lines ENTRY...` keeps the catalogue's mutants that an entry covers.
"""

import dataclasses
import os
import re

SETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sets")

_ENTRY = re.compile(r"^(?P<path>[^\s:@|]+)(?::(?P<first>\d+)(?:-(?P<last>\d+))?|@(?P<function>\w+))?"
                    r"\s*(?:\|\s*(?P<anchor>.*?))?\s*$")


@dataclasses.dataclass(frozen=True)
class Entry:
    path: str
    first: int = 0      # 0: no line range
    last: int = 0
    function: str = ""
    anchor: str = ""

    def covers(self, mutant):
        if mutant.path != self.path:
            return False
        if self.function:
            return mutant.function == self.function
        if self.first:
            return self.first <= mutant.line <= self.last
        return True


def parse_entry(text):
    m = _ENTRY.match(text.strip())
    if not m:
        raise ValueError(f"not a set entry: {text!r} (PATH, PATH@FUNCTION or PATH:A-B [| TEXT])")
    first = int(m.group("first") or 0)
    last = int(m.group("last") or first)
    if first and last < first:
        raise ValueError(f"empty line range in {text!r}")
    return Entry(m.group("path"), first, last, m.group("function") or "", m.group("anchor") or "")


def parse(text):
    """Entries of a set file's text (comments and blank lines skipped)."""
    entries = []
    for line in text.splitlines():
        # A comment is a line starting with #, or " # " after an entry (an anchor may hold
        # "#pragma").
        line = "" if line.lstrip().startswith("#") else re.split(r"\s#(?:\s|$)", line, 1)[0].strip()
        if line:
            entries.append(parse_entry(line))
    return entries


def load(name):
    path = name if os.sep in name or name.endswith(".txt") else os.path.join(SETS_DIR, name + ".txt")
    if not os.path.exists(path):
        known = sorted(f[:-4] for f in os.listdir(SETS_DIR) if f.endswith(".txt"))
        raise SystemExit(f"unknown mutant set {name!r}; known: {', '.join(known)}")
    with open(path) as f:
        return parse(f.read())


def check_anchors(repo, entries):
    """Errors (strings) for entries whose file is missing or whose anchor text is no longer in
    its first line."""
    errors = []
    for e in entries:
        full = os.path.join(repo, e.path)
        if not os.path.exists(full):
            errors.append(f"{e.path}: no such file")
            continue
        if e.first and e.anchor:
            with open(full) as f:
                lines = f.read().split("\n")
            if e.first > len(lines) or e.anchor not in lines[e.first - 1]:
                errors.append(f"{e.path}:{e.first}: expected {e.anchor!r} in that line; "
                              "the set is stale, update its line numbers")
    return errors


def select(mutants, entries):
    """The mutants any entry covers, in catalogue order."""
    return [m for m in mutants if any(e.covers(m) for e in entries)]


def files(entries):
    return sorted({e.path for e in entries})
