"""Each revision's verdict on the finding, kept in the bisect's state file after every step, so
that a killed bisect continues where it stopped (a revision already judged is never built or
replayed again).

Flake policy, for --repeat N: a revision is bad when any of its N replays fails with the
finding's signature, good only when all N pass. A replay failing with another signature makes
the revision "different" (reported, and skipped: it says nothing about this bug); one that
cannot run the call (its operator, backend or option does not exist there, an unreadable
descriptor) and one that does not build are skipped, as `git bisect run`'s exit 125.
"""

import subprocess
import time

import bisect_builds
import bisect_finding

# The kinds of verdict. ABSENT: the operator (or the backend's kernel for it) does not exist in
# that revision, so the bug cannot be there; the search treats it as good and the report says
# "present since the operator was added" when the first bad commit's parent is ABSENT.
BAD, GOOD, ABSENT, SKIP = "bad", "good", "absent", "skip"


class BudgetExceeded(Exception):
    pass


class State:
    """The state file: the finding, its signature once known, and every revision's record."""

    VERSION = 1

    def __init__(self, path, finding):
        self.path = path
        self.data = bisect_builds.read_json(path, None)
        # A store finding is its signature (the store keeps its shortest call, which may change
        # from one night to the next); any other is its call and backend.
        identity = ({"signature": finding.signature} if finding.source == "store" else
                    {"descriptor": finding.descriptor, "repro_dir": finding.repro_dir,
                     "backend": finding.backend})
        if self.data is None:
            self.data = {"version": self.VERSION, "identity": identity,
                         "signature": finding.signature, "revisions": {}}
        elif self.data.get("identity") != identity:
            raise SystemExit(f"cvmcheck bisect: {path} holds the bisect of another finding "
                             "(another --workdir, or --fresh to start over)")
        if finding.signature and self.data.get("signature") not in (None, finding.signature):
            raise SystemExit(f"cvmcheck bisect: {path} bisects {self.data['signature']}, "
                             f"not {finding.signature} (--fresh to start over)")

    @property
    def signature(self):
        return self.data.get("signature")

    @signature.setter
    def signature(self, value):
        self.data["signature"] = value
        self.save()

    def record(self, commit):
        return self.data["revisions"].setdefault(commit, {"runs": []})

    def records(self):
        return self.data["revisions"]

    def save(self):
        bisect_builds.write_json(self.path, self.data)


def verdict_of(record, signature, repeat):
    """(kind, why) of a revision's record, or (None, "") while it needs more replays."""
    if record.get("skip"):
        return SKIP, record["skip"]
    if record.get("absent"):
        return ABSENT, record["absent"]
    runs = record["runs"]
    cannot = [r for r in runs if r["outcome"] == "cannot"]
    if cannot:
        return SKIP, "cannot run the call: " + cannot[0]["detail"]
    fails = [r for r in runs if r["outcome"] == "fail"]
    same = [r for r in fails
            if signature and bisect_finding.same_signature(r["signature"], signature)]
    if len(runs) < repeat:
        return None, ""
    if same:
        return BAD, f"{len(same)} of {len(runs)} replays failed the same way"
    if fails:
        return SKIP, "fails differently: " + fails[0]["signature"]
    return GOOD, f"{len(runs)} of {len(runs)} replays passed"


class Evaluator:
    """Judges revisions: builds (or finds) the binary, checks the operator exists, replays."""

    def __init__(self, repo, finding, builder, state, repeat=1, call_timeout=120, budget=0,
                 progress=None):
        self.repo, self.finding, self.builder, self.state = repo, finding, builder, state
        self.repeat, self.call_timeout = max(1, repeat), call_timeout
        self.progress = progress or (lambda *_: None)
        self.replays = 0
        self.started = time.monotonic()
        self.budget = budget
        builder.before_build = self._check_budget

    def _check_budget(self):
        if self.budget and time.monotonic() - self.started > self.budget:
            raise BudgetExceeded(f"--budget {self.budget} s spent")

    def verdict(self, commit):
        """(kind, why) for the revision, judging it first when its record is incomplete."""
        record = self.state.record(commit)
        record.setdefault("subject", bisect_builds.git(self.repo, "log", "-1", "--format=%s",
                                                       commit))
        kind, why = verdict_of(record, self.state.signature, self.repeat)
        if kind is not None:
            return kind, why
        self.progress("testing", commit, record["subject"])
        binary, why_not = self.builder.binary(commit)
        if binary is None:
            record["skip"] = why_not
        else:
            record["absent"] = bisect_finding.absence(self.builder.ops(commit, binary),
                                                      self.finding)
            while not record["absent"] and verdict_of(record, self.state.signature,
                                                      self.repeat)[0] is None:
                record["runs"].append(self._replay(binary))
        self.state.save()
        kind, why = verdict_of(record, self.state.signature, self.repeat)
        self.progress("judged", commit, f"{kind}: {why}")
        return kind, why

    def _replay(self, binary):
        self.replays += 1
        command = [binary, *self.finding.replay_args()]
        status, out, err, timed_out = bisect_builds.run_killable(
            command, self.call_timeout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        return bisect_finding.judge_replay(self.finding, status, out, err, timed_out)

    def adopt_signature(self, commit):
        """A finding given as a descriptor or case directory takes its signature from the bad
        revision: the first failing replay there (None when every replay passed)."""
        if self.state.signature:
            return self.state.signature
        record = self.state.record(commit)
        record.setdefault("subject", bisect_builds.git(self.repo, "log", "-1", "--format=%s",
                                                       commit))
        self.progress("testing", commit, record["subject"])
        saved = self.repeat
        self.repeat = 1 << 30  # replay without judging until a failure shows the signature
        try:
            binary, why = self.builder.binary(commit)
            if binary is None:
                raise SystemExit(f"cvmcheck bisect: the bad revision {commit[:10]} {why}")
            for _ in range(saved):
                run = self._replay(binary)
                record["runs"].append(run)
                if run["outcome"] != "pass":
                    break
        finally:
            self.repeat = saved
        failing = [r for r in record["runs"] if r["outcome"] == "fail"]
        if failing:
            self.state.signature = failing[0]["signature"]
        self.state.save()
        return self.state.signature
