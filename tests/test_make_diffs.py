#!/usr/bin/env python3
"""CPU test of tools/make_diffs.py, the generator of every step's from_previous.diff.

    python3 tests/test_make_diffs.py        (CTest: diffs/generator)

Checks that a block that only moved into a loop is not shown as removed and added, that a real change inside
such a block is, that every hunk header counts its own lines, that the diff applied to the old kernel gives
the new one up to whitespace (with a small applier here, and with `patch -l` where it is installed), that
each from_previous.diff has a Blackwell then a Hopper section, and that --check names a stale file.
Python standard library only.
"""
import contextlib
import io
import itertools
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_diffs  # noqa: E402  (found through the path set just above)

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

OLD = """\
int main() {
  setup();
  load(a);
  mma(a, b);
  wait();
  store(d);
  return 0;
}""".splitlines()

# The same body moved into a loop: load/mma/wait only re-indented, plus the two lines of the loop.
NEW_LOOP = """\
int main() {
  setup();
  for (int i = 0; i < n; ++i) {
    load(a);
    mma(a, b);
    wait();
  }
  store(d);
  return 0;
}""".splitlines()


def hunks(diff):
    """[(header match, body lines)] of a diff's hunks, walking each one by its own counts."""
    out = []
    i = 0
    while i < len(diff):
        m = HUNK_RE.match(diff[i])
        i += 1
        if not m:
            continue
        old_left = int(m.group(2) or 1)
        new_left = int(m.group(4) or 1)
        body = []
        while old_left > 0 or new_left > 0:
            line = diff[i]
            body.append(line)
            old_left -= line[:1] != "+"
            new_left -= line[:1] != "-"
            i += 1
        out.append((m, body))
    return out


def apply_ignoring_whitespace(old, diff):
    """Applies a unified diff to old (a list of lines), matching context and removed lines up to whitespace.

    Fails (AssertionError) when a hunk does not start where its header says or a line does not match.
    """
    norm = make_diffs.normalise
    out = []
    pos = 0  # next line of old not yet copied
    for m, body in hunks(diff):
        start = int(m.group(1)) - (1 if int(m.group(2) or 1) else 0)  # 0-based; an empty range names the line before
        assert start >= pos, "hunks overlap or go backwards"
        out += old[pos:start]
        pos = start
        for line in body:
            sign, text = line[:1], line[1:]
            if sign == "+":
                out.append(text)
                continue
            assert norm(old[pos]) == norm(text), f"old line {pos + 1} {old[pos]!r} != {text!r}"
            if sign == " ":
                out.append(old[pos])
            pos += 1
    return out + old[pos:]


def changed_runs(body):
    """The maximal runs of '-'/'+' lines of a hunk body."""
    runs = [[]]
    for line in body:
        if line[:1] in ("-", "+"):
            runs[-1].append(line)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def signs(diff):
    return [line for _, body in hunks(diff) for line in body if line[:1] in "-+"]


class WhitespaceBlindDiff(unittest.TestCase):
    def test_reindented_block_is_context(self):
        diff, reindented = make_diffs.ws_diff(OLD, NEW_LOOP, "old", "new")
        self.assertEqual(signs(diff), ["+  for (int i = 0; i < n; ++i) {", "+  }"])
        self.assertEqual(reindented, 3)
        # The moved lines appear once, as context, with the new indentation.
        body = [line for _, b in hunks(diff) for line in b]
        self.assertIn("     load(a);", body)
        self.assertNotIn("   load(a);", body)

    def test_only_reindented_gives_empty_diff(self):
        new = ["    " + line for line in OLD]
        self.assertEqual(make_diffs.ws_diff(OLD, new, "old", "new"), ([], len(OLD)))

    def test_real_change_inside_reindented_block(self):
        new = list(NEW_LOOP)
        new[4] = "    mma(a, b, i > 0);"
        diff, reindented = make_diffs.ws_diff(OLD, new, "old", "new")
        self.assertEqual(signs(diff), ["+  for (int i = 0; i < n; ++i) {", "-  mma(a, b);",
                                       "+    mma(a, b, i > 0);", "+  }"])
        self.assertEqual(reindented, 2)

    def test_file_headers(self):
        diff, _ = make_diffs.ws_diff(OLD, NEW_LOOP, "step1_single_tile/k.cuh", "step2_kloop/k.cuh")
        self.assertEqual(diff[:2], ["--- step1_single_tile/k.cuh", "+++ step2_kloop/k.cuh"])

    def test_hunks_split_and_counts(self):
        # Two changes 20 lines apart: two hunks with 3 lines of context each, headers counting their lines.
        old = [f"line {k};" for k in range(40)]
        new = list(old)
        new[5] = "changed 5;"
        new.insert(30, "inserted;")
        diff, _ = make_diffs.ws_diff(old, new, "a", "b")
        self.assertEqual([m.group(0) for m, _ in hunks(diff)], ["@@ -3,7 +3,7 @@", "@@ -28,6 +28,7 @@"])
        for m, body in hunks(diff):
            self.assertEqual(sum(1 for x in body if x[0] in " -"), int(m.group(2)))
            self.assertEqual(sum(1 for x in body if x[0] in " +"), int(m.group(4)))
            self.assertLessEqual(len(body), 8)  # 3 context lines each side at most, not the whole file

    def test_insert_at_start_and_delete_all(self):
        diff, _ = make_diffs.ws_diff([], ["a", "b"], "x", "y")
        self.assertEqual(diff[2:], ["@@ -0,0 +1,2 @@", "+a", "+b"])
        diff, _ = make_diffs.ws_diff(["a"], [], "x", "y")
        self.assertEqual(diff[2:], ["@@ -1,1 +0,0 @@", "-a"])

    def test_applies_up_to_whitespace(self):
        new = list(NEW_LOOP)
        new[4] = "    mma(a, b, i > 0);"
        diff, _ = make_diffs.ws_diff(OLD, new, "old", "new")
        got = apply_ignoring_whitespace(OLD, diff)
        self.assertEqual([make_diffs.normalise(x) for x in got], [make_diffs.normalise(x) for x in new])

    def test_changed_line_counts(self):
        diff, _ = make_diffs.ws_diff(OLD, ["-- x", "  // only a comment", "  store(d);  // and a comment", ""],
                                     "a", "b")
        # All 8 old lines are removed (all code, '}' too); of the 4 added, '-- x' and the commented store() are
        # code, the comment-only and the blank line are not.
        self.assertEqual(make_diffs.count(diff), (12, 4, 8, 10))


class CommittedKernels(unittest.TestCase):
    """The generator on the real kernels of every step (whatever they hold now)."""

    def test_every_step(self):
        for prev, step in make_diffs.step_pairs():
            for name, _ in make_diffs.KERNELS:
                with self.subTest(step=step, kernel=name):
                    old = (ROOT / prev / name).read_text().splitlines()
                    new = (ROOT / step / name).read_text().splitlines()
                    diff, _ = make_diffs.ws_diff(old, new, "a", "b")
                    for m, body in hunks(diff):
                        self.assertEqual(sum(1 for x in body if x[:1] != "+"), int(m.group(2) or 1), m.group(0))
                        self.assertEqual(sum(1 for x in body if x[:1] != "-"), int(m.group(4) or 1), m.group(0))
                        # Within one run of changed lines, no removed and added line differ only in whitespace
                        # (a line may still move: removed in one run, added in another).
                        for run in changed_runs(body):
                            removed = {make_diffs.normalise(x[1:]) for x in run if x[:1] == "-"}
                            added = {make_diffs.normalise(x[1:]) for x in run if x[:1] == "+"}
                            self.assertFalse(removed & added, m.group(0))
                    got = apply_ignoring_whitespace(old, diff)
                    self.assertEqual([make_diffs.normalise(x) for x in got], [make_diffs.normalise(x) for x in new])

    def test_sections(self):
        for prev, step in make_diffs.step_pairs():
            with self.subTest(step=step):
                text = make_diffs.step_diff(prev, step)
                titles = [line for line in text.splitlines() if line.startswith("# ==== ")]
                self.assertEqual(titles, [
                    f"# ==== Blackwell (sm_100a): {prev}/hgemm_sm100.cuh -> {step}/hgemm_sm100.cuh ====",
                    f"# ==== Hopper (sm_90a): {prev}/hgemm_sm90.cuh -> {step}/hgemm_sm90.cuh ===="])
                # The header's count is the number of '+'/'-' lines of its own section.
                blackwell, hopper = text.split("\n\n# ==== Hopper")
                for part in (blackwell, hopper):
                    m = re.search(r"^# (\d+) lines changed \((\d+) added, (\d+) removed\), (\d+) of them code",
                                  part, re.M)
                    self.assertIsNotNone(m)
                    self.assertEqual(tuple(int(g) for g in m.groups()), make_diffs.count(part.splitlines()))

    @unittest.skipUnless(shutil.which("patch"), "patch is not installed")
    def test_patch_l_applies(self):
        # patch -l (whitespace-blind context), without fuzz, applies each section to the previous step's kernel.
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            for (prev, step), (name, title) in itertools.product(make_diffs.step_pairs(), make_diffs.KERNELS):
                with self.subTest(step=step, kernel=name):
                    old = (ROOT / prev / name).read_text().splitlines()
                    new = (ROOT / step / name).read_text().splitlines()
                    section = make_diffs.section(title, f"{prev}/{name}", f"{step}/{name}", old, new)
                    (tmp / "d.diff").write_text("\n".join(section) + "\n")
                    shutil.copy(ROOT / prev / name, tmp / "old")
                    subprocess.run(["patch", "-l", "-F", "0", "-s", "-o", "out", "old", "d.diff"], check=True, cwd=tmp)
                    got = (tmp / "out").read_text().splitlines()
                    self.assertEqual([make_diffs.normalise(x) for x in got], [make_diffs.normalise(x) for x in new])


class Check(unittest.TestCase):
    def test_check_names_stale_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for step, body in (("step1_single_tile", OLD), ("step2_kloop", NEW_LOOP)):
                (root / step).mkdir()
                for name, _ in make_diffs.KERNELS:
                    (root / step / name).write_text("\n".join(body) + "\n")
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet):
                self.assertEqual(make_diffs.main([], root=root), 0)       # writes step2_kloop/from_previous.diff
                self.assertEqual(make_diffs.main(["--check"], root=root), 0)
            (root / "step2_kloop" / "hgemm_sm90.cuh").write_text("\n".join(NEW_LOOP + ["// more"]) + "\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(make_diffs.main(["--check"], root=root), 1)
            self.assertIn("step2_kloop/from_previous.diff", out.getvalue())


if __name__ == "__main__":
    unittest.main()
