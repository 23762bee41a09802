#!/usr/bin/env python3
"""check_step_texts.py [ROOT]: no text in tools/, common/ or a kernel banner names a range of steps or a count
of shapes.

    python3 tests/check_step_texts.py        (CTest: texts/no_step_ranges)

Such texts go stale when a step or a benchmark shape is added ("run steps 3 to 9" stayed after step 10 came,
"four shapes" after the fifth and sixth). Every line of the files under tools/ and common/ is read, comments
and strings alike, and the banner of each step kernel (the comment block that opens stepN_*/hgemm_sm*.cuh,
the steps taken from steps.json). The pages under docs/ tell the story across steps and are not read; nor is
any generated file (none lives in these folders). A text that needs the steps or the shapes names where they
are kept: "the registry's ladder steps" (steps.json), "default_bench_shapes()" (common/harness/bench.hpp), or
the steps' folders when it means exactly those steps. The patterns are checked against examples first.
Python standard library only.
"""
import json
import pathlib
import re
import sys

# A range of steps: "steps 3 to 9", "steps 6-8", "step 1 through 3", "from step 8 on", "up to step 7",
# "steps 5 and later". Not a pair or a list ("steps 7 and 8"), nor "Step 3 - 2D grid".
STEP_RANGE = re.compile(
    r"\bsteps?\s+\d+\s*(?:to|through|thru|-|\u2013|\u2014|\.\.\.?)\s*\d+\b"
    r"|\bfrom\s+step\s+\d+\s+on(?:wards?)?\b"
    r"|\bup\s+to\s+step\s+\d+\b"
    r"|\bsteps?\s+\d+\s+(?:and\s+(?:later|up|after|on)|onwards?)\b", re.I)
# A count of shapes: "four shapes", "6 shapes", "six default shapes", "both benchmark shapes". Not "one shape",
# nor "step 6 at most shapes".
COUNT = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both|several)"
ADJECTIVE = r"(?:default|benchmark|bench|ladder|standard|test|timed|profiled|other|more|different|distinct)"
SHAPE_COUNT = re.compile(r"(?<![Ss]tep )(?<![Ss]teps )\b" + COUNT + r"(?:\s+" + ADJECTIVE + r")?\s+shapes\b",
                         re.I)

RULES = [
    (STEP_RANGE, "names a range of steps",
     "say \"the registry's ladder steps\" (steps.json), or name the steps' folders if it means exactly those"),
    (SHAPE_COUNT, "names a count of shapes",
     "say \"default_bench_shapes()\" (common/harness/bench.hpp) or name the list that holds the shapes"),
]

EXAMPLES_CAUGHT = ["run steps 3 to 9 and cuBLAS", "steps 6-8", "Steps 1 to 3 compute", "from step 8 on, the pair",
                   "(128 up to step 7)", "steps 5 and later", "names four shapes", "at 6 shapes",
                   "the six default shapes", "both benchmark shapes"]
EXAMPLES_SPLIT = ["/// Steps\n/// 1 to 7 compute", "# four\n# shapes"]
EXAMPLES_PASSED = ["Step 3 - 2D grid, Hopper (sm_90a)", "slower than step 6 at most shapes", "at one shape",
                   "why steps 7 and 8 fall behind step 6", "in \"step 9 and 94.9%\" the 94.9 is measured",
                   "the shapes the steps accept", "step 8's rule"]


def self_check():
    """The patterns catch the examples they are for and pass the texts that only look alike."""
    errors = []
    for text in EXAMPLES_CAUGHT:
        if not any(rx.search(text) for rx, _, _ in RULES):
            errors.append(f"pattern misses {text!r}")
    for text in EXAMPLES_SPLIT:
        if not findings(list(enumerate(text.split("\n"), 1))):
            errors.append(f"pattern misses {text!r} across the line break")
    for text in EXAMPLES_PASSED:
        for rx, what, _ in RULES:
            if rx.search(text):
                errors.append(f"pattern flags {text!r} ({what})")
    return errors


def banner(path):
    """The opening comment block of a kernel header: its lines up to the first that is not a // comment."""
    lines = []
    for line in path.read_text(errors="replace").splitlines():
        if not line.startswith("//"):
            break
        lines.append(line)
    return lines


def texts(root):
    """(file, line number, text) of every line this check reads."""
    for folder in ("tools", "common", "torch"):
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            data = path.read_bytes()
            if b"\0" in data:
                continue  # not text
            for n, line in enumerate(data.decode(errors="replace").splitlines(), 1):
                yield path, n, line
    steps = [e["name"] for e in json.loads((root / "steps.json").read_text())["steps"]]
    for step in steps:
        for path in sorted((root / step).glob("hgemm_sm*.cuh")):
            for n, line in enumerate(banner(path), 1):
                yield path, n, line


COMMENT_LEAD = re.compile(r"^\s*(?://+!?|#+|\*+|/\*+)?\s*")


def findings(lines):
    """(line number, what, fix, text) of each match, also of one that a line break splits ("Steps\n/// 1 to 7")."""
    out = []
    for i, (n, line) in enumerate(lines):
        for rx, what, fix in RULES:
            out += [(n, what, fix, m.group(0)) for m in rx.finditer(line)]
        if i + 1 < len(lines) and lines[i + 1][0] == n + 1:
            joined = line + " " + COMMENT_LEAD.sub("", lines[i + 1][1], count=1)
            for rx, what, fix in RULES:
                out += [(n, what, fix, m.group(0)) for m in rx.finditer(joined)
                        if m.start() < len(line) < m.end() - 1]
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    errors = self_check()
    by_file = {}
    for path, n, line in texts(root):
        by_file.setdefault(path, []).append((n, line))
    for path, lines in by_file.items():
        for n, what, fix, text in findings(lines):
            errors.append(f"{path.relative_to(root)}:{n}: {what} ({text!r}), which goes stale when one is added: {fix}")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(f"{len(errors)} stale-prone text(s) above; the pages under docs/ are where cross-step narrative goes")
    print("no range of steps or count of shapes in tools/, common/ or the kernel banners")


if __name__ == "__main__":
    main()
