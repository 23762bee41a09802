#!/usr/bin/env bash
# expect_lines.sh COUNT TEXT BINARY ARGS...: the binary exits 0 and prints exactly COUNT lines containing TEXT
# (one summary line per variant it ran). Passes its skip code (77) through.
set -u
count=$1 text=$2
shift 2
out=$("$@" 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -ne 0 ] && { echo "FAIL: exit code $rc"; exit 1; }
got=$(printf '%s\n' "$out" | grep -c -- "$text")
[ "$got" -eq "$count" ] || { echo "FAIL: $got lines with '$text', expected $count"; exit 1; }
echo "ok: $count lines with '$text'"
