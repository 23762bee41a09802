#!/usr/bin/env bash
# expect_exit.sh [--gpu] EXPECTED_RC EXPECTED_TEXT COMMAND...
# Runs COMMAND and fails unless it exits with EXPECTED_RC and its output contains EXPECTED_TEXT.
# --gpu: the check needs a GPU; exit 77 (skip) when COMMAND reports that none is usable.
# Special case for "runs or explains" tests (EXPECTED_RC 0): exit 77 is accepted too, but only with
# exactly one output line that says SKIP and why (a machine without a supported GPU).
set -u
gpu=0
if [ "$1" = --gpu ]; then gpu=1; shift; fi
want_rc=$1 want_text=$2; shift 2
out=$("$@" 2>&1); rc=$?
echo "$out"
echo "exit code: $rc"
if [ "$gpu" -eq 1 ] && [ "$rc" -eq 77 ]; then exit 77; fi
if [ "$want_rc" -eq 0 ] && [ "$rc" -eq 77 ]; then
  lines=$(printf '%s\n' "$out" | wc -l)
  if [ "$lines" -eq 1 ] && printf '%s' "$out" | grep -q " SKIP: "; then exit 0; fi
  echo "FAIL: exit 77 must come with exactly one line '<step> SKIP: <reason>'"; exit 1
fi
[ "$rc" -eq "$want_rc" ] || { echo "FAIL: expected exit code $want_rc"; exit 1; }
if [ "$want_rc" -eq 2 ]; then
  lines=$(printf '%s\n' "$out" | wc -l)
  [ "$lines" -eq 1 ] || { echo "FAIL: a usage error must be reported on exactly one line"; exit 1; }
fi
printf '%s' "$out" | grep -qF -- "$want_text" || { echo "FAIL: output lacks '$want_text'"; exit 1; }
exit 0
