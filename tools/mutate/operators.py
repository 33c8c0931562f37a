"""Which operators a mutant can affect, so each harness mode runs only their tests.

A mutant is attributed by the function it sits in (the nearest enclosing definition above its
line) through the table below, or, on a `backend.add("name", ...)` line, by that name. Helpers
shared by several kernels map to every operator that calls them; anything unlisted falls back
to the file's default. Coarse attribution only costs time (more tests run), never a wrong
verdict, so the table errs towards more operators.
"""

import json
import os
import re
import subprocess
import sys

import isas

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_listing():
    """The operator list as the built binary reports it (`cvmcheck ops --json`);
    CVMCHECK_BINARY overrides the path of the binary."""
    binary = os.environ.get("CVMCHECK_BINARY") or os.path.join(_REPO, "build", "bin", "cvmcheck")
    if not os.path.exists(binary):
        if any(a in ("-h", "--help") for a in sys.argv[1:]):
            # --help needs no build: the operator list of core/op_list.json (the gate's
            # tools/gate/oplist.py, without rule ids) is enough to describe the options.
            sys.path.insert(0, os.path.join(_REPO, "tools", "gate"))
            import oplist  # noqa: E402
            return oplist.read(_REPO)
        raise SystemExit(f"tools/mutate: {binary} not found; build the release preset first "
                         "(bash ci/build.sh release): the operator list comes from "
                         "`cvmcheck ops --json`")
    return json.loads(subprocess.run([binary, "ops", "--json"], check=True,
                                     capture_output=True).stdout)


_LISTING = _load_listing()
# The registered backends ({"name", "variant_of"?, "available"?, ...}), for the campaign modes.
BACKENDS = _LISTING.get("backends", [])
FAMILIES = {family: [] for family in _LISTING["families"]}
for _op in _LISTING["operators"]:
    FAMILIES[_op["family"]].append(_op["name"])
# The operators' own rule names (their ids are "<op>.<name>"), which wrong_rule mutants swap.
# The gate's list derived from the header (tools/gate/oplist.py) has none: its mutants of infer/
# then swap only the global ids.
RULE_NAMES = sorted({name for _op in _LISTING["operators"]
                     for name, rule_id in _op.get("rule_ids", {}).items()
                     if not rule_id.startswith("global.")})

_UNARY = ["abs", "negative", "cvm_precision", "clip", "cvm_clip", "cvm_right_shift",
          "cvm_left_shift"]

# file (basename without extension) -> {function name: operators}, and "*" for the default.
TABLE = {
    "elementwise": {
        "abs": ["abs"], "negative": ["negative"],
        "cvm_precision": ["cvm_precision"], "clip": ["clip"],
        "cvm_clip": ["cvm_clip"], "cvm_right_shift": ["cvm_right_shift"],
        "cvm_left_shift": ["cvm_left_shift"],
        "clamp_alpha": ["cvm_clip", "cvm_right_shift", "cvm_left_shift"],
        "map_unary": _UNARY, "unary": _UNARY,
        "zip": ["elemwise_add", "elemwise_sub"], "zip_any": ["elemwise_add", "elemwise_sub"],
        "elemwise": ["elemwise_add", "elemwise_sub"],
        "*": FAMILIES["elementwise"],
    },
    "broadcast": {"divide": ["broadcast_div"], "*": FAMILIES["broadcast"]},
    "reduce": {"*": FAMILIES["reduce"]},
    "nn": {
        "relu_range": ["relu"], "relu": ["relu"], "pool_plane": ["max_pool2d"],
        "max_pool2d": ["max_pool2d"], "upsample_row": ["upsampling"],
        "upsampling": ["upsampling"], "*": FAMILIES["nn"],
    },
    "conv2d": {"*": ["conv2d"]},
    "dense": {"*": ["dense"]},
    "simde_fallbacks": {"*": ["conv2d", "dense"]},
    "isa_twin": {"*": ["conv2d", "dense"]},
    "nn_isa_dispatch": {"*": ["conv2d", "dense"]},
    "nn_tile": {"*": ["conv2d", "dense"]},
    "nn_generic": {"*": ["conv2d", "dense"]},
    "nn_gemm": {"*": ["conv2d", "dense"]},
    "cpu_features": {"*": ["conv2d", "dense"]},
    "transform_shape": {"*": FAMILIES["transform_shape"]},
    "transform_index": {"*": FAMILIES["transform_index"]},
    # The copy engine serves both transform families; the fused pass every elementwise and
    # broadcast kernel plus the copies that check values as they go.
    "transform_copy": {"*": FAMILIES["transform_shape"] + FAMILIES["transform_index"]},
    "fused_pass": {"*": FAMILIES["elementwise"] + FAMILIES["broadcast"]
                   + ["flatten", "expand_dims", "reshape", "squeeze", "concatenate"]},
    "vision": {"*": FAMILIES["vision"]},
    "ov": {"*": FAMILIES["ov"]},
    # cuda/: the element functions cuda-host runs. map, gather and the common helpers serve
    # every family (the default "*"); the nn and vision headers hold one function per kind.
    "nn_device": {"reduce_element": FAMILIES["reduce"], "conv2d_element": ["conv2d"],
                  "dense_element": ["dense"], "pool_element": ["max_pool2d"],
                  "pool_element_as": ["max_pool2d"],
                  "*": FAMILIES["reduce"] + FAMILIES["nn"]},
    "vision_device": {"valid_counts_batch": ["get_valid_counts"],
                      "*": ["non_max_suppression"]},
    "reduce_device": {"*": FAMILIES["reduce"]},
    "warp_device": {"*": FAMILIES["reduce"] + FAMILIES["vision"]},
    "nms_device": {"*": FAMILIES["vision"]},
    "nms_host": {"*": FAMILIES["vision"]},
    "plan_nms": {"*": FAMILIES["vision"]},
    "plan_fast": {"*": ["*"]},
    "device_common": {"*": ["*"]},
    "map_device": {"*": ["*"]},
    "gather_device": {"take_element": ["take", "cvm_lut"], "*": ["*"]},
}
# Each ISA's kernel file (optimized/isa_list.h) serves conv2d and dense.
for _isa in isas.isas():
    TABLE["nn_isa_" + _isa.stem] = {"*": ["conv2d", "dense"]}

# infer/ (wrong_rule mutants): functions serving another family than their file's name says;
# everything else falls back to TABLE (by file name) like the kernels.
INFER_TABLE = {"elementwise": {"infer_broadcast": FAMILIES["broadcast"]}}

_DEF = re.compile(r"^(?:template\s*<.*>\s*)?(?:[\w:<>,*&\s]+?\s)?[*&]?(\w+)\s*\((?:[^;]*$|.*\{)")
_ADD = re.compile(r'backend\.add\("(\w+)"')
_NOT_DEF = ("if", "for", "while", "switch", "return", "case", "else", "do", "namespace",
            "struct", "class")


def family_of(op):
    for family, ops in FAMILIES.items():
        if op in ops:
            return family
    return "all"


def enclosing_function(lines, index):
    """Name of the function whose definition is the nearest column-0 header above the line."""
    for i in range(index, -1, -1):
        line = lines[i]
        if not line or line[0] in " \t}/#":
            continue
        m = _DEF.match(line)
        if m and m.group(1) not in _NOT_DEF:
            return m.group(1)
    return ""


def _file_key(path):
    base = path.rsplit("/", 1)[-1]
    return base.split(".", 1)[0]


def attribute(path, lines, index):
    """(function, operators) of line `index` of file `path`."""
    function = enclosing_function(lines, index)
    added = _ADD.search(lines[index])
    if not added and index > 0 and lines[index - 1].rstrip().endswith("{"):
        added = _ADD.search(lines[index - 1])  # the body of a lambda registered just above
    if added:
        return function, [added.group(1)]
    infer_ops = INFER_TABLE.get(_file_key(path), {}).get(function)
    if path.startswith("infer/") and infer_ops:
        return function, infer_ops
    table = TABLE.get(_file_key(path))
    if table is None:
        # cuda/ and files not in the table: a function named after an operator, else all.
        for family, ops in FAMILIES.items():
            for op in sorted(ops, key=len, reverse=True):
                if op in function or op in _file_key(path):
                    return function, [op]
        return function, ["*"]
    return function, table.get(function, table["*"])
