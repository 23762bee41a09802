#!/usr/bin/env bash
# expect_broken.sh STEP_BINARY --break NAME ARGS...
# A contract switch must make the step fail visibly: verification fails (exit 1) or the watchdog stops a
# wait that would never complete (exit 3 with "deadlock:"). Passing (0), any other error, or a hang (the
# CTest TIMEOUT) fails this test. Skips (77) without a supported GPU, or when the switch belongs to the
# other architecture's kernel (the binary then exits 2 and says which kernel it needs).
set -u
out=$("$@" 2>&1); rc=$?
echo "$out"
echo "exit code: $rc"
case $rc in
  1) printf '%s' "$out" | grep -q " FAIL" && { echo "ok: verification caught it"; exit 0; } ;;
  3) printf '%s' "$out" | grep -q "deadlock:" && { echo "ok: the watchdog stopped it"; exit 0; } ;;
  77) exit 77 ;;
  2) printf '%s' "$out" | grep -q "kernel; this GPU runs the" && { echo "skip: not this GPU's kernel"; exit 77; } ;;
  0) echo "FAIL: the broken variant passed verification"; exit 1 ;;
esac
echo "FAIL: unexpected outcome"
exit 1
