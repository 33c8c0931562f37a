#!/usr/bin/env python3
"""The operator list (core/op_list.json, generated from cvmcheck/op_list.h by
`cvmcheck ops --list-json`), printed in the shape of `cvmcheck ops --json` (families and
operators with their family; nothing else).

The gate maps a diff to operators before anything is built, so that a docs-only change or a
bad revision is answered in a second; tools/mutate/operators.py reads the list through a
binary, and CVMCHECK_BINARY pointed at this script gives it the same list without one. The
completeness test fails when the file and the header differ.
"""

import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(repo=REPO):
    """{"families": [...], "operators": [{"name", "family"}]} from core/op_list.json."""
    with open(os.path.join(repo, "core", "op_list.json")) as f:
        listing = json.load(f)
    if not listing.get("operators") or not listing.get("families"):
        raise SystemExit("tools/gate/oplist.py: core/op_list.json lists no operators")
    return {"families": listing["families"], "operators": listing["operators"]}


if __name__ == "__main__":
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__.strip() + "\n\nUsage: tools/gate/oplist.py [ops --json]")
        sys.exit(0)
    # Called as `oplist.py ops --json`, like the binary.
    json.dump(read(), sys.stdout, indent=1)
    sys.stdout.write("\n")
