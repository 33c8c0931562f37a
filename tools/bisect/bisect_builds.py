"""One `cvmcheck` binary per revision: built once in the revision's own worktree through ccache
(or taken from a directory of prebuilt binaries), then kept in the cache by commit, so that no
revision is ever built twice, by this bisect, a resumed one, or another finding's.

Cache layout (--cache): bin/<commit>/cvmcheck, builds.json (each commit's build: ok or failed,
seconds, log), logs/<commit>.log, ops/<commit>.json (the revision's `cvmcheck ops` listing),
trees/<commit>/ (the worktree while it builds; removed after unless --keep-trees).
"""

import json
import os
import shutil
import signal
import subprocess
import time

import bisect_finding

DEFAULT_BUILD = ("cmake --preset release >/dev/null && "
                 "cmake --build --preset release --target cvmcheck")
DEFAULT_BINARY = "build/bin/cvmcheck"
# Top-level paths no build step reads: the fixtures and corpora, 95% of this repository's files,
# whose checkout and removal took 20 s per revision against 10 s for a warm build.
DEFAULT_SKIP = "golden,golden-mrt,corpus"


def git(repo, *args, check=True):
    """git's output; a failure raises, or with check=False gives None."""
    done = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    if done.returncode != 0:
        if check:
            raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
        return None
    return done.stdout.strip()


def write_json(path, data):
    """Atomically, so that a bisect killed at any moment leaves a readable file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def read_json(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def run_killable(command, timeout, **kwargs):
    """subprocess.run in its own process group, all of it killed on timeout (a build's compilers,
    a replay's worker processes). Returns (returncode, stdout, stderr, timed_out)."""
    proc = subprocess.Popen(command, start_new_session=True, **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return proc.returncode, out, err, True
    except BaseException:
        # Its own session does not get the terminal's Ctrl-C: end it with the bisect.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


class Builder:
    def __init__(self, repo, cache, build_cmd=DEFAULT_BUILD, binary_path=DEFAULT_BINARY,
                 prebuilt="", timeout=3600, keep_trees=False, skip_paths=DEFAULT_SKIP):
        self.repo, self.cache = repo, os.path.abspath(cache)
        self.skip_paths = [p for p in skip_paths.split(",") if p]
        self.build_cmd, self.binary_path = build_cmd, binary_path
        self.prebuilt = prebuilt and os.path.abspath(prebuilt)
        self.timeout, self.keep_trees = timeout, keep_trees
        self.records_path = os.path.join(self.cache, "builds.json")
        self.records = read_json(self.records_path, {})
        self.built = 0              # builds this process ran
        self.build_seconds = 0.0    # their wall time
        self.reused = 0             # revisions whose binary or failed build came from the cache
        self.before_build = None    # called before each build (the --budget check)
        self._remove_unfinished_trees()

    def binary(self, commit):
        """(path, "") or (None, why not): the revision's cvmcheck."""
        if self.prebuilt:
            path = self._prebuilt(commit)
            return (path, "") if path else (None, "no prebuilt binary in " + self.prebuilt)
        kept = os.path.join(self.cache, "bin", commit, "cvmcheck")
        record = self.records.get(commit)
        if record and record["status"] == "ok" and os.path.exists(kept):
            self.reused += 1
            return kept, ""
        if record and record["status"] == "failed":
            self.reused += 1
            return None, f"does not build (log: {record['log']})"
        if self.before_build:
            self.before_build()
        return self._build(commit, kept)

    def average_build_seconds(self):
        return self.build_seconds / self.built if self.built else 0.0

    def _prebuilt(self, commit):
        for name in sorted(os.listdir(self.prebuilt)):
            if len(name) >= 7 and commit.startswith(name):
                path = os.path.join(self.prebuilt, name)
                path = os.path.join(path, "cvmcheck") if os.path.isdir(path) else path
                if os.access(path, os.X_OK):
                    return path
        return None

    def _build(self, commit, kept):
        tree = os.path.join(self.cache, "trees", commit)
        log = os.path.join(self.cache, "logs", commit + ".log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        self._remove_tree(tree)  # a build a killed bisect left half done
        self._check_out(tree, commit)
        start = time.monotonic()
        with open(log, "w") as out:
            status, _, _, timed_out = run_killable(
                ["bash", "-c", self.build_cmd], self.timeout, cwd=tree, env=build_env(tree, commit),
                stdout=out, stderr=subprocess.STDOUT)
        seconds = time.monotonic() - start
        self.built += 1
        self.build_seconds += seconds
        produced = os.path.join(tree, self.binary_path)
        ok = status == 0 and not timed_out and os.path.exists(produced)
        if ok:
            os.makedirs(os.path.dirname(kept), exist_ok=True)
            shutil.copy2(produced, kept)
        self.records[commit] = {"status": "ok" if ok else "failed", "seconds": round(seconds, 2),
                                "log": log, "timed_out": timed_out}
        write_json(self.records_path, self.records)
        if not self.keep_trees:
            self._remove_tree(tree)
        if ok:
            return kept, ""
        why = "build timed out" if timed_out else f"build failed (exit {status})"
        return None, f"does not build: {why}, log {log}"

    def _check_out(self, tree, commit):
        """The revision's worktree without the skipped paths (a pathspec, not a sparse-checkout,
        which would change the repository's config)."""
        git(self.repo, "worktree", "add", "--detach", "--no-checkout", "--force", tree, commit)
        git(tree, "checkout", commit, "--", ".", *[":!/" + p for p in self.skip_paths])

    def _remove_unfinished_trees(self):
        """Worktrees of builds a killed bisect left half done (kept ones have a record)."""
        trees = os.path.join(self.cache, "trees")
        for commit in os.listdir(trees) if os.path.isdir(trees) else []:
            if commit not in self.records:
                self._remove_tree(os.path.join(trees, commit))

    def _remove_tree(self, tree):
        if not os.path.exists(tree):
            return
        if git(self.repo, "worktree", "remove", "--force", tree, check=False) is None:
            shutil.rmtree(tree, ignore_errors=True)  # not a worktree (any more): files only
            git(self.repo, "worktree", "prune", check=False)

    def ops(self, commit, binary):
        """The revision's operators and their backends ({name: [backends]}), or None when its
        binary cannot list them; cached by commit."""
        path = os.path.join(self.cache, "ops", commit + ".json")
        cached = read_json(path, None)
        if cached is not None and not self.prebuilt:
            return cached.get("ops")
        status, out, _, timed_out = run_killable([binary, "ops"], 60, stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True)
        ops = bisect_finding.parse_ops_listing(out) if status == 0 and not timed_out else None
        if not self.prebuilt:
            write_json(path, {"ops": ops})
        return ops


def build_env(tree, commit):
    """ccache with paths relative to the worktree, so that every revision's worktree shares the
    objects of every other (and of the main checkout's ci/build.sh)."""
    env = dict(os.environ, BISECT_COMMIT=commit)
    if shutil.which("ccache"):
        env.update(CCACHE_BASEDIR=tree, CCACHE_NOHASHDIR="1",
                   CMAKE_CXX_COMPILER_LAUNCHER="ccache", CMAKE_CUDA_COMPILER_LAUNCHER="ccache")
    return env
