#!/usr/bin/env python3
"""CPU test of the spills check of tests/kernel_code.py (CTest: kernel_code/spills_parser).

    python3 tests/test_kernel_code.py

Reads `cuobjdump -res-usage` output captured from step10_stream_k's verify binary, built before its Hopper spill
was fixed (trimmed to a few functions of each ELF), and from step 3 with a planted spill. Checks that the parser
gives each function its ELF's architecture and fields, that a real kernel (hg::Break::kNone) with a stack frame
fails naming the kernel, the architecture and the bytes, that the other architecture's namespace, the break
variants and the harness's kernels are not taken for the step's real kernels, and the allow-list's rules.
Python standard library only.
"""
import contextlib
import io
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernel_code  # noqa: E402  (found through the path set just above)

SM90_NONE_4 = "_ZN6step104sm9012hgemm_kernelILi4ELN2hg5BreakE0EEEv14CUtensorMap_stS4_S4_iiiNS2_11StreamKPlanEP6float4Pjj"
SM90_PART_WAIT_4 = SM90_NONE_4.replace("BreakE0E", "BreakE14E")
SM90_EXIT_SYNC_4 = SM90_NONE_4.replace("BreakE0E", "BreakE12E")
SM100_NONE_4 = SM90_NONE_4.replace("4sm90", "5sm100")

# Step 10 before the fix: the sm_90a ELF of its spec (the real kernel and kNoPartWait spill, kNoExitClusterSync
# does not; the sm100 kernel's body is compiled out there), its sm_100a ELF, and one ELF of the harness.
STEP10_BEFORE = f"""
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:42 CONSTANT[4]:80
 Function {SM90_PART_WAIT_4}:
  REG:168 STACK:8 SHARED:1024 LOCAL:0 CONSTANT[0]:1084 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function {SM90_EXIT_SYNC_4}:
  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1084 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function {SM90_NONE_4}:
  REG:168 STACK:8 SHARED:1024 LOCAL:0 CONSTANT[0]:1084 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function {SM100_NONE_4}:
  REG:4 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1084 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin elf code:
================
arch = sm_100a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:42 CONSTANT[4]:80
 Function {SM90_NONE_4}:
  REG:4 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1340 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function {SM100_NONE_4}:
  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1340 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:8 CONSTANT[4]:8
 Function _ZN2hg45_GLOBAL__N__900f60c3_12_reference_cu_f08064e816reference_kernelEPK6__halfS3_PfS4_iii:
  REG:30 STACK:0 SHARED:3200 LOCAL:0 CONSTANT[0]:572 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

# Step 3 (no ring, so no depth argument) with __launch_bounds__(kThreads, 4) planted in its Hopper kernel.
STEP3_PLANTED = """
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:12 CONSTANT[4]:16
 Function _ZN5step34sm9012hgemm_kernelILN2hg5BreakE0EEEvPK6__halfS6_PS4_iii:
  REG:128 STACK:392 SHARED:1024 LOCAL:0 CONSTANT[0]:564 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def report(text, step, allowed=None):
    return kernel_code.spill_report(kernel_code.resource_usage(text), step, allowed or {})


class ResourceUsage(unittest.TestCase):
    def test_rows_carry_their_elf_architecture_and_fields(self):
        rows = kernel_code.resource_usage(STEP10_BEFORE)
        self.assertEqual([(a, n) for a, n, _ in rows][:4],
                         [("sm_90a", SM90_PART_WAIT_4), ("sm_90a", SM90_EXIT_SYNC_4), ("sm_90a", SM90_NONE_4),
                          ("sm_90a", SM100_NONE_4)])
        self.assertEqual(len(rows), 7)
        self.assertEqual(rows[2][2]["REG"], 168)
        self.assertEqual(rows[2][2]["STACK"], 8)
        self.assertEqual(rows[2][2]["CONSTANT[0]"], 1084)
        self.assertEqual(rows[5][0], "sm_100a")
        self.assertEqual(rows[6][0], "sm_90a")  # the harness's ELF opens its own architecture again


class SpillReport(unittest.TestCase):
    def test_a_spilling_real_kernel_fails_naming_kernel_arch_and_bytes(self):
        status, lines = report(STEP10_BEFORE, "10")
        self.assertEqual(status, 1)
        text = "\n".join(lines)
        self.assertIn("SPILLS: sm_90a step10::sm90::hgemm_kernel<4, hg::Break::kNone>: a stack frame of 8 bytes", text)
        self.assertIn("HG_SPILLS_ALLOWED_<step>", text)
        # One real sm_90a instance: the sm100 namespace's compiled-out entry in the sm_90a ELF is not the step's.
        self.assertIn("ok: sm_100a: 1 real instance(s) of step10::sm100::hgemm_kernel", text)
        self.assertEqual(text.count("SPILLS: sm_90a step10"), 1)
        # kNoPartWait spills too and is only counted.
        self.assertIn("not checked: 1 break variant(s) use local memory", text)

    def test_a_spilling_break_variant_alone_passes(self):
        fixed = STEP10_BEFORE.replace(
            f"{SM90_NONE_4}:\n  REG:168 STACK:8", f"{SM90_NONE_4}:\n  REG:168 STACK:0")
        status, lines = report(fixed, "10")
        self.assertEqual(status, 0, lines)
        self.assertIn("ok: sm_90a: 1 real instance(s) of step10::sm90::hgemm_kernel, no local memory", lines)

    def test_a_kernel_without_ring_depth_is_named_without_one(self):
        status, lines = report(STEP3_PLANTED, "3")
        self.assertEqual(status, 1)
        self.assertIn("step3::sm90::hgemm_kernel<hg::Break::kNone>: a stack frame of 392 bytes", lines[0])

    def test_an_allowed_architecture_passes_with_its_reason(self):
        status, lines = report(STEP10_BEFORE, "10", {"sm_90a": "the fixup needs one more register"})
        self.assertEqual(status, 0, lines)
        self.assertIn("allowed: sm_90a may spill: the fixup needs one more register", lines)

    def test_an_allowed_architecture_that_does_not_spill_is_stale(self):
        status, lines = report(STEP10_BEFORE, "10", {"sm_90a": "known", "sm_100a": "not needed"})
        self.assertEqual(status, 1)
        self.assertTrue(any(line.startswith("STALE: ") and "'sm_100a: not needed'" in line for line in lines), lines)

    def test_no_real_kernel_of_the_step_is_missing(self):
        status, lines = report(STEP10_BEFORE, "9")
        self.assertEqual(status, 1)
        self.assertTrue(lines[0].startswith("MISSING: "), lines)

    def test_an_allow_list_entry_needs_an_architecture_and_a_reason(self):
        self.assertEqual(kernel_code.parse_allowed(["sm_90a: why"]), {"sm_90a": "why"})
        for bad in ("sm_90a", "sm_90a:  ", "sm_80: why"):
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit) as stop:
                kernel_code.parse_allowed([bad])
            self.assertEqual(stop.exception.code, 2)
            self.assertIn(f"'{bad}'", err.getvalue())


if __name__ == "__main__":
    unittest.main()
