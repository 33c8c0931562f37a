"""The optimized backend's ISAs as optimized/isa_list.h lists them (docs/architecture.md, "Adding
an ISA"), read from the header so that no tool keeps a list of its own: each ISA's kernel file,
its dispatch variants, the processor whose builds hold it, and its GEMM paths (the paths of
optimized/paths.h tagged with that ISA alone).

The mutation runs build for x86: a kernel file of another processor's ISA compiles to nothing
there, so its mutants would survive uncompiled (catalogue.OTHER_PROCESSOR_FILES)."""

import dataclasses
import os
import re

# The processor the mutation runs build for, and the column value of the ISAs every build holds.
BUILD_PROCESSOR = "kX86"
ANY_PROCESSOR = "kAnyProcessor"

_ENTRY = re.compile(r'^\s*X\((k\w+),\s*"([^"]+)",\s*(k\w+),\s*(k\w+),\s*(k\w+),\s*(\w+)\)',
                    re.MULTILINE)
_PATH = re.compile(r'X\((k\w+),\s*"([^"]+)",\s*(k\w+),')
# An ISA's GEMM paths: conv2d.gemm.<one word> and dense.gemm.<one word>, and on AVX2 the
# precision-chosen ones (conv2d.gemm.avx2_u8.data7); not the gemv, nor the direct kernels.
_GEMM = re.compile(r"^(conv2d|dense)\.gemm\.[a-z0-9_]+(\.[a-z0-9_]+)?$")
_MAIN_GEMM = re.compile(r"^(conv2d|dense)\.gemm\.[a-z0-9_]+$")

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclasses.dataclass(frozen=True)
class Isa:
    constant: str   # kAvxVnni
    name: str       # avxvnni: variant optimized/avxvnni
    processor: str  # kX86, kArm64, kAnyProcessor
    twin: bool      # an emulated SIMDe twin, variant optimized/<name>~simde
    stem: str       # kernel file optimized/nn_isa_<stem>.cc

    @property
    def kernel_file(self):
        return f"optimized/nn_isa_{self.stem}.cc"

    @property
    def variants(self):
        """Its dispatch variants, native first."""
        native = "optimized/" + self.name
        return (native, native + "~simde") if self.twin else (native,)

    @property
    def built_here(self):
        """Whether the mutation runs' builds hold its kernels."""
        return self.processor in (BUILD_PROCESSOR, ANY_PROCESSOR)


def _read(repo, rel):
    with open(os.path.join(repo, rel)) as f:
        return f.read()


def isas(repo=_REPO):
    """Every ISA of the list, in its order (the rank)."""
    return [Isa(c, n, p, twin == "kSimdeTwin", stem)
            for c, n, p, twin, _vectors, stem in _ENTRY.findall(_read(repo, "optimized/isa_list.h"))]


def gemm_paths(of, repo=_REPO, main_only=False):
    """The GEMM path ids of the ISAs `of` (Isa objects), in paths.h's order: the paths tagged
    with one of them alone. main_only: conv2d.gemm.<isa> and dense.gemm.<isa> alone."""
    constants = {i.constant for i in of}
    pattern = _MAIN_GEMM if main_only else _GEMM
    return [pid for _, pid, on in _PATH.findall(_read(repo, "optimized/paths.h"))
            if on in constants and pattern.match(pid)]


def other_processor_files(repo=_REPO):
    """Kernel files of the ISAs another processor's builds hold."""
    return {i.kernel_file for i in isas(repo) if not i.built_here}


def isa_only_files(repo=_REPO):
    """{kernel file: its variants} of the ISAs this processor's builds hold but not every CPU
    runs (the portable ISA runs everywhere)."""
    return {i.kernel_file: i.variants for i in isas(repo)
            if i.built_here and i.processor != ANY_PROCESSOR}
