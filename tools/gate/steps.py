"""The checks the gate runs for the affected operators, each one a reports.Step, plus SARIF
results at the changed lines that map to the failing operator."""

import json
import os
import re
import subprocess
import sys
import time

import reports

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "mutate"))
import modes  # noqa: E402  (the mutation tool's test filters and restricted golden suite)


class Context:
    """What every step needs: the checkout, the output folder, the binaries, the impact."""

    def __init__(self, repo, out, impact, families):
        self.repo = repo
        self.families = families
        self.all_ops = [op for ops in families.values() for op in ops]
        self.out = out
        self.impact = impact
        self.bin = os.path.join(repo, "build", "bin")
        self.results = []
        # Tests write repro directories into their working directory: keep them in out/.
        self.cwd = os.path.join(out, "run")
        os.makedirs(self.cwd, exist_ok=True)

    @property
    def ops(self):
        return sorted(self.impact.ops)

    def where(self, op):
        """The first changed line that maps to `op` (or to anything), for an annotation."""
        spots = self.impact.where.get(op) or [s for v in self.impact.where.values() for s in v]
        return spots[0] if spots else ("README.md", 1)

    def add(self, rule, op, message):
        path, line = self.where(op)
        self.results.append(reports.Result(rule, message, path, line))


def run(cmd, ctx, log_name, timeout, env=None):
    """(returncode or None on timeout, seconds, output); the output also goes to out/log_name."""
    merged = dict(os.environ)
    merged.update(env or {})
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=ctx.cwd, env=merged, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, start_new_session=True)
        code, text = proc.returncode, proc.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        code, text = None, (e.output or b"").decode(errors="replace") + "\n(timed out)"
    seconds = time.monotonic() - start
    with open(os.path.join(ctx.out, log_name), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + text)
    return code, seconds, text


def op_of_test(name, ops):
    """The operator a test name is about (AllOps/ExampleTest.../optimized_max_pool2d_x,
    MutationKillsMaxPool2d.Y), longest match first; '' when none."""
    flat = name.lower().replace("_", "")
    for op in sorted(ops, key=len, reverse=True):
        if op.replace("_", "") in flat:
            return op
    return ""


def _gtest_step(ctx, name, what, gfilter, timeout, env=None, log=None):
    cmd = [os.path.join(ctx.bin, "cvmcheck_tests"), "--gtest_brief=1",
           "--gtest_filter=" + gfilter]
    code, seconds, text = run(cmd, ctx, log or name + ".log", timeout, env)
    ran = re.search(r"\[==========\] (\d+) tests? from .* ran", text)
    count = int(ran.group(1)) if ran else 0
    what = f"{what}: {count} tests"
    if code == 0 and count > 0:
        return reports.Step(name, "passed", seconds, what), text
    failed = sorted(set(re.findall(r"^\[  FAILED  \] ([\w/.]+)", text, re.M)))
    for test in failed[:20]:
        ctx.add("gate/test-failure", op_of_test(test, ctx.all_ops), f"{name}: {test} failed")
    if code is None:
        status, why = "failed", "timed out"
    elif count == 0:
        status, why = "error", "no test matched the filter"
    else:
        status, why = "failed", f"{len(failed)} failed"
    return reports.Step(name, status, seconds, f"{what}, {why}", _tail(text)), text


def _count(ops):
    return f"{len(ops)} operator" + ("" if len(ops) == 1 else "s")


def _tail(text, limit=3000):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "[  FAILED  ]" in line or "FINDING" in line or "fail" in line.lower():
            return "\n".join(lines[max(0, i - 20):i + 20])[-limit:]
    return "\n".join(lines[-40:])[-limit:]


def examples(ctx):
    """Every record example of the operators on every backend, and the optimized backend's
    path and mutation-kill tests of those operators (the unit mode's filter)."""
    ops = ctx.ops
    patterns = []
    for backend in ("reference", "optimized", "cuda-host", "cuda"):
        patterns += modes.unit_filter(ops, backend).split(":")
    what = f"examples of {_count(ops)} on every backend, their path tests"
    return _gtest_step(ctx, "examples", what, ":".join(dict.fromkeys(patterns)), 900)[0]


def properties(ctx, cases=None):
    env = {"RC_PARAMS": "seed=1"}  # fixed: the same head gets the same verdict
    if cases:
        env["CVMCHECK_PROP_CASES"] = str(cases)
    what = f"RapidCheck properties of {_count(ctx.ops)} (seed 1)"
    return _gtest_step(ctx, "properties", what, modes.property_filter(ctx.ops), 900, env)[0]


def corpus(ctx):
    """The fuzz corpora, only the calls of the operators (all of them when everything)."""
    env = {} if ctx.impact.everything else {"CVMCHECK_CORPUS_OPS": ",".join(ctx.ops)}
    step, text = _gtest_step(ctx, "corpus", "fuzz corpus replay",
                             "FuzzCorpus.EveryCorpusFileReplaysWithoutAFinding", 900, env)
    replayed = re.search(r"(\d+) corpus files, (\d+) calls replayed", text)
    if replayed:
        step.what = f"fuzz corpus replay: {replayed.group(2)} calls of {replayed.group(1)} files"
        if int(replayed.group(2)) == 0 and step.status == "passed":
            step.status, step.what = "error", step.what + " (no call of these operators)"
    if step.status == "failed":
        for path in re.findall(r"(corpus/[^\s\"]+)", text)[:10]:
            ctx.results.append(reports.Result("gate/corpus-finding", f"{path} failed",
                                              *ctx.where(_corpus_op(path, ctx))))
    return step


def _corpus_op(path, ctx):
    target = path.split("/")[1] if path.count("/") >= 2 else ""
    fam = [op for op in ctx.ops if op in ctx.families.get(target, [])]
    return fam[0] if fam else ""


def golden(ctx):
    """golden verify on a suite of only these operators' cases (the mutation tool's
    restricted suite: a filtered manifest and links to the checked-in cases)."""
    harness = modes.Harness(ctx.repo, ctx.out, modes.DEFAULT_BUDGETS)
    suite = harness.golden_suite(ctx.ops)
    with open(os.path.join(suite, "MANIFEST.json")) as f:
        cases = len(json.load(f)["cases"])
    cmd = [os.path.join(ctx.bin, "cvmcheck"), "golden", "verify", suite, "--backend", "all"]
    code, seconds, text = run(cmd, ctx, "golden.log", 600)
    what = f"golden verify, {cases} cases on every backend"
    if code == 0 and cases > 0:
        return reports.Step("golden", "passed", seconds, what)
    if cases == 0:
        return reports.Step("golden", "error", seconds, what + ": no case for these operators")
    backend = ""
    for line in text.splitlines():
        # Each backend's table: a header "operator pass fail xfail xpass skipped corrupt
        # (backend NAME)", then one row per operator.
        header = re.search(r"\(backend ([\w-]+)\)", line)
        backend = header.group(1) if header else backend
        cols = line.split()
        if len(cols) >= 7 and cols[0] in ctx.all_ops and cols[2].isdigit() and \
                int(cols[2]) + int(cols[6]) > 0:
            ctx.add("gate/golden-failure", cols[0], f"golden: {cols[0]}: {cols[2]} failed, "
                    f"{cols[6]} corrupt of {int(cols[1]) + int(cols[2])} cases on {backend}")
    return reports.Step("golden", "failed", seconds, what, _tail(text))


def with_variants(ctx, backends):
    """`backends` plus the available dispatch variants of each (optimized/avx2, optimized@3, ...,
    as `cvmcheck ops --json` lists them): a kernel change is checked on every CPU path. An
    unavailable variant is left out, since a backend named explicitly must compare something."""
    if not backends:
        return backends
    listing = json.loads(subprocess.run([os.path.join(ctx.bin, "cvmcheck"), "ops", "--json"],
                                        check=True, capture_output=True).stdout)
    return list(backends) + [b["name"] for b in listing["backends"]
                             if b.get("variant_of") in backends and b["available"]]


def campaign_store(ctx):
    """The findings store the campaign records in (gate.py --store; default OUT/findings.sqlite),
    so that the gate's findings are keyed and kept as the nightly's are."""
    return getattr(ctx, "store", None) or os.path.join(ctx.out, "findings.sqlite")


def campaign(ctx, seconds, seed, backends):
    """A time-boxed campaign over the operators (round-robin, so the time is split across
    them) and the affected backends; its findings are annotated at the operator's lines."""
    report = os.path.join(ctx.out, "campaign")
    cmd = [os.path.join(ctx.bin, "cvmcheck"), "campaign", "--ops", ",".join(ctx.ops),
           "--seconds", str(seconds), "--seed", str(seed), "--report", report, "--quiet",
           "--commit", (getattr(ctx, "head_id", "") or "")[:12],
           "--store", campaign_store(ctx),
           # The changed operators for a few seconds: campaign.json still counts their paths,
           # but a path a short narrow run did not reach is not the change's fault.
           "--allow-unreached-paths"]
    backends = with_variants(ctx, backends)
    if backends:
        cmd += ["--backends", ",".join(backends)]
    code, took, text = run(cmd, ctx, "campaign.log", seconds + 300)
    try:
        with open(os.path.join(report, "campaign.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return reports.Step("campaign", "error", took, "campaign wrote no report", _tail(text))
    report_page(ctx)
    what = (f"campaign {seconds} s over {_count(ctx.ops)} x "
            f"{', '.join(backends) or 'all backends'}: {data['calls']} calls, seed {seed}")
    for f in data["findings"]:
        ctx.add("gate/campaign-finding", f["op"],
                f"campaign: {f['signature']} ({f['calls']} calls); replay: cvmcheck campaign "
                f"--seed {seed} --ops {','.join(ctx.ops)}"
                + (f" --backends {','.join(backends)}" if backends else "")
                + f"; repro: cvmcheck run {f['repro_dir']} --backend {f['backend']}\n"
                f"{f['report']}")
    if code == 0 and data["calls"] > 0:
        return reports.Step("campaign", "passed", took, what)
    why = f", {len(data['findings'])} findings" if data["findings"] else ""
    return reports.Step("campaign", "failed", took, what + why, _tail(text))


def report_page(ctx, summary=None):
    """The campaign's page (`cvmcheck report`: matrix, findings with their repro lines) as
    out/report.html, with the gate's summary.md once it exists; its path, or None when the
    page could not be written (the summary then has no link; never a failed gate)."""
    page = os.path.join(ctx.out, "report.html")
    cmd = [os.path.join(ctx.bin, "cvmcheck"), "report", "--campaign",
           os.path.join(ctx.out, "campaign", "campaign.json"), "--out", page]
    if summary:
        cmd += ["--gate", summary]
    if os.path.isfile(campaign_store(ctx)):  # each finding's life, the store's runs
        cmd += ["--store", campaign_store(ctx)]
    code, _, _ = run(cmd, ctx, "report.log", 120)
    ctx.report_page = page if code == 0 else None
    return ctx.report_page


def mrt(ctx):
    cmd = [os.path.join(ctx.bin, "cvmcheck"), "mrt", "--seconds", "5", "--backend", "all"]
    code, seconds, text = run(cmd, ctx, "mrt.log", 300)
    status = "passed" if code == 0 else "failed"
    return reports.Step("mrt", status, seconds, "MRT expansions against their direct formulas, "
                        "5 s, every backend", "" if code == 0 else _tail(text))


def tooling(ctx):
    """Changes to CI and the tools: the lint, and the tools' own unit tests."""
    steps = []
    checks = [("lint", ["bash", os.path.join(ctx.repo, "ci", "lint.sh")],
               "actionlint on the workflows, shellcheck on ci/*.sh and ci/slurm/*.sh")]
    if any(p.startswith("tools/gate/") for p in ctx.impact.tooling):
        checks.append(("gate-tests", [sys.executable, os.path.join(ctx.repo, "tools", "gate",
                                                                   "test_gate.py")],
                       "the gate's unit tests"))
    if any(p.startswith("tools/mutate/") for p in ctx.impact.tooling):
        checks.append(("mutate-tests", [sys.executable, os.path.join(
            ctx.repo, "tools", "mutate", "test_catalogue.py")], "the mutant rules' unit tests"))
    if any(p.startswith("tools/cluster/") for p in ctx.impact.tooling):
        checks.append(("cluster-tests", [sys.executable, os.path.join(
            ctx.repo, "tools", "cluster", "test_cluster.py")], "the Slurm night's tools' tests"))
    for name, cmd, what in checks:
        code, seconds, text = run(cmd, ctx, name + ".log", 600)
        steps.append(reports.Step(name, "passed" if code == 0 else "failed", seconds, what,
                                  "" if code == 0 else _tail(text)))
    return steps
