#!/usr/bin/env python3
"""The resource check must catch what it is for: a planted spill, stack use beyond the budget
and too many registers, in both report forms ptxas prints (nvcc 12's separate stack-frame line,
nvcc 13's figures on the "Used" line)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resources  # noqa: E402

ENTRY = "ptxas info    : Compiling entry function '{}' for 'sm_90'"
BUDGET = {"default": {"spill_stores": 0, "spill_loads": 0, "stack": 0, "registers": 128},
          "per_kernel": {"MapParams": {"stack": 48}}}


def rows_of(lines):
    return [(name, k) for name, k in resources.parse(lines).items()]


class ResourceCheck(unittest.TestCase):
    def test_within_budget_passes(self):
        lines = [ENTRY.format("MapParams"),
                 "ptxas info    : Used 32 registers, used 0 barriers, 48 bytes cumulative stack size"]
        self.assertEqual(resources.check(rows_of(lines), BUDGET), [])

    def test_a_spill_fails_in_the_older_form(self):
        lines = [ENTRY.format("GatherParams"),
                 "ptxas info    : Function properties for GatherParams",
                 "    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads",
                 "ptxas info    : Used 255 registers, 380 bytes cmem[0]"]
        problems = resources.check(rows_of(lines), BUDGET)
        self.assertEqual(len(problems), 4, problems)  # stores, loads, stack, registers
        self.assertTrue(any("spill_stores 8" in p for p in problems))

    def test_stack_beyond_a_stated_budget_fails(self):
        lines = [ENTRY.format("MapParams"),
                 "ptxas info    : Used 32 registers, used 0 barriers, 96 bytes cumulative stack size"]
        self.assertEqual(resources.check(rows_of(lines), BUDGET),
                         ["MapParams: stack 96 over the budget of 48"])

    def test_short_name_is_the_step_kind(self):
        self.assertEqual(resources.short_name(
            "void cvm::cuda::(anonymous namespace)::step_kernel<cvm::cuda::NmsParams>(int)"),
            "NmsParams")

    def test_short_name_of_a_kernel_without_template_is_its_name(self):
        self.assertEqual(resources.short_name(
            "cvm::cuda::(anonymous namespace)::reduce_warp_kernel(cvm::cuda::FastReduceParams, "
            "cvm::cuda::InView, int *, long)"), "reduce_warp_kernel")

    def test_short_name_of_a_cub_kernel_drops_its_versioned_namespace(self):
        ns = "cub::CUB_300001_SM_900::detail::"
        name = ("void " + ns + "radix_sort::DeviceSegmentedRadixSortKernel<" + ns +
                "radix::policy_hub<int, int, int>::Policy1000, {}, (" + ns +
                "SortOrder)1, int, int>(int const*)")
        self.assertEqual(resources.short_name(name.format("false")),
                         "cub::DeviceSegmentedRadixSortKernel")
        self.assertEqual(resources.short_name(name.format("true")),
                         "cub::DeviceSegmentedRadixSortKernel/alt")
        self.assertEqual(resources.short_name("void " + ns + "EmptyKernel<void>()"),
                         "cub::EmptyKernel")


if __name__ == "__main__":
    unittest.main()
