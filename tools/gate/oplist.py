#!/usr/bin/env python3
"""The operator list read from core/include/cvmcheck/op_list.h, printed in the shape of
`cvmcheck ops --json` (families and operators with their family; nothing else).

The gate maps a diff to operators before anything is built, so that a docs-only change or a
bad revision is answered in a second; tools/mutate/operators.py reads the list through a
binary, and CVMCHECK_BINARY pointed at this script gives it the same list without one. The
binary's list is generated from the same header, so the two cannot differ.
"""

import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_ENTRY = re.compile(r"^\s*X\((\w+),\s*(\w+)\)")


def read(repo=REPO):
    """{"families": [...], "operators": [{"name", "family"}]} from the header."""
    with open(os.path.join(repo, "core", "include", "cvmcheck", "op_list.h")) as f:
        text = f.read()
    ops = [{"name": m.group(1), "family": m.group(2)}
           for m in map(_ENTRY.match, text.splitlines()) if m]
    block = re.search(r"kFamilies\s*=\s*\{(.*?)\};", text, re.S)
    families = re.findall(r'"(\w+)"', block.group(1)) if block else []
    if not ops or not families:
        raise SystemExit("tools/gate/oplist.py: cannot read the operator list from op_list.h")
    return {"families": families, "operators": ops}


if __name__ == "__main__":
    # Called as `oplist.py ops --json`, like the binary.
    json.dump(read(), sys.stdout, indent=1)
    sys.stdout.write("\n")
