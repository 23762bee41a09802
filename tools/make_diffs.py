#!/usr/bin/env python3
"""Regenerate every step's from_previous.diff: the unified diff of both kernels against the previous step.

    tools/make_diffs.py            rewrite step*/from_previous.diff (steps 2 to 6 that exist)
    tools/make_diffs.py --check    exit 1, naming the stale files, if a committed diff is out of date

The diff covers hgemm_sm100.cuh and hgemm_sm90.cuh only (the kernels are the lesson; main.cu is a few
lines of set-up). Three lines of context, paths relative to the repository root.
"""
import difflib
import pathlib
import sys

STEPS = ["step1_single_tile", "step2_kloop", "step3_grid", "step4_tma", "step5_pipeline", "step6_persistent"]
KERNELS = ["hgemm_sm100.cuh", "hgemm_sm90.cuh"]
ROOT = pathlib.Path(__file__).resolve().parent.parent


def step_diff(prev: str, step: str) -> str:
    out = []
    for name in KERNELS:
        a = (ROOT / prev / name).read_text().splitlines()
        b = (ROOT / step / name).read_text().splitlines()
        out.extend(difflib.unified_diff(a, b, f"{prev}/{name}", f"{step}/{name}", lineterm="", n=3))
    return "\n".join(out) + "\n" if out else ""


def main() -> int:
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print(__doc__)
        return 2
    stale = []
    for prev, step in zip(STEPS, STEPS[1:]):
        if not (ROOT / step).is_dir():
            continue
        path = ROOT / step / "from_previous.diff"
        want = step_diff(prev, step)
        have = path.read_text() if path.exists() else None
        if have == want:
            continue
        if check:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(want)
            print(f"wrote {path.relative_to(ROOT)} ({want.count(chr(10))} lines)")
    if stale:
        print("stale or missing: " + ", ".join(stale) + " - run tools/make_diffs.py and commit the result")
        return 1
    if check:
        print("every from_previous.diff is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
