"""Base-vs-head benchmark of touched nn and elementwise kernels.

Both revisions' cvmcheck_bench are built (the base from `git archive` into build-gate/base,
through the same ccache, so only what differs compiles), then run in one process sequence
with their repetitions interleaved (base, head, head, base, ...), so drift of a shared machine
falls on both sides alike. The noise threshold is measured, not assumed: the spread between
the base's own repetitions. A benchmark is flagged only when the head's median is slower than
the base's by more than twice that spread (and at least MIN_THRESHOLD)."""

import json
import os
import re
import statistics
import subprocess
import time

import reports

FAMILIES = ("nn", "elementwise")
ROUNDS = 3                 # repetitions per side
MIN_THRESHOLD = 0.05       # never flag below 5%: the floor of what a 2-core CI box resolves


def touched_ops(ctx, files):
    """The nn and elementwise operators whose kernel lines (optimized/) changed."""
    wanted = {op for f in FAMILIES for op in ctx.families.get(f, [])}
    ops = set()
    for op, spots in ctx.impact.where.items():
        if op in wanted and any(p.startswith("optimized/") for p, _ in spots):
            ops.add(op)
    return sorted(ops)


def bench_filter(ops):
    """The single-thread `ours` benchmarks of these operators: the per-operator speed-up case,
    the bandwidth cases named after them, and the conv2d/dense shape suites."""
    names = "|".join(sorted(ops, key=len, reverse=True))
    return rf"^(speedup/({names})/|bandwidth/({names})(_[^/]*)?/|({names})/).*ours/t1/"


def _env(tree):
    env = dict(os.environ, CCACHE_BASEDIR=tree, CCACHE_NOHASHDIR="1")
    env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
    env.setdefault("CMAKE_CUDA_COMPILER_LAUNCHER", "ccache")
    return env


def build(tree, log):
    """The bench preset's cvmcheck_bench in `tree`; True when it built."""
    for cmd in (["cmake", "--preset", "bench"],
                ["nice", "cmake", "--build", "--preset", "bench", "--target", "cvmcheck_bench"]):
        log.write("$ " + " ".join(cmd) + f"  (in {tree})\n")
        log.flush()
        if subprocess.run(cmd, cwd=tree, env=_env(tree), stdout=log,
                          stderr=subprocess.STDOUT).returncode != 0:
            return False
    return True


def base_tree(repo, commit, log):
    """build-gate/base holds the base revision's files (its build directory is kept between
    runs; a new commit re-extracts the sources and ccache answers what did not change)."""
    tree = os.path.join(repo, "build-gate", "base")
    stamp = os.path.join(tree, ".gate-commit")
    if os.path.exists(stamp) and open(stamp).read() == commit:
        return tree
    os.makedirs(tree, exist_ok=True)
    log.write(f"$ git archive {commit} | tar -x -C {tree}\n")
    archive = subprocess.Popen(["git", "archive", commit], cwd=repo, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", tree], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {commit} failed")
    with open(stamp, "w") as f:
        f.write(commit)
    return tree


def _times(binary, pattern, min_time, out_json):
    """{benchmark name: real time (ns)} of one repetition of every matching benchmark."""
    subprocess.run(["nice", binary, f"--benchmark_filter={pattern}",
                    f"--benchmark_min_time={min_time}", "--benchmark_repetitions=1",
                    f"--benchmark_out={out_json}", "--benchmark_out_format=json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out_json) as f:
        data = json.load(f)
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    return {b["name"]: b["real_time"] * scale[b.get("time_unit", "ns")]
            for b in data["benchmarks"] if b.get("run_type", "iteration") == "iteration"}


def compare(base_runs, head_runs):
    """[(name, base median, head median, change, noise, threshold, flagged)] per benchmark.
    noise: the base's own spread, (max - min) / median over its repetitions."""
    rows = []
    for name in sorted(base_runs):
        b, h = base_runs[name], head_runs.get(name, [])
        if not b or not h:
            continue
        bm, hm = statistics.median(b), statistics.median(h)
        noise = (max(b) - min(b)) / bm if bm else 0.0
        threshold = max(MIN_THRESHOLD, 2 * noise)
        change = hm / bm - 1 if bm else 0.0
        rows.append((name, bm, hm, change, noise, threshold, change > threshold))
    return rows


def run(ctx, files, min_time):
    ops = touched_ops(ctx, files)
    if not ops:
        return None
    start = time.monotonic()
    log_path = os.path.join(ctx.out, "bench.log")
    with open(log_path, "w") as log:
        try:
            base = base_tree(ctx.repo, ctx.base_id, log)
            built = build(base, log) and build(ctx.repo, log)
        except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
            log.write(f"{e!r}\n")
            built = False
    if not built:
        with open(log_path) as f:
            tail = f.read()[-3000:]
        return reports.Step("bench", "error", time.monotonic() - start,
                            "the base or head benchmark build failed", tail)
    build_seconds = time.monotonic() - start
    pattern = bench_filter(ops)
    binaries = {side: os.path.join(tree, "build-bench", "bin", "cvmcheck_bench")
                for side, tree in (("base", base), ("head", ctx.repo))}
    runs = {"base": {}, "head": {}}
    for r in range(ROUNDS):
        order = ("base", "head") if r % 2 == 0 else ("head", "base")  # ABBA: drift cancels
        for side in order:
            out = os.path.join(ctx.out, f"bench-{side}-{r}.json")
            for name, t in _times(binaries[side], pattern, min_time, out).items():
                runs[side].setdefault(name, []).append(t)
    rows = compare(runs["base"], runs["head"])
    with open(os.path.join(ctx.out, "bench.md"), "w") as f:
        f.write(table(rows))
    flagged = [r for r in rows if r[6]]
    for name, bm, hm, change, noise, threshold, _ in flagged:
        op = next((o for o in sorted(ops, key=len, reverse=True) if re.search(rf"/{o}[/_]|^{o}/",
                                                                              name)), ops[0])
        ctx.add("gate/slowdown", op, f"{name}: {change:+.1%} (base {bm / 1e6:.3f} ms, head "
                f"{hm / 1e6:.3f} ms; base-vs-base noise {noise:.1%}, threshold {threshold:.1%})")
    seconds = time.monotonic() - start
    what = (f"base vs head, {len(rows)} benchmarks of {', '.join(ops)}, {ROUNDS} interleaved "
            f"repetitions each (builds {build_seconds:.0f} s): "
            + (f"{len(flagged)} slower beyond the noise" if flagged else "no slowdown beyond the "
               "noise") + f"; table in {os.path.relpath(os.path.join(ctx.out, 'bench.md'))}")
    if not rows:
        return reports.Step("bench", "error", seconds, f"no benchmark matched {pattern}")
    # A slowdown is a warning in the SARIF and the summary; timing on shared CI runners is too
    # noisy to block a merge on.
    return reports.Step("bench", "passed", seconds, what)


def table(rows):
    lines = ["| benchmark | base ms | head ms | change | base noise | threshold | |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, bm, hm, change, noise, threshold, flagged in rows:
        lines.append(f"| {name} | {bm / 1e6:.3f} | {hm / 1e6:.3f} | {change:+.1%} | "
                     f"{noise:.1%} | {threshold:.1%} | {'**slower**' if flagged else ''} |")
    return "\n".join(lines) + "\n"
