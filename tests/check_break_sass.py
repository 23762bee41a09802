#!/usr/bin/env python3
"""check_break_sass.py CUOBJDUMP BINARY BREAKS_HPP RULE ENUMERATOR

Shows that a contract switch really removes its contract from the Hopper machine code, so that a switch
the H200 tolerates is tolerated by the hardware and not put back by the compiler. Compares the sm_90a SASS
of the real kernel (hg::Break::kNone) with that of the broken instance (hg::Break::ENUMERATOR, numbered
by its position in the enum of BREAKS_HPP, as in the mangled kernel names):

  bar-sync            the real kernel has a BAR.SYNC (__syncthreads), the broken one none
  wgmma-wait-in-loop  the real kernel has a WARPGROUP.DEPBAR (wgmma.wait_group) between its last HGMMA and
                      the K-loop's backward branch, the broken one not
  bulk-wait           the real kernel waits for its TMA store (DEPBAR.LE SB0 after UTMASTG), the broken one not
"""
import re
import subprocess
import sys


def break_number(header, enumerator):
    """Position of `enumerator` in `enum class Break` (kNone = 0, then one per line)."""
    text = open(header).read()
    body = re.search(r"enum class Break[^{]*\{(.*?)\};", text, re.S)
    if not body:
        sys.exit(f"FAIL: no 'enum class Break' in {header}")
    names = re.findall(r"^\s*(k\w+)", body.group(1), re.M)
    if enumerator not in names:
        sys.exit(f"FAIL: {enumerator} is not an enumerator of hg::Break in {header}")
    return names.index(enumerator)


def sm90_kernels(sass):
    """{break number: [(address, instruction)]} for the sm90 hgemm_kernel instances of the sm_90a code."""
    kernels, current, arch = {}, None, None
    for line in sass.splitlines():
        m = re.match(r"\s*arch = (\S+)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.search(r"Function : _ZN4sm9012hgemm_kernelILN2hg5BreakE(\d+)EE", line)
        if m:
            current = int(m.group(1)) if arch == "sm_90a" else None
            if current is not None:
                kernels[current] = []
            continue
        if "Function :" in line:
            current = None
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;", line)
        if m and current is not None:
            kernels[current].append((int(m.group(1), 16), m.group(2)))
    return kernels


def count_bar_sync(code):
    return sum("BAR.SYNC" in ins for _, ins in code)


def count_wait_in_loop(code):
    """WARPGROUP.DEPBARs between the last HGMMA and the first backward branch after it."""
    last = max((i for i, (_, ins) in enumerate(code) if "HGMMA" in ins), default=None)
    if last is None:
        sys.exit("FAIL: no HGMMA in the kernel")
    waits = 0
    for addr, ins in code[last + 1:]:
        m = re.search(r"\bBRA(?:\.\S+)?\s+(0x[0-9a-f]+)", ins)
        if m and int(m.group(1), 16) < addr:
            return waits
        waits += "WARPGROUP.DEPBAR" in ins
    sys.exit("FAIL: no backward branch after the last HGMMA (no K-loop found)")


def count_bulk_wait(code):
    """DEPBAR.LE SB0 (cp.async.bulk.wait_group) after the first UTMASTG (TMA store)."""
    first = next((i for i, (_, ins) in enumerate(code) if "UTMASTG" in ins), None)
    if first is None:
        sys.exit("FAIL: no UTMASTG (TMA store) in the kernel")
    return sum(ins.startswith("DEPBAR.LE SB0") for _, ins in code[first:])


RULES = {"bar-sync": count_bar_sync, "wgmma-wait-in-loop": count_wait_in_loop, "bulk-wait": count_bulk_wait}


def main():
    if len(sys.argv) != 6 or sys.argv[4] not in RULES:
        sys.exit(__doc__)
    cuobjdump, binary, header, rule, enumerator = sys.argv[1:]
    number = break_number(header, enumerator)
    run = subprocess.run([cuobjdump, "--dump-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: {cuobjdump} --dump-sass {binary} failed:\n{run.stderr}")
    kernels = sm90_kernels(run.stdout)
    for n, what in ((0, "kNone"), (number, enumerator)):
        if not kernels.get(n):
            sys.exit(f"FAIL: no sm_90a code for hgemm_kernel<hg::Break::{what}> in {binary}")
    real, broken = RULES[rule](kernels[0]), RULES[rule](kernels[number])
    print(f"{rule}: real kernel {real}, --break {enumerator} {broken}")
    if real < 1 or broken != 0:
        sys.exit("FAIL: expected at least one in the real kernel and none in the broken one")
    print("ok: the switch removes the contract from the machine code")


if __name__ == "__main__":
    main()
