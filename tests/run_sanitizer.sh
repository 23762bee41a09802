#!/usr/bin/env bash
# run_sanitizer.sh SANITIZER TOOL STEP_BINARY ARGS...
# Exit 77 (skip) when the machine has no supported GPU; otherwise runs compute-sanitizer --tool TOOL on the
# step and fails unless the step passes and the sanitizer reports 0 errors. The reference GEMM the verify binary
# checks against runs unchecked (--kernel-name-exclude): memcheck would follow its global loads one by one.
# It is excluded by name, rather than the step's kernel included alone, so that a renamed step kernel
# is still checked, never silently skipped.
set -u
sanitizer=$1 tool=$2; shift 2
probe=$("$@" 2>&1); rc=$?
if [ "$rc" -eq 77 ]; then echo "$probe"; exit 77; fi
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then
  echo "compute-sanitizer was not found at configure time: install the CUDA Toolkit's compute-sanitizer"
  echo "and reconfigure (it lives next to nvcc, e.g. /usr/local/cuda/bin)."
  exit 1
fi
out=$("$sanitizer" --tool "$tool" --kernel-name-exclude kns=reference_kernel --error-exitcode 99 "$@" 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: compute-sanitizer --tool $tool exited with $rc"; exit 1; }
# memcheck and synccheck end with "ERROR SUMMARY: 0 errors", racecheck with "RACECHECK SUMMARY: 0 hazards".
printf '%s' "$out" | grep -Eq "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" ||
  { echo "FAIL: the sanitizer's summary does not report 0 errors / 0 hazards"; exit 1; }
