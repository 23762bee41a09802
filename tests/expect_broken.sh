#!/usr/bin/env bash
# expect_broken.sh [--observe] STEP_BINARY --break NAME ARGS...
# A contract switch must make the step fail visibly: verification fails (exit 1), the watchdog stops a
# wait that would never complete (exit 3 with "deadlock:"), or the GPU faults (exit 3, CUDA error).
# Passing (0), any other outcome, or a hang (the CTest TIMEOUT) fails this test.
# --observe: for switches the H200 is known to tolerate (see the step READMEs): only require that the run
# ends (0, 1 or 3; never a hang or another error), and print what happened.
# Skips (77) without a supported GPU, or when the switch belongs to the other architecture's kernel (the
# binary then exits 2 and says which kernel it needs).
set -u
observe=0
if [ "$1" = --observe ]; then observe=1; shift; fi
out=$("$@" 2>&1); rc=$?
echo "$out"
echo "exit code: $rc"
if [ "$observe" -eq 1 ] && [ "$rc" -eq 0 ]; then echo "observed: the broken variant still passed on this GPU"; exit 0; fi
case $rc in
  1) printf '%s' "$out" | grep -q " FAIL" && { echo "ok: verification caught it"; exit 0; } ;;
  3) printf '%s' "$out" | grep -q "deadlock:" && { echo "ok: the watchdog stopped it"; exit 0; }
     printf '%s' "$out" | grep -q "CUDA error" && { echo "ok: the GPU faulted"; exit 0; } ;;
  77) exit 77 ;;
  2) printf '%s' "$out" | grep -q "kernel; this GPU runs the" && { echo "skip: not this GPU's kernel"; exit 77; } ;;
  0) echo "FAIL: the broken variant passed verification"; exit 1 ;;
esac
echo "FAIL: unexpected outcome"
exit 1
