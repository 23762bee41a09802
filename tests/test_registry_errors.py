#!/usr/bin/env python3
"""A steps.json entry that asks for what a step cannot give fails the build and names the entry.

Each case copies the checkout's tracked files into a scratch folder, plants one fault, configures it (no tests, no
break variants, Ninja) and, where the fault shows only when compiling, builds the one object that shows it:
  - a switch the step's kernel header never tests      -> configure fails naming the entry and the header;
  - a step in the registry without its lesson page       -> configure fails naming docs/<step>.md;
  - a namespace the step's kernel headers do not open     -> configure fails naming the entry and the header;
  - a ring depth whose shared memory does not fit         -> the generated dispatch's static_assert names the
                                                            entry and the depth (compiling that one TU).
The unplanted copy configures, and its generated dispatch compiles without the break variants (the default
preset's build), so each failure is the planted fault's. Each case is its own CTest test (they run in parallel).

usage: test_registry_errors.py SOURCE_DIR CMAKE NVCC CASE   (CASE: clean, switch, page, namespace or depth)
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

STEP = "step10_stream_k"


def copy_checkout(src, dst):
    """The checkout's files, without its dot folders (.git) and build trees (build*, out: .gitignore's). Not
    through git: a copied checkout may have no .git, or a stale one."""
    def skip(folder, names):
        if pathlib.Path(folder) != src:
            return []
        return [n for n in names if n.startswith((".", "build")) or n == "out"]
    shutil.copytree(src, dst, ignore=skip)


def edit_entry(tree, **changes):
    path = tree / "steps.json"
    registry = json.loads(path.read_text())
    entry = next(e for e in registry["steps"] if e["name"] == STEP)
    entry.update(changes)
    path.write_text(json.dumps(registry, indent=1))


def configure(tree, cmake, nvcc):
    return subprocess.run([cmake, "-S", str(tree), "-B", str(tree / "build"), "-G", "Ninja",
                           f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DHG_BUILD_TESTS=OFF", "-DHG_BREAK_VARIANTS=OFF",
                           "-DCMAKE_CUDA_ARCHITECTURES=90a-real;100a-real"],
                          capture_output=True, text=True)


def expect(result, *needles, what):
    text = " ".join((result.stdout + result.stderr).split())  # CMake wraps long messages
    missing = [n for n in needles if n not in text]
    if result.returncode == 0 or missing:
        print(f"FAIL: {what}: exit {result.returncode}, missing {missing}\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
        return False
    print(f"ok: {what}")
    return True


def case_clean(tree, cmake, nvcc):
    clean = configure(tree, cmake, nvcc)
    if clean.returncode != 0:
        print(f"FAIL: the unplanted copy does not configure:\n{clean.stdout[-3000:]}{clean.stderr[-3000:]}")
        return False
    print("ok: the unplanted copy configures")
    # ...and, without the break variants (the default preset), its generated dispatch compiles. One architecture's
    # object shows it: without the switches both architectures' dispatch is the same text (tools/cmake/steps.cmake).
    obj = "CMakeFiles/step1_single_tile_spec.dir/steps/step1_single_tile/sm90.cu.o"
    built = subprocess.run([cmake, "--build", str(tree / "build"), "--target", obj], capture_output=True, text=True)
    if built.returncode != 0:
        print(f"FAIL: step 1's dispatch without break variants does not compile:\n{built.stdout[-3000:]}")
        return False
    print("ok: the dispatch compiles without the break variants")
    return True


def case_switch(tree, cmake, nvcc):
    registry = json.loads((tree / "steps.json").read_text())
    entry = next(e for e in registry["steps"] if e["name"] == STEP)
    edit_entry(tree, breaks=entry["breaks"] + ["kNoCtaSync"])  # step 1's switch: no later kernel tests it
    return expect(configure(tree, cmake, nvcc), f"steps.json: {STEP}'s breaks name kNoCtaSync",
                  f"{STEP}/hgemm_sm90.cuh never tests hg::Break::kNoCtaSync", what="a switch the kernel lacks")


def case_page(tree, cmake, nvcc):
    (tree / "docs" / f"{STEP}.md").unlink()
    return expect(configure(tree, cmake, nvcc), f"docs/{STEP}.md does not exist", what="a step without its page")


def case_namespace(tree, cmake, nvcc):
    edit_entry(tree, namespace="step11")  # a copied folder whose kernels still open step10::
    return expect(configure(tree, cmake, nvcc), f"steps.json gives {STEP} the namespace step11",
                  f"{STEP}/hgemm_sm90.cuh does not open namespace step11::sm90", what="a namespace the kernels lack")


def case_depth(tree, cmake, nvcc):
    registry = json.loads((tree / "steps.json").read_text())
    entry = next(e for e in registry["steps"] if e["name"] == STEP)
    edit_entry(tree, depths=entry["depths"] + [5])
    configured = configure(tree, cmake, nvcc)
    if configured.returncode != 0:
        print(f"FAIL: depth 5 should configure and fail to compile:\n{configured.stderr[-3000:]}")
        return False
    obj = f"CMakeFiles/{STEP}_spec.dir/steps/{STEP}/sm90.cu.o"
    built = subprocess.run([cmake, "--build", str(tree / "build"), "--target", obj], capture_output=True, text=True)
    return expect(built, f"steps.json: {STEP} offers --pipe-depth 5", "exceeds the 227 KiB a CTA may use",
                  what="a depth whose shared memory does not fit")


CASES = {"clean": case_clean, "switch": case_switch, "page": case_page, "namespace": case_namespace,
         "depth": case_depth}


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in CASES:
        print(f"usage: {sys.argv[0]} SOURCE_DIR CMAKE NVCC CASE (CASE: {', '.join(CASES)})", file=sys.stderr)
        return 2
    src, cmake, nvcc, case = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    with tempfile.TemporaryDirectory(prefix=f"hg_registry_{case}_") as tmp:
        tree = pathlib.Path(tmp) / case
        copy_checkout(src, tree)
        return 0 if CASES[case](tree, cmake, nvcc) else 1


if __name__ == "__main__":
    sys.exit(main())
