#!/usr/bin/env python3
"""check_kernel_includes.py NVCC ROOT HEADER

Preprocesses one step kernel header alone (a translation unit that includes nothing else, for the header's own
architecture) and reads the compiler's dependency list (nvcc -M; a fraction of a second, where a compile takes
seconds). It fails if the header's includes do not resolve alone or if it pulls in anything but what a kernel
needs: of the project's headers only those of common/kernel/ (the path is the rule); nothing of the command
line, the verifier, the runner, the harness, the benchmark or the tests, and no cuBLAS header. HEADER is relative to ROOT, e.g. step5_pipeline/hgemm_sm90.cuh.
That the header also compiles by itself is checked where it is compiled anyway: the PTX objects of
tests/CMakeLists.txt compile each step's kernel headers alone, each header first in one of them.
"""
import os
import re
import subprocess
import sys
import tempfile

KERNEL_ROOM = "common/kernel"  # the only project folder a kernel header may include from
FORBIDDEN_SYSTEM = re.compile(r"(^|/)(cublas[^/]*\.h)$")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nvcc, root, header = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
    arch = "100a" if header.endswith("_sm100.cuh") else "90a"
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "alone.cu")
        with open(tu, "w") as f:
            f.write(f'#include "{header}"\n')
        base = [nvcc, "-std=c++17", "-I", root, f"-gencode=arch=compute_{arch},code=sm_{arch}"]
        dep = subprocess.run(base + ["-M", tu], capture_output=True, text=True)
        if dep.returncode != 0:
            print(dep.stdout + dep.stderr)
            sys.exit(f"FAIL: {header} does not preprocess alone")
        tokens = dep.stdout.replace("\\\n", " ").split()
        files = [os.path.realpath(t) for t in tokens if not t.endswith(":") and not t.endswith(".o")]
    bad = []
    project = []
    for path in files:
        if path == os.path.realpath(os.path.join(root, header)) or path == os.path.realpath(tu):
            continue
        if path.startswith(root + os.sep):
            rel = os.path.relpath(path, root)
            project.append(rel)
            folder = os.path.dirname(rel)
            if folder != KERNEL_ROOM:
                bad.append(rel)
        elif FORBIDDEN_SYSTEM.search(path):
            bad.append(path)
    print(f"{header} alone, for sm_{arch}, includes: {', '.join(sorted(set(project)))}")
    if bad:
        for b in sorted(set(bad)):
            print(f"FAIL: {header} pulls in {b}, which a kernel does not need (harness, tests or cuBLAS)")
        return 1
    print("ok: nothing of the command line, verifier, runner, harness or cuBLAS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
