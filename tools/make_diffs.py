#!/usr/bin/env python3
"""Regenerate every step's from_previous.diff: what changed in both kernels since the previous step.

    tools/make_diffs.py --write    rewrite step*/from_previous.diff (step 2 on); the same without arguments
    tools/make_diffs.py --check    exit 1, naming the stale files, if a committed diff is out of date
    tools/make_diffs.py --stats    table of changed lines per step and architecture: the plain unified diff
                                   of the current kernels, the diff this script writes, and the diff
                                   committed at git revision 5d780aa (before whitespace-blind diffs)

Each from_previous.diff holds two sections, Blackwell (hgemm_sm100.cuh) first, then Hopper (hgemm_sm90.cuh).
A section opens with a few lines starting with '# ' (a title and a count of the changes; patch tools skip
text before a '---' line), then a unified diff with three lines of context and paths relative to the
repository root. The step's tests.cmake is left out: the kernels are the lesson.

The diff compares lines with whitespace normalised (runs of blanks made one, leading and trailing blanks
dropped). When a step moves code into a loop, a plain diff shows every moved line as removed and added
again although only its indentation changed; here such a line is not a change: near a real change it is a
context line carrying the NEW text, elsewhere it is not shown. So the committed diff is the lesson. The
price: context lines may not match the old file byte for byte, so apply it with `patch -l` (or
`git apply --ignore-whitespace`); the result equals the new kernel up to whitespace.
"""
import difflib
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import registry  # noqa: E402  (tools/registry.py: the steps of steps.json)

STEPS = registry.steps()
# (file, section title), in the order the sections appear in from_previous.diff.
KERNELS = [("hgemm_sm100.cuh", "Blackwell (sm_100a)"), ("hgemm_sm90.cuh", "Hopper (sm_90a)")]
ROOT = pathlib.Path(__file__).resolve().parent.parent
CONTEXT = 3
BEFORE_REV = "5d780aa"  # the last revision whose diffs were plain unified diffs (for --stats)


def normalise(line):
    """A line as the diff compares it: whitespace runs made one blank, no leading or trailing blanks."""
    return " ".join(line.split())


def is_code(text):
    """A changed line counts as code unless it is blank or only a // comment (code + trailing comment is code)."""
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("//")


def _range(start, length):
    """The a,b of a hunk header from a 0-based start: an empty range names the line before it, as diff -u does."""
    return f"{start + 1 if length else start},{length}"


def ws_diff(old, new, old_name, new_name, n=CONTEXT):
    """Unified diff of two lists of lines (no line ends) that treats whitespace-only changes as unchanged.

    Returns (diff_lines, reindented): diff_lines starts with the '---'/'+++' headers and is empty when no line
    changed beyond whitespace; reindented is the number of lines whose only change is whitespace (all of
    them, also those too far from a real change to show up as context).
    """
    matcher = difflib.SequenceMatcher(None, [normalise(x) for x in old], [normalise(x) for x in new],
                                      autojunk=False)  # autojunk would treat frequent lines ('}') as junk
    reindented = sum(1 for tag, i1, i2, j1, _ in matcher.get_opcodes() if tag == "equal"
                     for k in range(i2 - i1) if old[i1 + k] != new[j1 + k])
    out = []
    for group in matcher.get_grouped_opcodes(n):
        if not out:
            out += [f"--- {old_name}", f"+++ {new_name}"]
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + x for x in new[b1:b2]]  # the new text: a re-indented line reads as it is now
                continue
            out += ["-" + x for x in old[a1:a2]]
            out += ["+" + x for x in new[b1:b2]]
    return out, reindented


def walk(diff_lines):
    """Yields (line, in_hunk) for each line of a unified diff; in_hunk is True for a hunk's body lines.

    Hunks are walked by the counts of their @@ headers, so a removed line that starts with '-- ' is never
    taken for a file header, and text between files ('# ' section lines, blank lines) never for content.
    """
    old_left = new_left = 0
    for line in diff_lines:
        if old_left > 0 or new_left > 0:
            sign = line[:1]
            if sign != "\\":  # "\ No newline at end of file" counts for neither side
                old_left -= sign != "+"
                new_left -= sign != "-"
            yield line, True
            continue
        if line.startswith("@@ -"):
            old_part, new_part = line.split(" ")[1:3]
            old_left = int(old_part.split(",")[1]) if "," in old_part else 1
            new_left = int(new_part.split(",")[1]) if "," in new_part else 1
        yield line, False


def changed_lines(diff_lines):
    """The '+' and '-' lines of a unified diff (file headers excluded), as (sign, text) pairs."""
    return [(line[0], line[1:]) for line, in_hunk in walk(diff_lines) if in_hunk and line[:1] in ("-", "+")]


def count(diff_lines):
    """(changed, added, removed, code) of a unified diff."""
    lines = changed_lines(diff_lines)
    added = sum(1 for sign, _ in lines if sign == "+")
    return len(lines), added, len(lines) - added, sum(1 for _, text in lines if is_code(text))


def section(title, old_name, new_name, old, new):
    """One architecture's part of from_previous.diff: '# ' header lines, then the diff."""
    diff, reindented = ws_diff(old, new, old_name, new_name)
    changed, added, removed, code = count(diff)
    head = [f"# ==== {title}: {old_name} -> {new_name} ===="]
    if changed:
        head.append(f"# {changed} lines changed ({added} added, {removed} removed), {code} of them code "
                    "(not blank, not only a // comment).")
    else:
        head.append("# No line changed beyond whitespace.")
    if reindented:
        # Says why context lines may differ from the old file, and how to apply the diff anyway.
        head.append(f"# {reindented} more lines changed only in whitespace: not marked as changes, context "
                    "shows them as now (apply with patch -l).")
    return head + diff


def step_diff(prev, step, root=ROOT):
    """The text of step/from_previous.diff: one section per kernel, Blackwell first, a blank line between."""
    out = []
    for name, title in KERNELS:
        old = (root / prev / name).read_text().splitlines()
        new = (root / step / name).read_text().splitlines()
        if out:
            out.append("")
        out += section(title, f"{prev}/{name}", f"{step}/{name}", old, new)
    return "\n".join(out) + "\n"


def step_pairs(root=ROOT):
    """(previous step, step) for every step after the first whose folder exists."""
    return [(prev, step) for prev, step in zip(STEPS, STEPS[1:]) if (root / step).is_dir()]


def split_by_file(diff_text):
    """{new path: that file's diff lines, headers included} for a diff of several files, split at '--- '."""
    files = {}
    current = []
    lines = diff_text.splitlines()
    for i, (line, in_hunk) in enumerate(walk(lines)):
        if not in_hunk and line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            current = files.setdefault(lines[i + 1][4:].split("\t")[0].strip(), [])
        current.append(line)
    return files


def committed_diffs(root, rev, step):
    """{path: diff lines} of step/from_previous.diff as committed at git revision rev; None if git cannot tell."""
    try:
        text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{step}/from_previous.diff"],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return split_by_file(text)


def stats(root=ROOT):
    """The --stats table: changed lines and code lines per step and architecture, three ways."""
    def changed_and_code(diff):
        changed, _, _, code = count(diff)
        return [changed, code]

    fmt = "{:<17} {:<9} {:>8} {:>5} {:>8} {:>5} {:>8} {:>5} {:>11}"
    out = ["Changed lines (+/-) and, of them, code lines (not blank, not only a // comment), per kernel diff:",
           f"  {BEFORE_REV}: the diff committed at git revision {BEFORE_REV} (a plain diff of the kernels of then)",
           "  plain: difflib.unified_diff, n=3 (the method before this change) of the current kernels",
           "  now: tools/make_diffs.py of the current kernels (whitespace-only changes are not changes)",
           "  re-indented: lines of the current kernels whose only change is whitespace (not counted in now)",
           "",
           fmt.format("step", "arch", BEFORE_REV, "code", "plain", "code", "now", "code", "re-indented")]
    total = [0] * 7
    for prev, step in step_pairs(root):
        before = committed_diffs(root, BEFORE_REV, step)
        for name, title in KERNELS:
            old = (root / prev / name).read_text().splitlines()
            new = (root / step / name).read_text().splitlines()
            plain = list(difflib.unified_diff(old, new, "a", "b", lineterm="", n=CONTEXT))
            now, reindented = ws_diff(old, new, "a", "b")
            committed = [None, None] if before is None else changed_and_code(before.get(f"{step}/{name}", []))
            cells = committed + changed_and_code(plain) + changed_and_code(now) + [reindented]
            total = [t + (c or 0) for t, c in zip(total, cells)]
            out.append(fmt.format(step, title.split()[0], *["n/a" if c is None else c for c in cells]))
    out.append(fmt.format("total", "", *total))
    return "\n".join(out)


def main(argv=None, root=ROOT):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--write"], ["--check"], ["--stats"]):
        print(__doc__)
        return 2
    if argv == ["--stats"]:
        print(stats(root))
        return 0
    check = argv == ["--check"]
    stale, wrote = [], 0
    for prev, step in step_pairs(root):
        path = root / step / "from_previous.diff"
        want = step_diff(prev, step, root)
        have = path.read_text() if path.exists() else None
        if have == want:
            continue
        if check:
            stale.append(str(path.relative_to(root)))
        else:
            path.write_text(want)
            wrote += 1
            print(f"wrote {path.relative_to(root)} ({want.count(chr(10))} lines)")
    if stale:
        print("stale or missing: " + ", ".join(stale) + " - run cmake --build build --target regenerate "
              "(or tools/make_diffs.py --write) and commit the result")
        return 1
    if not wrote:
        print("every from_previous.diff is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
