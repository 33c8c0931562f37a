"""The harness modes a mutant is run against, cheapest first, each under its own time budget.

Every mode answers one question about a built scratch tree: does this harness, restricted to
the mutant's operators, notice a difference? The restriction is what keeps a catalogue run
affordable; it is safe because a kernel mutant can only change its own operators' outcomes.

  unit        cvmcheck_tests: the examples of those operators on the optimized backend, the
              nn path tests (nn operators), tests/mutation_kills_test.cc, the backend's
              path-mark oracle (tests/path_marks_test.cc), then (only when those pass) the
              robustness tests, which cannot be filtered by operator
  properties  cvmcheck_tests: the RapidCheck properties of those operators, fixed seed
  golden      cvmcheck golden verify on a suite holding only those operators' cases
  campaign    cvmcheck campaign over those operators (fixed seed and call count, time-capped)
              on the backend and its dispatch variants (optimized/avx2, optimized/portable,
              optimized@3, ...: every path, not only the one CPUID picks)
  properties-base, campaign-base
              the same with the dispatch variants left out (the base backend only): the
              killers as they were before optimized/variants.cc, to measure what the variants add
  sanitize    the unit mode's tests in an ASan+UBSan build of the scratch tree (a second
              build): mutants that overrun a buffer without changing an output
  fuzz        the family's libFuzzer target for a few seconds (a third, sanitizer build)

A mutant of cuda/ runs the same tests on the `cuda-host` backend, which executes the
`__host__ __device__` element functions of cuda/*.h on the CPU (a mutant of the device
runner itself needs a GPU).
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import operators

MODES = ("unit", "properties", "golden", "campaign", "properties-base", "campaign-base",
         "sanitize", "fuzz")
DEFAULT_BUDGETS = {"unit": 120, "properties": 180, "golden": 60, "campaign": 120,
                   "properties-base": 180, "campaign-base": 120, "sanitize": 120, "fuzz": 60}
# The campaign modes: this many calls (the same calls whatever the backends: the seed draws
# them) unless the time cap comes first.
CAMPAIGN_CASES = 1500
CAMPAIGN_SECONDS = 60


def variants_of(backend):
    """The registered, available dispatch variants of a backend (`cvmcheck ops --json`)."""
    return [b["name"] for b in operators.BACKENDS
            if b.get("variant_of") == backend and b.get("available", True)]

_NN_PATH_TESTS = {
    "conv2d": ["NnPaths.Conv2d*", "NnPaths.RuleBreaking*", "NnPaths.ConvAndDense*"],
    "dense": ["NnPaths.Dense*", "NnPaths.RuleBreaking*", "NnPaths.ConvAndDense*"],
    "relu": ["NnPaths.ReluMaxPool*"],
    "max_pool2d": ["NnPaths.ReluMaxPool*"],
    "upsampling": ["NnPaths.ReluMaxPool*"],
}
# The other families' path tests (tests/optimized/): large shapes, threads, every ISA.
for _op in operators.FAMILIES["transform_shape"] + operators.FAMILIES["transform_index"]:
    _NN_PATH_TESTS[_op] = ["TransformPaths.*"]
for _op in operators.FAMILIES["vision"] + operators.FAMILIES["ov"]:
    _NN_PATH_TESTS[_op] = ["VisionOvPaths.*"]
for _op in (operators.FAMILIES["elementwise"] + operators.FAMILIES["broadcast"]
            + ["flatten", "expand_dims", "reshape", "squeeze", "concatenate"]):
    _NN_PATH_TESTS.setdefault(_op, []).append("ElementwiseFused.*")


# The path-mark oracle of each backend family (tests/path_marks_test.cc): a mutant of a mark
# (hit, hit_if, tile_paths) changes no output, only the paths a call reports, so neither the
# examples nor a campaign can see it; these suites can, whatever the mutant's operators (every
# row runs in about a second).
_PATH_MARK_TESTS = {
    "optimized": ["PathMarks.*", "PathMarksOptimized.*"],
    "cuda-host": ["PathMarks.*", "PathMarksCudaHost.*"],
    "cuda": ["PathMarks.*", "PathMarksCuda.*"],
}


def camel(op):
    """MutationKills suite name of an operator: sum -> MutationKillsSum, max_pool2d ->
    MutationKillsMaxPool2d (one suite per operator, so a filter never catches a longer name)."""
    return "MutationKills" + "".join(part[:1].upper() + part[1:] for part in op.split("_"))


def expand_ops(ops):
    if "*" in ops:
        return [op for family in operators.FAMILIES.values() for op in family]
    return list(ops)


def unit_filter(ops, backend="optimized"):
    patterns = []
    prefix = backend.replace("-", "_")
    for op in ops:
        patterns.append(f"AllOps/ExampleTest.GivesTheListedOutcome/{prefix}_{op}_*")
        if backend == "optimized":  # these tests drive the optimized kernels' own paths
            patterns.append(camel(op) + ".*")
            patterns += _NN_PATH_TESTS.get(op, [])
    if backend == "optimized":
        patterns.append("MutationKillsDispatch.*")  # the ISA and thread controls (backend.cc)
    patterns += _PATH_MARK_TESTS.get(backend, [])
    return ":".join(dict.fromkeys(patterns))


def property_filter(ops):
    return ":".join(f"AllOps/OpProperty.*/{op}" for op in ops)


class Result:
    """The verdict of one mode: killed, survived or timeout, with its time and a log tail."""

    def __init__(self, status, seconds, tail=""):
        self.status = status
        self.seconds = seconds
        self.tail = tail

    def to_json(self):
        return {"status": self.status, "seconds": round(self.seconds, 2), "tail": self.tail}


# The test binaries run with --gtest_fail_fast: one failure is the verdict, and a mutant that
# breaks many tests otherwise spends its budget on them (optimized/conv2d.cc:280 timed out so,
# after printing its first failures).
def _run(cmd, budget, cwd, env=None, ok_codes=(0,)):
    start = time.monotonic()
    merged = dict(os.environ)
    merged.update(env or {})
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=merged, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=budget, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        out = (e.output or b"").decode(errors="replace")
        return Result("timeout", time.monotonic() - start, out[-1500:])
    seconds = time.monotonic() - start
    out = proc.stdout.decode(errors="replace")
    status = "survived" if proc.returncode in ok_codes else "killed"
    return Result(status, seconds, _interesting_tail(out) if status == "killed" else "")


def _interesting_tail(out):
    """The first failure lines, which say what caught the mutant."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if "[  FAILED  ]" in line or "fail:" in line or "ERROR:" in line or "finding" in line:
            return "\n".join(lines[max(0, i - 12):i + 3])[-1500:]
    return "\n".join(lines[-15:])[-1500:]


class Harness:
    """Runs the modes against the scratch tree's builds."""

    def __init__(self, tree, work, budgets, prop_cases=None, fuzz_builder=None,
                 rc_seed=1, robustness=True, sanitize_builder=None,
                 campaign_cases=CAMPAIGN_CASES, campaign_seconds=CAMPAIGN_SECONDS):
        self.campaign_cases = campaign_cases
        self.campaign_seconds = campaign_seconds
        self.sanitize_builder = sanitize_builder  # callable() -> bool (built), or None
        self.rc_seed = rc_seed
        self.robustness = robustness
        self.tree = tree
        self.work = work
        self.budgets = budgets
        self.prop_cases = prop_cases
        self.fuzz_builder = fuzz_builder  # callable(family) -> bool (built), or None
        self.bin = os.path.join(tree, "build", "bin")
        # The tests write repro directories relative to the working directory: keep them out
        # of the tree.
        self.cwd = os.path.join(work, "run")
        os.makedirs(self.cwd, exist_ok=True)

    def run(self, mode, ops, backend="optimized"):
        ops = expand_ops(ops)
        return getattr(self, "_" + mode.replace("-", "_"))(ops, self.budgets[mode], backend)

    def _unit(self, ops, budget, backend, bin_dir=None):
        tests = os.path.join(bin_dir or self.bin, "cvmcheck_tests")
        first = _run([tests, "--gtest_brief=1", "--gtest_fail_fast",
                      "--gtest_filter=" + unit_filter(ops, backend)], budget, self.cwd)
        if first.status != "survived" or not self.robustness:
            return first
        # Robustness covers every operator at once (about 20 s here), so it runs only for
        # mutants the operator's own tests missed.
        second = _run([tests, "--gtest_brief=1", "--gtest_fail_fast",
                       "--gtest_filter=Robustness.*"],
                      max(1.0, budget - first.seconds), self.cwd)
        second.seconds += first.seconds
        return second

    def _sanitize(self, ops, budget, backend):
        if self.sanitize_builder is None:
            return Result("skipped", 0.0, "sanitize mode not enabled")
        start = time.monotonic()
        if not self.sanitize_builder():
            return Result("build-failed", time.monotonic() - start, "sanitizer build failed")
        build_seconds = time.monotonic() - start
        # The robustness tests stay out: they are operator-wide and slow under ASan.
        saved, self.robustness = self.robustness, False
        try:
            result = self._unit(ops, budget, backend, os.path.join(self.tree, "build-asan", "bin"))
        finally:
            self.robustness = saved
        result.seconds += build_seconds
        return result

    def _properties(self, ops, budget, backend, only_backend=False):
        # A fixed seed: the same mutant gets the same verdict on every run.
        env = {"RC_PARAMS": f"seed={self.rc_seed}"}
        if only_backend:  # no dispatch variants (tests/properties/op_properties_test.cc)
            env["CVMCHECK_PROP_BACKENDS"] = backend
        if self.prop_cases:
            env["CVMCHECK_PROP_CASES"] = str(self.prop_cases)
        return _run([os.path.join(self.bin, "cvmcheck_tests"), "--gtest_brief=1",
                     "--gtest_fail_fast", "--gtest_filter=" + property_filter(ops)],
                    budget, self.cwd, env)

    def _properties_base(self, ops, budget, backend):
        return self._properties(ops, budget, backend, only_backend=True)

    def _campaign(self, ops, budget, backend, only_backend=False):
        """A campaign restricted to the mutant's operators: the backend with (or, for
        campaign-base, without) its dispatch variants; killed when it reports a mismatch.
        Exit status 1 is a mismatch; any other failure (a usage error, nothing compared) is
        the harness's, and counts as a kill only if the unmutated tree passes (the baseline)."""
        backends = [backend] + ([] if only_backend else variants_of(backend))
        report = tempfile.mkdtemp(prefix="mutate-campaign-", dir=self.work)
        try:
            return _run([os.path.join(self.bin, "cvmcheck"), "campaign", "--ops", ",".join(ops),
                         "--backends", ",".join(backends), "--seed", "1",
                         "--max-cases", str(self.campaign_cases),
                         "--seconds", str(self.campaign_seconds), "--report", report,
                         "--max-repros", "1", "--shrink-seconds", "0", "--jobs", "1", "--quiet",
                         # A few hundred calls of a few operators reach only some kernel paths,
                         # and a variant may implement none of them (cuda-host@nms8 of a GEMM
                         # mutant): neither is the mutant's doing.
                         "--allow-unreached-paths", "--allow-nothing-compared"],
                        budget, self.cwd)
        finally:
            shutil.rmtree(report, ignore_errors=True)

    def _campaign_base(self, ops, budget, backend):
        return self._campaign(ops, budget, backend, only_backend=True)

    def _golden(self, ops, budget, backend):
        suite = self.golden_suite(ops)
        return _run([os.path.join(self.bin, "cvmcheck"), "golden", "verify", suite,
                     "--backend", backend], budget, self.cwd)

    def golden_suite(self, ops):
        """A suite directory with only these operators' cases: a filtered MANIFEST.json and
        links to the checked-in case directories (the CLI has no per-operator filter)."""
        source = os.path.join(self.tree, "golden")
        name = "golden-" + "-".join(sorted(ops)) if len(ops) <= 3 else "golden-" + str(abs(hash(tuple(sorted(ops)))))
        suite = os.path.join(self.work, "golden", name)
        if os.path.exists(os.path.join(suite, "MANIFEST.json")):
            return suite
        with open(os.path.join(source, "MANIFEST.json")) as f:
            manifest = json.load(f)
        manifest["cases"] = [c for c in manifest["cases"] if c["op"] in ops]
        os.makedirs(suite, exist_ok=True)
        for op in ops:
            link = os.path.join(suite, op)
            if os.path.isdir(os.path.join(source, op)) and not os.path.lexists(link):
                os.symlink(os.path.join(source, op), link)
        with open(os.path.join(suite, "MANIFEST.json"), "w") as f:
            json.dump(manifest, f)
        return suite

    def _fuzz(self, ops, budget, backend):
        families = sorted({operators.family_of(op) for op in ops})
        family = families[0] if len(families) == 1 else "all"
        if self.fuzz_builder is None:
            return Result("skipped", 0.0, "fuzz mode not enabled (--fuzz)")
        start = time.monotonic()
        if not self.fuzz_builder(family):
            return Result("build-failed", time.monotonic() - start, "fuzz build failed")
        build_seconds = time.monotonic() - start
        target = os.path.join(self.tree, "build-fuzz", "bin", "fuzz_" + family)
        scratch = tempfile.mkdtemp(prefix="mutate-fuzz-", dir=self.work)
        try:
            result = _run([target, f"-max_total_time={budget}", "-timeout=10",
                           "-rss_limit_mb=2048", "-dict=" + os.path.join(self.tree, "fuzz", "attrs.dict"),
                           "-artifact_prefix=" + scratch + "/", scratch,
                           os.path.join(self.tree, "corpus", family)], budget + 30, self.cwd)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        result.seconds += build_seconds
        return result
