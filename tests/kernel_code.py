#!/usr/bin/env python3
"""Checks of the step kernels' PTX and machine code (SASS), each kernel found under its own namespace.

  kernel_code.py ptx FILE.ptx STEP ARCH [--tmem-cols N] --require INSTR... --forbid INSTR...
      The PTX of STEP's kernel headers compiled for ARCH (sm_90a or sm_100a): the entries of STEP's kernel for that
      architecture (stepN::sm90::hgemm_kernel<...> or stepN::sm100::...) exist and hold every required
      instruction; no forbidden instruction occurs anywhere in the file. --tmem-cols N: every tcgen05.alloc
      and tcgen05.dealloc of the kernel asks for exactly N columns (the immediate moved into its operand).
  kernel_code.py sass CUOBJDUMP BINARY STEP ARCH=INSTR...
      The machine code of STEP's binary: for each ARCH=INSTR (e.g. sm_90a=HGMMA), STEP's kernel for that
      architecture exists in the ARCH section and contains the SASS instruction.
  kernel_code.py sass-break CUOBJDUMP BINARY STEP GEMM_HPP RULE ENUMERATOR
      A contract switch really removes its contract from the Hopper machine code, so that a switch the H200
      tolerates is tolerated by the hardware and not put back by the compiler. Compares the sm_90a SASS of
      STEP's real kernel (hg::Break::kNone) with the broken instance (hg::Break::ENUMERATOR, by its value in
      the enum of GEMM_HPP, as in the mangled names), at ring depth 2 (every step with a ring has it):
        bar-sync            the real kernel has a BAR.SYNC (__syncthreads), the broken one none
        wgmma-wait-in-loop  the real kernel has a WARPGROUP.DEPBAR (wgmma.wait_group) between its last HGMMA
                            and the K-loop's backward branch, the broken one not
        bulk-wait           the real kernel waits for its TMA store (DEPBAR.LE SB0 after UTMASTG), the
                            broken one not
  kernel_code.py spills CUOBJDUMP BINARY STEP [--allow 'ARCH: REASON'...]
      No real kernel of STEP (stepN::sm90::hgemm_kernel<..., hg::Break::kNone> and its sm100 twin, at every
      ring depth) uses local memory: its STACK and LOCAL in `cuobjdump -res-usage` are 0. ptxas puts the registers
      it spills in the stack frame (STACK is nonzero exactly when `ptxas -v` reports spill stores), and an
      array it cannot keep in registers too. The break variants are not checked: a broken kernel only has to
      break its contract, and some spill. --allow lets ARCH's (sm_90a, sm_100a) real kernels use local
      memory, for the reason given; an entry whose architecture uses none fails, so that it is removed.
STEP is the step number (1, 2, ...). Exit 0 when every check holds, 1 naming each failure.
"""
import re
import subprocess
import sys


def kernel_prefix(step, ns):
    """Itanium-mangled start of stepN::<ns>::hgemm_kernel<...>."""
    a, b = f"step{step}", ns
    return f"_ZN{len(a)}{a}{len(b)}{b}12hgemm_kernelI"


def template_args(name, prefix):
    """(pipe_depth or None, break number) of a mangled hgemm_kernel instance. The pipe depth is the last integer
    before the Break (a step with a menu of tiles has the tile's width before it: <BN, PIPE_DEPTH, BREAK>)."""
    m = re.match(re.escape(prefix) + r"((?:Li\d+E)*)LN2hg5BreakE(\d+)E", name)
    if not m:
        return None
    ints = re.findall(r"Li(\d+)E", m.group(1))
    return (int(ints[-1]) if ints else None, int(m.group(2)))


def arch_namespace(arch):
    return {"sm_90a": "sm90", "sm_100a": "sm100"}[arch]


def ptx_check(args):
    path, step, arch = args[0], args[1], args[2]
    mode, want, forbid, tmem_cols = None, [], [], None
    for word in args[3:]:
        if mode == "--tmem-cols":
            tmem_cols, mode = int(word), None
        elif word in ("--require", "--forbid", "--tmem-cols"):
            mode = word
        elif mode == "--require":
            want.append(word)
        else:
            forbid.append(word)
    text = open(path).read()
    prefix = kernel_prefix(step, arch_namespace(arch))
    # Each kernel: ".entry NAME(" up to the next ".entry" (or the end of the file).
    bodies = [m for m in re.finditer(r"\.entry\s+(\S+?)\(", text)]
    mine = []
    for i, m in enumerate(bodies):
        end = bodies[i + 1].start() if i + 1 < len(bodies) else len(text)
        if m.group(1).startswith(prefix):
            mine.append(text[m.start():end])
    status = 0
    if not mine:
        print(f"MISSING: no kernel step{step}::{arch_namespace(arch)}::hgemm_kernel (mangled {prefix}...) in {path}")
        return 1
    print(f"ok: {len(mine)} instance(s) of step{step}::{arch_namespace(arch)}::hgemm_kernel")
    code = "".join(mine)
    for w in want:
        n = code.count(w)
        if n == 0:
            print(f"MISSING: '{w}' does not occur in step{step}::{arch_namespace(arch)}::hgemm_kernel")
            status = 1
        else:
            print(f"ok: require '{w}' ({n} occurrences in the kernel)")
    if tmem_cols is not None:
        status |= check_tmem_cols(mine, tmem_cols)
    for w in forbid:
        n = text.count(w)
        if n:
            print(f"FORBIDDEN: '{w}' occurs {n} times in {path} (a later step, or the other architecture, has it)")
            status = 1
        else:
            print(f"ok: forbid '{w}'")
    return status


def check_tmem_cols(bodies, want):
    """Every tcgen05.alloc / dealloc asks for `want` columns: its last operand is a register that a
    `mov.b32 %rN, <immediate>;` earlier in the same kernel sets."""
    status, seen = 0, 0
    for body in bodies:
        lines = body.splitlines()
        for i, line in enumerate(lines):
            m = re.search(r"\btcgen05\.(alloc|dealloc)\S*\s.*?(%r\d+)\s*;", line)
            if not m:
                continue
            seen += 1
            reg, value = m.group(2), None
            for prev in reversed(lines[:i]):
                mv = re.match(r"\s*mov\.[bu]32\s+" + re.escape(reg) + r"\s*,\s*(\d+)\s*;", prev)
                if mv:
                    value = int(mv.group(1))
                    break
            if value != want:
                print(f"TMEM: tcgen05.{m.group(1)} asks for {value} columns, want {want}: {line.strip()}")
                status = 1
    if seen == 0:
        print("TMEM: no tcgen05.alloc or tcgen05.dealloc in the kernel")
        return 1
    if status == 0:
        print(f"ok: all {seen} tcgen05.alloc/dealloc ask for {want} TMEM columns")
    return status


def sass_functions(cuobjdump, binary):
    """{arch: {mangled function name: [(address, instruction)]}}."""
    run = subprocess.run([cuobjdump, "--dump-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: {cuobjdump} --dump-sass {binary} failed:\n{run.stderr}")
    out, arch, current = {}, None, None
    for line in run.stdout.splitlines():
        m = re.match(r"\s*arch = (\S+)", line)
        if m:
            arch = m.group(1)
            out.setdefault(arch, {})
            continue
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = out.setdefault(arch, {}).setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;", line)
        if m and current is not None:
            current.append((int(m.group(1), 16), m.group(2)))
    return out


def sass_check(args):
    cuobjdump, binary, step = args[0], args[1], args[2]
    funcs = sass_functions(cuobjdump, binary)
    status = 0
    for pair in args[3:]:
        arch, instr = pair.split("=", 1)
        prefix = kernel_prefix(step, arch_namespace(arch))
        mine = {n: c for n, c in funcs.get(arch, {}).items() if n.startswith(prefix)}
        if not mine:
            print(f"MISSING: no step{step}::{arch_namespace(arch)}::hgemm_kernel in the {arch} code")
            status = 1
            continue
        count = sum(instr in ins for code in mine.values() for _, ins in code)
        if count:
            print(f"ok: {arch} step{step}::{arch_namespace(arch)}::hgemm_kernel ({len(mine)} instances) has {count} {instr}")
        else:
            print(f"MISSING: no {instr} in the {arch} code of step{step}::{arch_namespace(arch)}::hgemm_kernel")
            status = 1
    return status


def break_number(header, enumerator):
    """The value of `enumerator` in `enum class Break` (each is written `kName = N,`: the values are explicit)."""
    text = open(header).read()
    body = re.search(r"enum class Break[^{]*\{(.*?)\};", text, re.S)
    if not body:
        sys.exit(f"FAIL: no 'enum class Break' in {header}")
    values = dict(re.findall(r"^\s*(k\w+)\s*=\s*(\d+)\s*,", body.group(1), re.M))
    if enumerator not in values:
        sys.exit(f"FAIL: {enumerator} is not an enumerator of hg::Break with an explicit value in {header}")
    return int(values[enumerator])


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


def sass_break_check(args):
    cuobjdump, binary, step, header, rule, enumerator = args
    number = break_number(header, enumerator)
    prefix = kernel_prefix(step, "sm90")
    kernels = {}
    for name, code in sass_functions(cuobjdump, binary).get("sm_90a", {}).items():
        t = template_args(name, prefix)
        if t is not None and t[0] in (None, 2):  # ring depth 2, which every step with a ring offers
            kernels[t[1]] = code
    for n, what in ((0, "kNone"), (number, enumerator)):
        if not kernels.get(n):
            sys.exit(f"FAIL: no sm_90a code for step{step}::sm90::hgemm_kernel<hg::Break::{what}> in {binary}")
    real, broken = RULES[rule](kernels[0]), RULES[rule](kernels[number])
    print(f"{rule}: real kernel {real}, --break {enumerator} {broken}")
    if real < 1 or broken != 0:
        print("FAIL: expected at least one in the real kernel and none in the broken one")
        return 1
    print("ok: the switch removes the contract from the machine code")
    return 0


def resource_usage(text):
    """[(arch, mangled function name, {field: bytes})] of `cuobjdump -res-usage` output: one row per function of
    every ELF in the binary ("arch = sm_90a" opens each; "Function NAME:" then "REG:168 STACK:0 ...")."""
    rows, arch, name = [], None, None
    for line in text.splitlines():
        m = re.match(r"\s*arch = (\S+)", line)
        if m:
            arch, name = m.group(1), None
            continue
        m = re.match(r"\s*Function (\S+?):?\s*$", line)
        if m:
            name = m.group(1)
            continue
        fields = dict(re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line))
        if name is not None and "STACK" in fields:
            rows.append((arch, name, {k: int(v) for k, v in fields.items()}))
            name = None
    return rows


def real_kernel_name(step, ns, depth):
    """stepN::ns::hgemm_kernel<depth, hg::Break::kNone>, as the source names it (no depth without a ring)."""
    depth_arg = "" if depth is None else f"{depth}, "
    return f"step{step}::{ns}::hgemm_kernel<{depth_arg}hg::Break::kNone>"


def spill_report(rows, step, allowed):
    """(status, lines): every real kernel of STEP in `rows` (resource_usage) against the allow-list
    {arch: reason}."""
    lines, status, real, spilling = [], 0, {}, {}
    broken_local = 0
    for arch, name, fields in rows:
        if arch not in ("sm_90a", "sm_100a"):
            continue
        ns = arch_namespace(arch)
        t = template_args(name, kernel_prefix(step, ns))
        if t is None:
            continue
        local = fields.get("STACK", 0) + fields.get("LOCAL", 0)
        if t[1] != 0:
            broken_local += local > 0
            continue
        real[arch] = real.get(arch, 0) + 1
        if local:
            spilling.setdefault(arch, []).append(
                f"{arch} {real_kernel_name(step, ns, t[0])}: a stack frame of {fields.get('STACK', 0)} bytes and "
                f"{fields.get('LOCAL', 0)} bytes of local memory per thread (spilled registers, or an array not "
                "kept in registers)")
    if not real:
        return 1, [f"MISSING: no sm_90a or sm_100a code of step{step}'s hgemm_kernel<..., hg::Break::kNone> in the "
                   "resource usage (was the binary built for sm_90a or sm_100a?)"]
    for arch in sorted(real):
        if arch in spilling and arch in allowed:
            lines += [f"allowed: {s}" for s in spilling[arch]]
            lines.append(f"allowed: {arch} may spill: {allowed[arch]}")
        elif arch in spilling:
            status = 1
            lines += [f"SPILLS: {s}" for s in spilling[arch]]
            lines.append(f"SPILLS: step{step}'s real {arch} kernel must keep everything in registers: find what "
                         f"spills (nvcc -arch={arch} -Xptxas -v on the kernel header; STL and LDL in cuobjdump "
                         f"-sass) and fix it, or allow it with an entry '{arch}: <reason>' in "
                         "HG_SPILLS_ALLOWED_<step>, in <step>/tests.cmake")
        else:
            lines.append(f"ok: {arch}: {real[arch]} real instance(s) of step{step}::{arch_namespace(arch)}"
                         "::hgemm_kernel, no local memory")
            if arch in allowed:
                status = 1
                lines.append(f"STALE: HG_SPILLS_ALLOWED_<step> allows {arch} to spill, but it does not: remove "
                             f"the entry '{arch}: {allowed[arch]}'")
    for arch in sorted(set(allowed) - set(real)):
        status = 1
        lines.append(f"STALE: HG_SPILLS_ALLOWED_<step> names {arch}, which has no real kernel here: remove it")
    if broken_local:
        lines.append(f"not checked: {broken_local} break variant(s) use local memory (a broken kernel may spill)")
    return status, lines


def parse_allowed(entries):
    """{arch: reason} of 'ARCH: REASON' entries; exits 2 naming a malformed one."""
    allowed = {}
    for entry in entries:
        arch, _, reason = entry.partition(":")
        arch, reason = arch.strip(), reason.strip()
        if arch not in ("sm_90a", "sm_100a") or not reason:
            print(f"FAIL: allow-list entry '{entry}' must be 'sm_90a: REASON' or 'sm_100a: REASON', with the "
                  "reason the real kernel may spill", file=sys.stderr)
            sys.exit(2)
        allowed[arch] = reason
    return allowed


def spills_check(args):
    cuobjdump, binary, step = args[0], args[1], args[2]
    if args[3:] and args[3] != "--allow":
        sys.exit(__doc__)
    allowed = parse_allowed(args[4:])
    run = subprocess.run([cuobjdump, "-res-usage", binary], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: {cuobjdump} -res-usage {binary} failed:\n{run.stderr}")
    status, lines = spill_report(resource_usage(run.stdout), step, allowed)
    print("\n".join(lines))
    return status


def main():
    modes = {"ptx": (ptx_check, 4), "sass": (sass_check, 4), "sass-break": (sass_break_check, 6),
             "spills": (spills_check, 3)}
    if len(sys.argv) < 2 or sys.argv[1] not in modes or len(sys.argv) - 2 < modes[sys.argv[1]][1]:
        sys.exit(__doc__)
    fn, _ = modes[sys.argv[1]]
    if sys.argv[1] == "sass-break" and (len(sys.argv) != 8 or sys.argv[6] not in RULES):
        sys.exit(__doc__)
    return fn(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
