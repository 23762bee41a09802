#!/usr/bin/env bash
# check_sass.sh CUOBJDUMP BINARY [ARCH=INSTR]...
# Disassembles BINARY and fails unless, for every ARCH=INSTR pair, the machine code of that architecture
# (e.g. sm_90a=HGMMA, sm_100a=UTCHMMA) contains the SASS instruction. Shows that the kernels really use
# the tensor-core instructions of each architecture, not a slower fallback.
set -u
cuobjdump=$1 binary=$2; shift 2
sass=$("$cuobjdump" --dump-sass "$binary" 2>&1) || { echo "$sass"; echo "FAIL: cuobjdump failed"; exit 1; }
status=0
for pair in "$@"; do
  arch=${pair%%=*} instr=${pair#*=}
  # Keep only the sections of this architecture: each starts with a line "arch = sm_XX".
  count=$(printf '%s\n' "$sass" | awk -v a="$arch" '/^arch = /{on = ($3 == a)} on' | grep -c "$instr")
  if [ "$count" -gt 0 ]; then echo "ok: $arch code has $count $instr"; else echo "MISSING: no $instr in $arch code"; status=1; fi
done
exit $status
