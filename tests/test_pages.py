#!/usr/bin/env python3
"""CPU test of tools/pages.py, the generator of every region of the pages, on a scratch checkout.

    python3 tests/test_pages.py        (CTest: pages/generator)

Checks that --check names a stale region by file, line and kind and exits 1, that --write regenerates it and
leaves the rest of the page byte-identical, that --results picks the run the tables and the chart come from, that a marker in code is no region, that a begin without its end,
an end without its begin, an unknown kind or a facts region without --facts-bin is an error naming the file and
line (exit 2), that the facts region holds hg_step_facts's output as printed, that a ladder region links
the way its page does (\\ref in docs/, a relative Markdown link in a step's README), and that the tables'
captions say the turns ran in a balanced order only for a run whose ladder.json says so.
Python standard library only.
"""
import contextlib
import io
import pathlib
import shutil
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import pages  # noqa: E402  (found through the path set just above)
import plot_results  # noqa: E402
import registry  # noqa: E402

LADDER = registry.ladder()

README = """\
# A page

Before.

<!-- contracts:begin -->
a stale table
<!-- contracts:end -->

After, with `<!-- facts:begin -->` in a code span.

```
<!-- results:begin -->
```
"""


class PagesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        (self.root / "docs" / "results").mkdir(parents=True)
        for name in ("ladder.csv", "ladder.json"):
            shutil.copy(ROOT / "docs" / "results" / name, self.root / "docs" / "results" / name)
        (self.root / "README.md").write_text(README)

    def tearDown(self):
        self.tmp.cleanup()

    def run_pages(self, *argv):
        """(exit code, stdout, stderr) of pages.main on the scratch checkout."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = pages.main(list(argv), root=self.root)
        return rc, out.getvalue(), err.getvalue()

    def fake_facts_bin(self, text):
        path = self.root / "fake_facts"
        path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{text}EOF\n")
        path.chmod(0o755)
        return str(path)

    def test_stale_region_is_reported_then_written(self):
        rc, out, _ = self.run_pages("--check")
        self.assertEqual(rc, 1)
        self.assertIn("README.md:5: the contracts region is out of date", out)
        self.assertIn("ladder.svg: the chart is out of date", out)  # no chart in the scratch results yet
        rc, out, _ = self.run_pages("--write")
        self.assertEqual(rc, 0)
        self.assertIn("wrote README.md", out)
        want = README.replace("a stale table\n", registry.contracts_table("markdown") + "\n")
        self.assertEqual((self.root / "README.md").read_text(), want)
        self.assertEqual(self.run_pages("--check")[0], 0)

    def test_results_dir_option(self):
        other = self.root / "run"
        other.mkdir()
        rc, _, err = self.run_pages("--write", "--results", str(other))
        self.assertEqual((rc, f"no ladder.csv in {other}" in err), (2, True), err)
        for name in ("ladder.csv", "ladder.json"):
            shutil.copy(self.root / "docs" / "results" / name, other / name)
        self.assertEqual(self.run_pages("--write", "--results", str(other))[0], 0)
        self.assertTrue((other / "ladder.svg").exists())
        self.assertFalse((self.root / "docs" / "results" / "ladder.svg").exists())

    def test_unterminated_marker_names_file_and_line(self):
        page = self.root / "docs" / "page.md"
        page.write_text("text\n\n<!-- results:begin -->\n| a |\n\nmore text\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual(rc, 2)
        self.assertIn("docs/page.md:3: <!-- results:begin --> without <!-- results:end -->", err)

    def test_end_without_begin(self):
        (self.root / "step1_x").mkdir()
        (self.root / "step1_x" / "README.md").write_text("a\n<!-- ladder:end -->\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual(rc, 2)
        self.assertIn("step1_x/README.md:2: <!-- ladder:end --> without its <!-- ladder:begin -->", err)

    def test_unknown_kind_and_marker_not_alone(self):
        page = self.root / "docs" / "page.md"
        page.write_text("<!-- tables:begin -->\n<!-- tables:end -->\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual((rc, "docs/page.md:1: no producer for a tables region" in err), (2, True), err)
        page.write_text("see <!-- results:begin -->\n<!-- results:end -->\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual((rc, "docs/page.md:1: put <!-- results:begin --> on a line of its own" in err), (2, True),
                         err)

    def test_facts_come_from_the_binary(self):
        page = self.root / "docs" / "page.md"
        page.write_text("<!-- facts:begin -->\nold\n<!-- facts:end -->\n")
        rc, _, err = self.run_pages("--write")
        self.assertEqual(rc, 2)
        self.assertIn("docs/page.md:1: a facts region needs --facts-bin", err)
        self.assertEqual(page.read_text(), "<!-- facts:begin -->\nold\n<!-- facts:end -->\n")  # nothing written
        rc, _, err = self.run_pages("--write", "--facts-bin", self.fake_facts_bin("caption\n\n| t |\n"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(page.read_text(), "<!-- facts:begin -->\ncaption\n\n| t |\n<!-- facts:end -->\n")

    def test_ladder_links_follow_the_page(self):
        step = registry.ladder()[1]
        (self.root / step).mkdir()
        region = f"<!-- ladder:begin {step} -->\n<!-- ladder:end -->\n"
        (self.root / step / "README.md").write_text(region)
        (self.root / "docs" / "page.md").write_text(region)
        self.assertEqual(self.run_pages("--write")[0], 0)
        self.assertIn("([the README's results](../README.md#results):", (self.root / step / "README.md").read_text())
        self.assertIn('(\\ref main_results "the main page":', (self.root / "docs" / "page.md").read_text())
        (self.root / "docs" / "page.md").write_text("<!-- ladder:begin step1_nothing -->\n<!-- ladder:end -->\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual((rc, "docs/page.md:1: step1_nothing is not a ladder step" in err), (2, True), err)

    def test_captions_name_the_balanced_order_only_for_a_run_that_had_it(self):
        meta, rows, shapes = plot_results.load(self.root / "docs" / "results")
        plain = {k: v for k, v in meta.items() if k != "kernel_order"}
        said = "in a balanced order (each kernel's turn follows each other kernel's equally often)"
        for run, balanced in ((plain, False), ({**plain, "kernel_order": "balanced"}, True)):
            captions = (plot_results.table(run, rows, shapes).splitlines()[0],
                        plot_results.step_table(run, rows, shapes, LADDER[1], [LADDER[0]]).splitlines()[0])
            for caption in captions:
                self.assertEqual(said in caption, balanced, caption)
            if balanced:
                self.assertIn(f"in {run['rounds']} interleaved rounds {said} after", captions[0])

if __name__ == "__main__":
    unittest.main()
