#!/usr/bin/env bash
# check_ptx.sh FILE.ptx --require INSTR... --forbid INSTR...
# Fails, naming each culprit, when a required PTX instruction is missing or a forbidden one is present.
set -u
ptx=$1; shift
[ -s "$ptx" ] || { echo "PTX file '$ptx' is missing or empty: build the tests first"; exit 1; }
mode=require status=0
for word in "$@"; do
  case $word in
    --require) mode=require; continue ;;
    --forbid) mode=forbid; continue ;;
  esac
  count=$(grep -cF -- "$word" "$ptx")
  if [ "$mode" = require ] && [ "$count" -eq 0 ]; then
    echo "MISSING: '$word' does not occur in $ptx"; status=1
  elif [ "$mode" = forbid ] && [ "$count" -ne 0 ]; then
    echo "FORBIDDEN: '$word' occurs $count times in $ptx (a later step introduces it)"; status=1
  else
    echo "ok: $mode '$word' ($count occurrences)"
  fi
done
exit $status
