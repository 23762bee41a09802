#!/usr/bin/env bash
# Runs every step's verify binary with its defaults and prints one line per step (PASS, FAIL or SKIP with
# the binary's own numbers), then a total. Used by the `verify` build target:
#   cmake --workflow --preset verify      (or: cmake --build build --target verify)
# Usage: tools/verify_steps.sh BUILD_DIR STEP...
# Exit status: 0 when no step failed (SKIP, e.g. no supported GPU, is not a failure here), 1 otherwise, 2 for bad usage.
set -u
if [ $# -lt 2 ]; then
  echo "usage: tools/verify_steps.sh BUILD_DIR STEP... (the verify target passes the registry's steps)" >&2; exit 2
fi
bin_dir=$1; shift
passed=0 failed=0 skipped=0
for step in "$@"; do
  out=$("$bin_dir/$step" 2>&1); rc=$?
  case $rc in
    0) passed=$((passed + 1)); echo "$out" ;;
    77) skipped=$((skipped + 1)); echo "$out" ;;
    1) failed=$((failed + 1)); echo "$out" ;;
    *) failed=$((failed + 1)); echo "$step ERROR (exit code $rc): $out" ;;
  esac
done
echo "verify: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
