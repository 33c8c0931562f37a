#!/usr/bin/env python3
"""Unit tests of the Slurm night's tools: shard_plan.py (what a shard's next run does, and the
chain of its runs' reports) and check_night.py (the checks of ci/slurm.sh), on reports written
here in campaign.json's shape."""

import contextlib
import io
import json
import os
import sqlite3
import tempfile
import unittest

import check_night
import shard_plan


def state(next_call):
    return json.dumps({"seed": "7", "shard": "2/4", "jobs": 1,
                       "places": [{"job": 0, "next": next_call, "schedule": None}]})


def report(calls, stopped, started_at=None, stopped_at=None, seconds=10.0, findings=()):
    return {"seed": 7, "shard": "2/4", "seconds": seconds, "calls": calls, "generator_failures": 0,
            "run": {"stopped": stopped, "resumed_from": state(started_at) if started_at else ""},
            "resume_state": state(stopped_at if stopped_at is not None else calls),
            "table": {"max": {"optimized": {"cases": calls, "ok": calls}}},
            "findings": [{"signature": s, "calls": c, "backend": "planted"} for s, c in findings]}


def temp_dir(test):
    folder = tempfile.TemporaryDirectory()
    test.addCleanup(folder.cleanup)
    return folder.name


def write(folder, attempt, r):
    path = os.path.join(folder, f"attempt-{attempt}")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "campaign.json"), "w") as f:
        json.dump(r, f)


class ShardPlan(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(self)

    def test_a_shard_without_a_report_starts(self):
        self.assertEqual(shard_plan.plan(self.dir, 60.0), ("fresh", 60.0))
        os.makedirs(os.path.join(self.dir, "attempt-0"))  # killed before it wrote a report
        self.assertEqual(shard_plan.plan(self.dir, 60.0), ("fresh", 60.0))

    def test_a_stopped_run_is_resumed_for_the_seconds_left(self):
        write(self.dir, 0, report(100, "signal:SIGTERM", seconds=25.0))
        action, path, left = shard_plan.plan(self.dir, 60.0)
        self.assertEqual((action, left), ("resume", 35.0))
        self.assertTrue(path.endswith("attempt-0/campaign.json"))

    def test_a_run_killed_without_a_report_is_made_again_from_the_last_report(self):
        write(self.dir, 0, report(100, "signal:SIGTERM", seconds=20.0))
        os.makedirs(os.path.join(self.dir, "attempt-1"))
        write(self.dir, 12, report(50, "signal:SIGTERM", 100, 150, seconds=30.0))
        action, path, left = shard_plan.plan(self.dir, 60.0)
        self.assertEqual((action, left), ("resume", 10.0))
        self.assertTrue(path.endswith("attempt-12/campaign.json"), path)  # by number, not name

    def test_a_run_that_ended_by_itself_leaves_nothing(self):
        write(self.dir, 0, report(100, "signal:SIGTERM"))
        write(self.dir, 1, report(80, "max_cases", 100, 180))
        self.assertEqual(shard_plan.plan(self.dir, 600.0), ("done",))

    def test_a_shard_whose_time_is_used_up_is_done(self):
        write(self.dir, 0, report(100, "signal:SIGTERM", seconds=59.5))
        self.assertEqual(shard_plan.plan(self.dir, 60.0), ("done",))

    def test_the_chain_of_runs(self):
        write(self.dir, 0, report(100, "signal:SIGTERM"))
        write(self.dir, 1, report(80, "max_cases", 100, 180))
        self.assertIsNone(shard_plan.chain_problem(self.dir))
        write(self.dir, 1, report(80, "max_cases", 90, 170))  # overlaps: 90..99 twice
        self.assertIn("not where the run before it stopped", shard_plan.chain_problem(self.dir))
        self.assertIn("no report", shard_plan.chain_problem(os.path.join(self.dir, "none")))

    def test_the_command_prints_one_tab_separated_line(self):
        write(self.dir, 0, report(100, "signal:SIGTERM", seconds=25.0))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(shard_plan.main([self.dir, "60"]), 0)
        self.assertRegex(out.getvalue(), r"^resume\t.*attempt-0/campaign.json\t35.0\n$")
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(shard_plan.main(["--check", os.path.join(self.dir, "none")]), 1)


class CheckNight(unittest.TestCase):
    """A night folder as ci/slurm.sh leaves it: shard 2 stopped after 100 of its 180 calls."""

    def setUp(self):
        self.night = temp_dir(self)
        main = os.path.join(self.night, "campaigns", "main")
        for k in (1, 3, 4):
            write(os.path.join(main, f"shard-{k}"), 0, report(180, "max_cases"))
        self.shard2 = os.path.join(main, "shard-2")
        write(self.shard2, 0, report(100, "signal:SIGTERM", findings=[("max|planted", 3)]))
        write(self.shard2, 1, report(80, "max_cases", 100, 180, findings=[("max|planted", 2)]))
        repro = os.path.join(self.night, "repro")
        os.makedirs(repro)
        open(os.path.join(repro, "case.json"), "w").close()
        merged = report(720, "max_cases", findings=[("max|planted", 5)])
        merged["findings"][0].update(descriptor="max(...)", repro_dir=repro)
        merged["shards"] = {"count": 4, "held": [1, 2, 3, 4], "lacking": [], "partial": []}
        self.merged = os.path.join(main, "merged")
        write(main, "x", merged)
        os.rename(os.path.join(main, "attempt-x"), self.merged)
        self.whole = os.path.join(self.night, "whole")
        write(self.night, "w", report(180, "max_cases", findings=[("max|planted", 5)]))
        os.rename(os.path.join(self.night, "attempt-w"), self.whole)
        self.store = os.path.join(self.night, "findings.sqlite")
        db = sqlite3.connect(self.store)
        with db:
            db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, kind TEXT)")
            db.execute("INSERT INTO runs (kind) VALUES ('campaign'), ('fuzz')")
        db.close()
        with open(os.path.join(self.night, "report.html"), "w") as f:
            f.write("<html></html>")

    def run_checks(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = check_night.main([self.night, "--shards", "4", "--store", self.store,
                                       "--stopped-shard", "2", "--uninterrupted", self.whole,
                                       "--planted", "planted"])
        return status, out.getvalue()

    def test_a_good_night_passes(self):
        status, out = self.run_checks()
        self.assertEqual(status, 0, out)
        self.assertIn("ok   the merged report holds 4 of 4 shards", out)
        self.assertIn("its runs made 180 calls, the uninterrupted run 180", out)

    def test_calls_made_twice_fail(self):
        write(self.shard2, 1, report(90, "max_cases", 100, 190, findings=[("max|planted", 2)]))
        status, out = self.run_checks()
        self.assertEqual(status, 1)
        self.assertIn("FAIL its runs made 190 calls, the uninterrupted run 180", out)

    def test_a_lacking_shard_fails(self):
        with open(os.path.join(self.merged, "campaign.json")) as f:
            merged = json.load(f)
        merged["shards"].update(held=[1, 2, 3], lacking=[4])
        with open(os.path.join(self.merged, "campaign.json"), "w") as f:
            json.dump(merged, f)
        status, out = self.run_checks()
        self.assertEqual(status, 1)
        self.assertIn("FAIL the merged report holds 3 of 4 shards", out)


if __name__ == "__main__":
    unittest.main()
