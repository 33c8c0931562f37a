"""The kernel path a source line belongs to (docs/paths.md), for the random-mutant report: a
survivor on a path the campaign never reached is a generator gap; on a path it reached, a value
that path never met.

A line belongs to the paths its function marks (`path::hit(path::kX)`, `hit_if(..., path::kX)`;
the nearest mark above the line first, else the nearest below), the constants read from the
backend's list (optimized/paths.h, cuda/paths.h). A function that marks none takes its file's
paths (FILE_PATHS: the ISA tables and the shared generic code). Device-only lines (code that
cuda-host never runs) are reported apart."""

import os
import re

import isas

# Files whose functions mark no path themselves: the paths that reach their code. Each ISA's
# kernel file takes its ISA's GEMM paths, nn_tile.h (the micro-kernel skeleton) every GEMM ISA's
# of the x86 builds the mutation runs use (optimized/isa_list.h, through isas.py).
FILE_PATHS = {
    "optimized/nn_gemv_avx2.cc": ["dense.gemv.avx2"],
    "optimized/nn_isa_portable.cc": ["dense.direct", "conv2d.direct"],
    "optimized/nn_generic.h": ["conv2d.direct", "dense.direct"],
    "optimized/nn_gemm.h": ["conv2d.gemm.vnni", "dense.gemm.vnni"],
    "infer/common.cc": ["infer.value_check.threaded"],
    "cuda/gemm_device.h": ["cuda.step.gemm", "cuda.conv2d.depthwise"],
    "cuda/mma_device.h": ["cuda.step.gemm"],
    "cuda/gemm_host.cc": ["cuda.step.gemm"],
    "cuda/reduce_device.h": ["cuda.reduce.warp", "cuda.reduce.split", "cuda.reduce.combine"],
    "cuda/nms_device.h": ["cuda.valid_counts.warp", "cuda.nms.keys", "cuda.nms.mask",
                          "cuda.nms.greedy", "cuda.nms.fill"],
    "cuda/warp_device.h": ["cuda.reduce.warp", "cuda.valid_counts.warp", "cuda.nms.greedy"],
}
for _isa in isas.isas():
    if isas.gemm_paths([_isa]):
        FILE_PATHS.setdefault(_isa.kernel_file, isas.gemm_paths([_isa]))
FILE_PATHS["optimized/nn_tile.h"] = isas.gemm_paths([i for i in isas.isas() if i.built_here],
                                                    main_only=True)
DEVICE_ONLY = ("cuda/device_runner.cu", "cuda/no_device.cc")

_X = re.compile(r'X\((k\w+),\s*"([^"]+)"')
_HIT = re.compile(r"\bhit(?:_if)?\(([^;]*)")
_CONST = re.compile(r"\bpath::(k\w+)|\b(kPath\w+)\b")


def path_ids(repo):
    """Constant name -> path id, from every backend's list."""
    ids = {}
    for rel in ("optimized/paths.h", "cuda/paths.h"):
        try:
            with open(os.path.join(repo, rel)) as f:
                for const, pid in _X.findall(f.read()):
                    ids.setdefault(const, pid)
        except OSError:
            pass
    ids["kPathValueCheckThreaded"] = "infer.value_check.threaded"
    return ids


def _function_span(lines, index):
    """[first, last) of the top-level definition holding line `index` (0-based): definitions
    start at column 0 in this tree, and end at a column-0 closing brace."""
    first = index
    while first > 0 and not re.match(r"[A-Za-z_]", lines[first]):
        first -= 1
    last = index
    while last < len(lines) and not lines[last].startswith("}"):
        last += 1
    return first, last + 1


def paths_of_line(repo, rel, line, ids=None):
    """The path ids line `line` (1-based) of `rel` belongs to, nearest first; [] when none."""
    if rel in DEVICE_ONLY:
        return ["device-only"]
    ids = ids if ids is not None else path_ids(repo)
    try:
        with open(os.path.join(repo, rel)) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    first, last = _function_span(lines, max(0, line - 1))
    marks = []  # (distance, id): above the line first
    for i in range(first, min(last, len(lines))):
        for call in _HIT.findall(lines[i]):
            for a, b in _CONST.findall(call):
                pid = ids.get(a or b)
                if pid:
                    distance = (line - 1 - i) if i <= line - 1 else 10_000 + i
                    marks.append((distance, pid))
    ordered = [pid for _, pid in sorted(marks)]
    seen = []
    for pid in ordered[:4] + FILE_PATHS.get(rel, []):
        if pid not in seen:
            seen.append(pid)
    return seen


def calls_of(paths_json, backend_prefix, pid):
    """Calls on `pid` summed over the campaign's backends whose name starts with the prefix."""
    total = 0
    for backend, entry in (paths_json or {}).items():
        if backend.startswith(backend_prefix):
            total += entry.get("calls", {}).get(pid, 0)
    return total
