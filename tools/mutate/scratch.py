"""The scratch tree a mutant is applied to, and its incremental build.

Mutants are never written into the engineer's checkout: the tree is mirrored (tracked and
untracked-but-not-ignored files, as git lists them) into build-mutate/tree, which keeps its own
CMake build directory across mutants. A file is copied only when its bytes differ, with its
modification time preserved, so a re-sync after a finished run rebuilds nothing, and one
mutant costs one object file plus the links. The scratch layout mirrors the presets' (the
build directory is tree/build) so ccache, with base_dir=/work, sees the same relative paths
as a normal release build.
"""

import os
import shutil
import subprocess
import time


def source_files(repo):
    """Paths (relative) of every file git would carry: tracked plus untracked-not-ignored."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo, check=True, capture_output=True).stdout
    return sorted({p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(repo, p))})


def _same_bytes(a, b):
    if not os.path.exists(b) or os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def sync_tree(repo, tree):
    """Mirror the checkout into the scratch tree; returns how many files were (re)copied."""
    copied = 0
    wanted = set(source_files(repo))
    for rel in wanted:
        src, dst = os.path.join(repo, rel), os.path.join(tree, rel)
        if _same_bytes(src, dst):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        # A fresh modification time, not the checkout's: a file that a killed run left mutated
        # is newer than the checkout's copy, and restoring the older time would leave the
        # mutant's object file looking up to date to make.
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
        copied += 1
    # Files deleted from the checkout would still be globbed by CMake: remove them.
    for top in ("core", "ops", "reference", "mrt", "harness", "infer", "optimized", "tools",
                "tests", "fuzz", "cuda", "registry"):
        root = os.path.join(tree, top)
        for dirpath, _, names in os.walk(root):
            for name in names:
                rel = os.path.relpath(os.path.join(dirpath, name), tree)
                if rel not in wanted:
                    os.remove(os.path.join(dirpath, name))
    return copied


class ScratchBuild:
    """One CMake build of the scratch tree (release g++, or the fuzz preset's clang flags)."""

    def __init__(self, tree, build_dir, cmake_args, targets, log, jobs=1):
        self.jobs = jobs
        self.tree = tree
        self.build_dir = build_dir
        self.cmake_args = cmake_args
        self.targets = targets
        self.log = log

    def configure(self):
        stamp = os.path.join(self.build_dir, "mutate-configure-args")
        wanted = "\n".join(self.cmake_args)
        if os.path.exists(os.path.join(self.build_dir, "build.ninja")) and os.path.exists(stamp):
            with open(stamp) as f:
                if f.read() == wanted:
                    return True
        env = dict(os.environ)
        env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
        cmd = ["cmake", "-S", self.tree, "-B", self.build_dir, "-G", "Ninja",
               "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] + self.cmake_args
        if self._run(cmd, env, None).returncode != 0:
            return False
        with open(stamp, "w") as f:
            f.write(wanted)
        return True

    def build(self, timeout=None):
        """Builds the targets (nice, -j1 unless asked: the machine is shared). True when it
        succeeded."""
        if not self.configure():
            return False
        cmd = ["nice", "cmake", "--build", self.build_dir, f"-j{self.jobs}", "--target"] + self.targets
        try:
            return self._run(cmd, None, timeout).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def _run(self, cmd, env, timeout):
        with open(self.log, "a") as log:
            log.write("\n$ " + " ".join(cmd) + "  # " + time.strftime("%H:%M:%S") + "\n")
            log.flush()
            return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout)


def _fast_link():
    """lld when installed: every mutant relinks two large binaries, and GNU ld is the slow part
    of an incremental rebuild. Linker flags do not enter ccache's hash, so objects still hit."""
    return ["-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld"] if shutil.which("ld.lld") else []


def cuda_device_present():
    """Whether a CUDA device can run the `cuda` backend here (nvidia-smi lists one)."""
    if not shutil.which("nvidia-smi"):
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and b"GPU" in out.stdout


def release_build(tree, log, with_cuda, targets=("cvmcheck", "cvmcheck_tests"), jobs=1):
    """The release preset's configuration: what the unit, property and golden modes run.
    Without a device the CUDA backend cannot run a test, so nvcc (15 s a mutant of a cuda/
    header) is left out; cuda-host still compiles every cuda/*.h element function. `targets`:
    the campaign alone needs only cvmcheck (one link instead of two)."""
    return ScratchBuild(tree, os.path.join(tree, "build"),
                        ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_COMPILER=g++"] + _fast_link()
                        + ([] if with_cuda else ["-DCVMCHECK_CUDA=OFF"]),
                        list(targets), log, jobs)


def sanitizer_build(tree, log, targets=("cvmcheck_tests",)):
    """The asan-ubsan preset's configuration: the unit tests (or, for the random-mutant run's
    sanitizer judgement, the campaign's cvmcheck) under ASan+UBSan."""
    return ScratchBuild(tree, os.path.join(tree, "build-asan"),
                        ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_CXX_COMPILER=clang++",
                         "-DCVMCHECK_SANITIZE=ON", "-DCVMCHECK_CUDA=OFF"] + _fast_link(),
                        list(targets), log)


def fuzz_build(tree, log, family):
    """The fuzz preset's configuration; only the family's target is built."""
    return ScratchBuild(tree, os.path.join(tree, "build-fuzz"),
                        ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_CXX_COMPILER=clang++",
                         "-DCVMCHECK_SANITIZE=ON", "-DCVMCHECK_FUZZ=ON", "-DCVMCHECK_TESTS=OFF"]
                        + _fast_link(),
                        ["fuzz_" + family], log)
