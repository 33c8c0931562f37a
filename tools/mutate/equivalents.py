"""tools/mutate/equivalent.txt: mutants judged equivalent (no input can tell them apart).

One mutant a line: its id, then the reason. Blank lines and # comments are ignored. The list
is reviewed by people; the runner skips these mutants and leaves them out of every score, and
warns about an id that no longer names a mutant (the source moved under it).
"""

import os


def load(path):
    """{id: reason}"""
    found = {}
    if not os.path.exists(path):
        return found
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            ident, _, reason = line.partition(" ")
            if not reason.strip():
                raise ValueError(f"{path}:{number}: {ident} has no reason")
            found[ident] = reason.strip()
    return found
