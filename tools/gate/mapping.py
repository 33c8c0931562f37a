"""Which operators and backends a changed file can affect.

Kernel files (optimized/, cuda/) are attributed line by line with the mutation tool's table
(tools/mutate/operators.py): a line inside a function body goes to that function's operators,
a line at file scope (a signature, a constant, an include) to every operator the file serves.
Other paths go by folder: a family's reference, infer, corpus or contract page to the family,
a golden case to its operator, docs to nothing, CI tooling to the lint and the tools' own
tests, MRT (mrt/, golden-mrt/) to the MRT expansions, and anything else (core/, harness/,
ops/, tests/, fuzz/, CMake, unknown paths) to everything, so an unforeseen path costs time,
never a missed check.
"""

import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "mutate"))
import operators  # noqa: E402  (the mutation tool's attribution, shared on purpose)

BACKENDS = ("reference", "optimized", "cuda-host", "cuda")
# Paths that change no operator: CI configuration and the tools that test the others. They
# still get checked: the lint, and the tools' own unit tests.
TOOLING = (".github/", ".ci/", "ci/", ".clusterfuzzlite/", "tools/gate/", "tools/mutate/",
           "tools/cluster/", "bench/", ".gitignore")
# The contract in words: docs/contract.md is every operator's, docs/ops/<family>.md a family's.
CONTRACT = "docs/contract.md"


@dataclasses.dataclass
class Impact:
    ops: set = dataclasses.field(default_factory=set)
    backends: set = dataclasses.field(default_factory=set)
    everything: bool = False
    mrt: bool = False
    docs: list = dataclasses.field(default_factory=list)
    tooling: list = dataclasses.field(default_factory=list)
    # Why each path is in the gate: path -> short text, for the summary.
    reasons: dict = dataclasses.field(default_factory=dict)
    # op -> [(path, line)] of the changed lines that map to it: where a finding is annotated.
    where: dict = dataclasses.field(default_factory=dict)

    def nothing_to_run(self):
        return not self.ops and not self.mrt and not self.tooling


def all_ops():
    return [op for ops in operators.FAMILIES.values() for op in ops]


def _expand(ops):
    return set(all_ops()) if "*" in ops else set(ops)


def file_ops(path):
    """Every operator a kernel file serves: the union of its attribution table."""
    table = operators.TABLE.get(operators._file_key(path))
    if table is None:
        return set(all_ops())
    return set().union(*(_expand(v) for v in table.values()))


def kernel_line_ops(path, lines, number):
    """Operators of line `number` (1-based) of a kernel file whose head text is `lines`."""
    index = min(number, len(lines)) - 1
    text = lines[index] if index >= 0 else ""
    if text[:1] in (" ", "\t") and not text.lstrip().startswith("#"):
        return _expand(operators.attribute(path, lines, index)[1])
    return file_ops(path)


def _kernel_backends(path):
    if path.startswith("optimized/"):
        return {"optimized"}
    if path.endswith(".cu"):
        return {"cuda"}  # the device runner: launches and copies, which only a GPU runs
    return {"cuda-host", "cuda"}


def _stem(path):
    return os.path.basename(path).split(".", 1)[0]


def classify(path):
    """(kind, operators, backends) of a non-kernel path. kind: docs, tooling, ops, mrt, all."""
    families = operators.FAMILIES
    parts = path.split("/")
    if path == CONTRACT:
        return "all", set(all_ops()), set(BACKENDS)
    if len(parts) == 3 and parts[:2] == ["docs", "ops"] and _stem(path) in families:
        return "ops", set(families[_stem(path)]), set(BACKENDS)
    if parts[0] == "docs" or path == "LICENSE" or (
            path.endswith(".md") and parts[0] not in ("golden", "golden-mrt")):
        return "docs", set(), set()
    if path.startswith(TOOLING):
        return "tooling", set(), set()
    if parts[0] == "infer" and len(parts) == 2:
        ops = set(families[_stem(path)]) if _stem(path) in families else set(all_ops())
        return "ops", ops, {"optimized", "cuda-host", "cuda"}
    if parts[0] == "reference" and len(parts) == 2:
        ops = set(families[_stem(path)]) if _stem(path) in families else set(all_ops())
        return "ops", ops, set(BACKENDS)
    if parts[0] in ("mrt", "golden-mrt"):
        return "mrt", set(), set(BACKENDS)
    if parts[0] == "golden" and len(parts) > 2 and parts[1] in all_ops():
        return "ops", {parts[1]}, set(BACKENDS)
    if parts[0] == "corpus" and len(parts) > 2 and parts[1] in families:
        return "ops", set(families[parts[1]]), set(BACKENDS)
    return "all", set(all_ops()), set(BACKENDS)


def is_kernel(path):
    return path.startswith(("optimized/", "cuda/"))


def map_changes(files, read_lines):
    """[FileChange] -> Impact. read_lines(path) gives the head text of a file as lines."""
    impact = Impact()
    for change in files:
        path = change.path
        if is_kernel(path) and change.status != "D" and not change.binary:
            lines = read_lines(path)
            numbers = sorted(change.touched) or [1]
            for n in numbers:
                for op in kernel_line_ops(path, lines, n):
                    impact.where.setdefault(op, []).append((path, n))
                    impact.ops.add(op)
            impact.backends |= _kernel_backends(path)
            ops = sorted({op for n in numbers for op in kernel_line_ops(path, lines, n)})
            impact.reasons[path] = "kernel lines " + _ranges(numbers) + " -> " + _short(ops)
            continue
        if is_kernel(path):  # deleted: whatever the file served
            kind, ops, backends = "ops", file_ops(path), _kernel_backends(path)
        else:
            kind, ops, backends = classify(path)
        if kind == "docs":
            impact.docs.append(path)
            impact.reasons[path] = "documentation: nothing to run"
            continue
        if kind == "tooling":
            impact.tooling.append(path)
            impact.reasons[path] = "CI tooling: lint and the tools' own tests"
            continue
        if kind == "mrt":
            impact.mrt = True
            impact.reasons[path] = "MRT expansions"
        elif kind == "all":
            impact.everything = True
            impact.mrt = True
            impact.reasons[path] = "shared code or unknown path: every operator"
        else:
            impact.reasons[path] = _short(sorted(ops))
        impact.backends |= backends
        line = min(change.added) if change.added else 1
        for op in ops:
            impact.where.setdefault(op, []).append((path, line))
        impact.ops |= ops
    return impact


def _short(ops):
    return ", ".join(ops) if len(ops) <= 8 else f"{len(ops)} operators"


def _ranges(numbers):
    """[3, 4, 5, 9] -> '3-5, 9'."""
    out, start, prev = [], None, None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev > start else str(start))
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev > start else str(start))
    return ", ".join(out)
