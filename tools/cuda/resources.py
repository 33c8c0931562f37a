#!/usr/bin/env python3
"""What the compiler says about the CUDA kernels, and a budget it must keep.

Compiles cuda/device_runner.cu (the only nvcc unit) as the build does, with ptxas's resource
report (-Xptxas -v) added, and parses it into one row per kernel: registers, shared memory,
constant memory, stack frame, spill stores and loads. Then checks each kernel against the budget
in cuda/resource_budget.json (spills and stack frame, i.e. local memory, beyond the budget fail).

Usage: tools/cuda/resources.py BUILD_DIR [--markdown] [--budget PATH]
  BUILD_DIR  a build with the CUDA backend (its compile_commands.json gives the nvcc command)
  --markdown print the table as docs/cuda.md keeps it
Exit status: 0 within budget; 1 over budget or the compile failed; 77 the build has no CUDA.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UNIT = "cuda/device_runner.cu"

FUNCTION = re.compile(r"ptxas info\s*: (?:Compiling entry function|Function properties for) '([^']+)'")
USED = re.compile(r"ptxas info\s*: Used (\d+) registers")
# The other figures, on the "Used" line or a line of their own depending on the nvcc version;
# an absent figure is 0.
FIGURES = {
    "shared": re.compile(r"(\d+) bytes smem"),
    "constant": re.compile(r"(\d+) bytes cmem\[0\]"),
    "stack": re.compile(r"(\d+) bytes (?:stack frame|cumulative stack size)"),
    "spill_stores": re.compile(r"(\d+) bytes spill stores"),
    "spill_loads": re.compile(r"(\d+) bytes spill loads"),
}


def nvcc_command(build_dir):
    path = os.path.join(build_dir, "compile_commands.json")
    try:
        with open(path) as f:
            commands = json.load(f)
    except OSError:
        return None
    for entry in commands:
        if entry["file"].endswith(UNIT):
            words = entry.get("arguments") or shlex.split(entry["command"])
            return words, entry["directory"]
    return None


def compile_report(words, directory):
    """The ptxas lines of one compile of the unit, to a throwaway object."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "unit.o")
        # The same command, its object written elsewhere (compile_commands.json holds no
        # compiler launcher).
        args = list(words)
        args[args.index("-o") + 1] = out
        args += ["-Xptxas", "-v"]
        run = subprocess.run(args, cwd=directory, capture_output=True, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stdout + run.stderr)
            return None
        return (run.stdout + run.stderr).splitlines()


def demangle(names):
    try:
        run = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
        return dict(zip(names, run.stdout.splitlines()))
    except OSError:
        return {n: n for n in names}


def parse(lines):
    """kernel (mangled) -> its figures; a kernel's lines follow its 'Compiling entry' line."""
    kernels, current = {}, None
    for line in lines:
        m = FUNCTION.search(line)
        if m:
            current = m.group(1)
            kernels.setdefault(current, {"registers": 0, "shared": 0, "constant": 0,
                                         "stack": 0, "spill_stores": 0, "spill_loads": 0})
            continue
        if current is None:
            continue
        k = kernels[current]
        m = USED.search(line)
        if m:
            k["registers"] = int(m.group(1))
        for field, pattern in FIGURES.items():
            m = pattern.search(line)
            if m:
                k[field] = max(k[field], int(m.group(1)))
    return kernels


def template_arguments(text, start):
    """The top-level template arguments of the list opening just before `start`."""
    args, depth, current = [], 0, ""
    for ch in text[start:]:
        if ch == "<" or ch == "(":
            depth += 1
        elif (ch == ">" or ch == ")") and depth > 0:
            depth -= 1
        elif ch == ">" or (ch == "," and depth == 0):
            args.append(current.strip())
            current = ""
            if ch == ">":
                break
            continue
        current += ch
    return args


def short_name(demangled):
    """step_kernel<cvm::cuda::MapParams> -> MapParams: the step kind is the template argument;
    gemm_kernel<cvm::cuda::TileShape<2, 2, 2, 4, 2> > -> GemmTile<2,2,2,4,2>: the tile shape;
    a kernel that is no template (reduce_warp_kernel) -> its name;
    a CUB kernel (NMS's sort) -> cub::<kernel>, its versioned namespaces and policy dropped, and
    /alt for the segmented radix sort's alternate-digit pass (its bool argument true)."""
    m = re.match(r"void cub::(?:\w+::)*?(\w+Kernel)<", demangled)
    if m:
        alt = template_arguments(demangled, m.end())[1:2] == ["true"]
        return "cub::" + m.group(1) + ("/alt" if alt else "")
    m = re.search(r"gemm_kernel<(?:cvm::cuda::)?TileShape<([0-9, ]+)>", demangled)
    if m:
        return "GemmTile<" + m.group(1).replace(" ", "") + ">"
    m = re.search(r"::(\w+_kernel)\(", demangled)  # a kernel of one step kind, no template
    if m:
        return m.group(1)
    m = re.search(r"<(?:cvm::cuda::)?([A-Za-z_0-9:]+)>", demangled)
    return m.group(1) if m else demangled.split("(")[0]


def check(rows, budget):
    problems = []
    for name, k in rows:
        limit = budget.get("per_kernel", {}).get(name, budget["default"])
        for field in ("spill_stores", "spill_loads", "stack", "registers"):
            if field in limit and k[field] > limit[field]:
                problems.append(f"{name}: {field} {k[field]} over the budget of {limit[field]}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--budget", default=os.path.join(ROOT, "cuda", "resource_budget.json"))
    a = parser.parse_args()
    found = nvcc_command(a.build_dir)
    if found is None:
        print(f"skipped: {a.build_dir} has no nvcc compile of {UNIT} (no CUDA backend)")
        return 77
    lines = compile_report(*found)
    if lines is None:
        print("FAILED: the compile with -Xptxas -v failed")
        return 1
    kernels = parse(lines)
    if not kernels:
        print("FAILED: ptxas reported no kernel")
        return 1
    names = demangle(list(kernels))
    rows = sorted(((short_name(names[m]), k) for m, k in kernels.items()), key=lambda r: r[0])
    arch = sorted(set(re.findall(r"for '(sm_\d+a?)'", "\n".join(lines))))
    header = ["kernel", "registers", "shared B", "constant B", "stack B", "spill stores B",
              "spill loads B"]
    fields = ["registers", "shared", "constant", "stack", "spill_stores", "spill_loads"]
    if a.markdown:
        print(f"ptxas, {', '.join(arch)}:\n")
        print("| " + " | ".join(header) + " |")
        print("|---" + "|---:" * len(fields) + "|")
        for name, k in rows:
            print(f"| `{name}` | " + " | ".join(str(k[f]) for f in fields) + " |")
    else:
        print(f"{'kernel':<22}" + "".join(f"{h:>15}" for h in header[1:]) + f"   ({', '.join(arch)})")
        for name, k in rows:
            print(f"{name:<22}" + "".join(f"{k[f]:>15}" for f in fields))
    with open(a.budget) as f:
        budget = json.load(f)
    problems = check(rows, budget)
    for p in problems:
        print("OVER BUDGET: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
