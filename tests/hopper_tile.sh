#!/usr/bin/env bash
# hopper_tile.sh COMMAND...
# Runs COMMAND, a step run with a --tile that only the Hopper kernel's menu offers (step 11's short tiles), and
# passes its exit code on. On a GPU that runs the Blackwell kernel the step refuses that tile before any launch
# (exit 2, naming the Blackwell menu; under run_sanitizer.sh the refusal shows as its failure): the test is then
# skipped (77), not failed.
set -u
out=$("$@" 2>&1); rc=$?
echo "$out"
echo "exit code: $rc"
if [ "$rc" -ne 0 ] && printf '%s' "$out" | grep -q "is not on the Blackwell kernel's menu"; then
  echo "skip: a tile of the Hopper menu only"; exit 77
fi
exit "$rc"
