#!/usr/bin/env python3
"""CPU test of tools/docs_numbers.py, the check that ties the pages' measured numbers to docs/results/*.csv.

    python3 -m unittest tests/test_docs_numbers.py        (CTest: docs_numbers/unit)

Every case builds its own fixtures in a temporary directory (a small ladder.csv and one Markdown page) and runs
the tool's command line on them: a correct tie passes; a wrong number, an untied figure and each kind of
dangling tie (no row, two rows, no column, no file) fail with exit 1 and a PATH:LINE message; --write fixes a
wrong number and leaves the rest of the page byte-identical; generated regions, code, comments and opt-outs
are not read; shapes and sizes are not figures. Python standard library only.
"""
import contextlib
import io
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import docs_numbers  # noqa: E402  (found through the path set just above)

CSV = """\
m,n,k,step,method,tflops,pct_cublas
4096,4096,4096,step5_pipeline,sustained,611.4,102.9
8192,8192,8192,step5_pipeline,sustained,689.2,103.4
8192,8192,8192,step5_pipeline,cold,607.2,93.3
8192,8192,8192,step6_persistent,sustained,626.7,96.3
"""
# The row of 689.2 (CSV line 3) and its percentage.
ROW = "ladder.csv m=8192 n=8192 k=8192 step=step5_pipeline method=sustained"
TIE = "<!-- tie: %s col=tflops -->" % ROW
PCT_TIE = "<!-- tie: %s col=pct_cublas -->" % ROW


class Fixture:
    """A temporary repository: docs/results/ladder.csv and pages written on demand."""

    def __init__(self, tmp):
        self.root = pathlib.Path(tmp)
        self.results = self.root / "docs" / "results"
        self.results.mkdir(parents=True)
        (self.results / "ladder.csv").write_text(CSV)

    def page(self, text, name="page.md"):
        """Writes a page (bytes as given, no newline translation) and returns its path."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path

    def run(self, *args):
        """(exit code, stdout) of the tool's command line on this fixture."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = docs_numbers.main(["--root", str(self.root), "--results", str(self.results)] + list(args))
        return rc, out.getvalue()


class PageChecks:
    """--check on one page of the fixture self.fx, and what a test asserts of it (shared with the claims' tests)."""

    def check(self, text):
        """(exit code, stdout) of --check on one page holding text."""
        return self.fx.run("--check", str(self.fx.page(text)))

    def assertChecksOut(self, text, summary):
        """--check passes, and its summary line holds `summary`."""
        rc, out = self.check(text)
        self.assertEqual(rc, 0, out)
        self.assertIn(summary, out)

    def assertFails(self, text, *messages):
        rc, out = self.check(text)
        self.assertEqual(rc, 1, out)
        for message in messages:
            self.assertIn(message, out)
        return out


class DocsNumbersTest(PageChecks, unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fx = Fixture(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def assertPasses(self, text, ties=None):
        self.assertChecksOut(text, "0 problems" if ties is None else "1 files, %d ties, 0 claims, 0 problems" % ties)

    # --- Ties -----------------------------------------------------------------------------------------------
    def test_correct_tie_passes(self):
        self.assertPasses("# Results\n\nStep 5 reached 689.2 TFLOP/s%s, 103.4%%%s of cuBLAS.\n" % (TIE, PCT_TIE), 2)

    def test_tie_after_unit_blank_or_bare_number(self):
        self.assertPasses("a 689.2 TFLOP/s %s b\nc 689.2%s d\ne 103.4 %%%s\n" % (TIE, TIE, PCT_TIE), 3)

    def test_wrong_number_fails_naming_expected_value_and_row(self):
        out = self.assertFails("Intro.\n\nStep 5 reached 612.3 TFLOP/s%s.\n" % TIE,
                               "page.md:3: 612.3 should be 689.2", "ladder.csv line 3", "tflops=689.2",
                               "method=sustained")
        self.assertIn("1 problems", out)

    def test_precision_comes_from_the_prose(self):
        self.assertPasses("about 689 TFLOP/s%s\n" % TIE, 1)
        self.assertPasses("about 689.20 TFLOP/s%s\n" % TIE, 1)
        self.assertFails("about 690 TFLOP/s%s\n" % TIE, "690 should be 689")

    def test_explicit_format(self):
        tie = "<!-- tie: %s col=tflops fmt=.0f -->" % ROW
        self.assertPasses("about 689 TFLOP/s%s\n" % tie, 1)
        self.assertFails("about 689.2 TFLOP/s%s\n" % tie, "689.2 should be 689")
        self.assertFails("689.2 TFLOP/s<!-- tie: %s col=tflops fmt=.1q -->\n" % ROW, "malformed tie (fmt=.1q")

    def test_rate_read_as_microseconds(self):
        # 2 x 8192^3 FLOP at 689.2 TFLOP/s: 1595.3 us; the row's own m, n and k.
        tie = "<!-- tie: %s col=tflops as=us -->" % ROW
        self.assertPasses("one launch takes 1595.3 us%s\n" % tie, 1)
        self.assertFails("one launch takes 1595.4 us%s\n" % tie, "1595.4 should be 1595.3", "as=us")
        self.assertFails("1.0 us<!-- tie: %s col=tflops as=ms -->\n" % ROW, "malformed tie (as=ms: known are us)")
        self.fx.results.joinpath("rates.csv").write_text("what,tflops\nx,100\n")
        self.assertFails("1.0 us<!-- tie: rates.csv what=x col=tflops as=us -->\n",
                         "dangling tie: rates.csv has no column 'm'")
        self.fx.results.joinpath("blank.csv").write_text("what,m,n,k,tflops\nx,,8,8,100\n")
        self.assertFails("1.0 us<!-- tie: blank.csv what=x col=tflops as=us -->\n", "needs a positive tflops and numbers")
        self.assertFails("1.0 us<!-- tie: %s col=pct_cublas as=us -->\n" % ROW, "as=us reads a TFLOP/s column")

    def test_quoted_value_with_blanks(self):
        self.fx.results.joinpath("notes.csv").write_text('what,ms\n"2D grid, thread copies",0.80403\n')
        self.assertPasses('0.804 ms<!-- tie: notes.csv what="2D grid, thread copies" col=ms -->\n', 1)

    def test_cell_with_a_unit(self):
        self.fx.results.joinpath("power.csv").write_text("timestamp, clocks.current.sm [MHz]\nt0, 1965 MHz\n")
        # The header's blanks are stripped, a column name with blanks is quoted, the cell's unit is dropped.
        self.assertPasses("1965 MHz<!-- tie: power.csv timestamp=t0 'col=clocks.current.sm [MHz]' -->\n", 1)

    # --- Dangling and malformed ties ------------------------------------------------------------------------
    def test_dangling_no_row(self):
        self.assertFails("1.0 TFLOP/s<!-- tie: ladder.csv m=8192 step=step7_warp_specialized col=tflops -->\n",
                         "page.md:1: dangling tie: no row of ladder.csv has m=8192 step=step7_warp_specialized")

    def test_dangling_two_rows(self):
        self.assertFails("689.2 TFLOP/s<!-- tie: ladder.csv m=8192 step=step5_pipeline col=tflops -->\n",
                         "page.md:1: dangling tie: 2 rows of ladder.csv (lines 3, 4)")

    def test_dangling_missing_column(self):
        self.assertFails("689.2 TFLOP/s<!-- tie: %s col=gflops -->\n" % ROW,
                         "page.md:1: dangling tie: ladder.csv has no column 'gflops'")
        self.assertFails("689.2 TFLOP/s<!-- tie: ladder.csv shape=8192 col=tflops -->\n",
                         "dangling tie: ladder.csv has no column 'shape'")

    def test_dangling_missing_file(self):
        self.assertFails("689.2 TFLOP/s<!-- tie: nope.csv m=8192 col=tflops -->\n",
                         "page.md:1: dangling tie: no file", "nope.csv")

    def test_malformed_ties(self):
        self.assertFails("689.2 TFLOP/s<!-- tie: %s -->\n" % ROW, "malformed tie (no col=COLUMN)")
        self.assertFails("689.2 TFLOP/s<!-- tie: m=8192 col=tflops -->\n", "malformed tie (no CSV file first)")
        self.assertFails("689.2 TFLOP/s<!-- tie: ladder.csv m8192 col=tflops -->\n", "'m8192' is not key=value")
        self.assertFails("689.2 TFLOP/s of cuBLAS%s\n" % TIE, "a tie with no number right before it")

    # --- Untied figures -------------------------------------------------------------------------------------
    def test_untied_figure_fails(self):
        out = self.assertFails("# Results\n\nwe measured 612.3 TFLOP/s on the H200.\n",
                               "page.md:3: untied measured figure '612.3 TFLOP/s'")
        self.assertIn("0 ties, 0 claims, 1 problems", out)

    def test_every_unit_and_speedup_is_a_figure(self):
        text = ("a 1.5 ms, 20 us, 20 \u00b5s, 3 ns\nb 4.8 TB/s, 36.4 GB/s, 900 GFLOP/s\nc 1980 MHz, 1.83 GHz, 700 W\n"
                "d 28.8%, 61.8% of peak\ne 1.3x faster, 1.3\u00d7, 2 &times; quicker\n"
                "f a figure wrapped at 611.4\n  TFLOP/s across two lines\n")
        rc, out = self.fx.run("--list-untied", str(self.fx.page(text)))
        self.assertEqual(rc, 0)
        figures = [line.split(": ", 1)[1] for line in out.splitlines()]
        self.assertEqual(figures, ["1.5 ms", "20 us", "20 \u00b5s", "3 ns", "4.8 TB/s", "36.4 GB/s", "900 GFLOP/s",
                                   "1980 MHz", "1.83 GHz", "700 W", "28.8%", "61.8%", "1.3x", "1.3\u00d7",
                                   "2 &times;", "611.4 TFLOP/s"])
        self.assertTrue(out.startswith("page.md:1: 1.5 ms\n"), out)
        self.assertIn("page.md:6: 611.4 TFLOP/s", out)

    def test_first_number_of_a_range_is_a_figure(self):
        rc, out = self.fx.run("--list-untied", str(self.fx.page(
            "from 558.4 to 611.4 TFLOP/s; 3 to 6% slower; between 1230 and 1980 MHz\n")))
        self.assertEqual([line.split(": ", 1)[1].split(" (")[0] for line in out.splitlines()],
                         ["558.4", "611.4 TFLOP/s", "3", "6%", "1230", "1980 MHz"])

    def test_list_untied_prints_only_figures(self):
        rc, out = self.fx.run("--list-untied", str(self.fx.page("we measured 612.3 TFLOP/s\n689.2 TFLOP/s%s\n" % TIE)))
        self.assertEqual((rc, out), (0, "page.md:1: 612.3 TFLOP/s\n"))

    def test_shapes_sizes_and_plain_numbers_are_not_figures(self):
        rc, out = self.fx.run("--list-untied", str(self.fx.page(
            "At 4096 x 4096 x 4096 and 4096x4096x4096, 128 \u00d7 64 tiles, 128 x BK, 128 \u00d7 BK, M \u00d7 N,\n"
            "each K tile's 32 KiB (32,768 bytes) of a 227 KiB budget, 2 MiB, 64 B; 132 SMs, H200,\n"
            "sm_90a, CUDA 13.0, driver 580.159.04, 0x0000000000000004, 2026-11-30, steps 5 and 6,\n"
            "| 4096<sup>3</sup> TFLOP/s | step 6 TFLOP/s | 16384 x 4096 x 1024 and 3 to 11% |\n")))
        self.assertEqual(rc, 0)
        self.assertEqual([line.split(": ", 1)[1].split(" (")[0] for line in out.splitlines()], ["3", "11%"])

    # --- What is not read -----------------------------------------------------------------------------------
    def test_skipped_text_is_not_read(self):
        text = "\n".join([
            "<!-- results:begin -->",
            "| 4096 x 4096 x 4096 | step5_pipeline | 612.3 | 103% |",
            "<!-- results:end -->",
            "<!-- profile:begin step3_grid -->",
            "tensor pipe 19.1%, 0.7635 ms",
            "<!-- profile:end -->",
            "```",
            "$ build/step5_pipeline --bench   # 612.3 TFLOP/s",
            "```",
            "~~~~text",
            "50 ms",
            "~~~~",
            "\\code",
            "printf(\"%.1f TFLOP/s\", 612.3);  // 612.3 TFLOP/s",
            "\\endcode",
            "Run `hgemm_bench --settle-ms 50` or ``it took 12 ms`` in code spans.",
            "\\snippet step5_pipeline/hgemm_sm90.cuh 50 ms",
            "\\dontinclude common/model/phase_model.hpp",
            "\\skip 10 ms",
            "\\until 20 ms",
            "\\line 30%",
            "A comment <!-- 612.3 TFLOP/s measured once --> and",
            "<!-- a comment over",
            "two lines: 612.3 TFLOP/s -->",
            "The datasheet gives 989 TFLOP/s dense. <!-- untied: vendor datasheet -->",
            "",
            "<!-- untied: the budget below is arithmetic on datasheet figures -->",
            "| MMAs of one K tile | 7.49 TFLOP/s per SM | 0.28 \u00b5s |",
            "| one K tile's operands | 36.4 GB/s per SM | 0.90 \u00b5s |",
            "",
            "A link [the 2026 page](docs/5%.md \"at 5%\") and <img src=\"a.svg\" width=\"80%\">.",
            ""])
        self.assertPasses(text, 0)

    def test_opt_out_ends_at_the_blank_line(self):
        self.assertFails("<!-- untied: vendor figures -->\n989 TFLOP/s and 4.8 TB/s\n\nwe measured 612.3 TFLOP/s\n",
                         "page.md:4: untied measured figure '612.3 TFLOP/s'")

    def test_opt_out_needs_a_reason(self):
        self.assertFails("989 TFLOP/s <!-- untied: -->\n", "page.md:1: untied opt-out without a reason")

    def test_ties_in_generated_regions_are_not_read(self):
        self.assertPasses("<!-- results:begin -->\n612.3 TFLOP/s%s\n<!-- results:end -->\n" % TIE, 0)

    def test_unterminated_region_is_a_problem(self):
        self.assertFails("text\n<!-- results:begin -->\n| 612.3 |\n", "page.md:2: <!-- results:begin --> without")

    # --- --write --------------------------------------------------------------------------------------------
    def test_write_fixes_the_number_and_nothing_else(self):
        before = ("# R\u00e9sultats\r\n\r\nStep 5 reached 612.3 TFLOP/s%s, 99.9%%%s of cuBLAS, trailing  \r\n"
                  "| 689.2 | 4096 x 4096 | 32 KiB |\n<!-- results:begin -->\n612.3 TFLOP/s%s\n<!-- results:end -->\n"
                  "no newline at the end" % (TIE, PCT_TIE, TIE))
        path = self.fx.page(before)
        rc, out = self.fx.run("--write", str(path))
        self.assertEqual(rc, 0, out)
        self.assertIn("page.md:3: rewrote 612.3 -> 689.2: ladder.csv line 3", out)
        self.assertIn("page.md:3: rewrote 99.9 -> 103.4", out)
        self.assertIn("2 numbers rewritten, 0 problems", out)
        after = before.replace("612.3 TFLOP/s<", "689.2 TFLOP/s<", 1).replace("99.9%", "103.4%")
        self.assertEqual(path.read_bytes(), after.encode("utf-8"))
        self.assertEqual(self.fx.run("--check", str(path))[0], 0)
        # Once right, --write changes nothing.
        rc, out = self.fx.run("--write", str(path))
        self.assertIn("0 numbers rewritten", out)
        self.assertEqual(path.read_bytes(), after.encode("utf-8"))

    def test_write_still_reports_dangling_and_untied(self):
        path = self.fx.page("612.3 TFLOP/s%s\n1.0 TFLOP/s<!-- tie: nope.csv col=tflops -->\nwe saw 5.0 ms\n" % TIE)
        rc, out = self.fx.run("--write", str(path))
        self.assertEqual(rc, 1, out)
        self.assertIn("page.md:1: rewrote 612.3 -> 689.2", out)
        self.assertIn("page.md:2: dangling tie: no file", out)
        self.assertIn("page.md:3: untied measured figure '5.0 ms'", out)
        self.assertTrue(path.read_text().startswith("689.2 TFLOP/s<!--"))

    # --- The command line -----------------------------------------------------------------------------------
    def test_default_files_under_root(self):
        self.fx.page("Step 5 reached 689.2 TFLOP/s%s\n" % TIE, "README.md")
        self.fx.page("Step 6 reached 612.3 TFLOP/s\n", "step6_persistent/README.md")
        self.fx.page("Nothing measured here.\n", "docs/mainpage.md")
        self.fx.page("we measured 1.0 ms\n", "other/notes.md")  # not a default page
        rc, out = self.fx.run("--check")
        self.assertEqual(rc, 1, out)
        self.assertIn("step6_persistent/README.md:1: untied measured figure '612.3 TFLOP/s'", out)
        self.assertNotIn("notes.md", out)
        self.assertIn("docs_numbers: 3 files, 1 ties, 0 claims, 1 problems", out)

    def test_script_exit_codes(self):
        good = self.fx.page("689.2 TFLOP/s%s\n" % TIE, "good.md")
        bad = self.fx.page("612.3 TFLOP/s%s\n" % TIE, "bad.md")
        script = str(ROOT / "tools" / "docs_numbers.py")
        base = [sys.executable, script, "--results", str(self.fx.results), "--check"]
        ok = subprocess.run(base + [str(good)], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertRegex(ok.stdout, r"^docs_numbers: 1 files, 1 ties, 0 claims, 0 problems\n$")
        fail = subprocess.run(base + [str(bad)], capture_output=True, text=True)
        self.assertEqual(fail.returncode, 1, fail.stdout + fail.stderr)
        self.assertIn("bad.md:1: 612.3 should be 689.2", fail.stdout)
        missing = subprocess.run(base + [str(self.fx.root / "absent.md")], capture_output=True, text=True)
        self.assertEqual(missing.returncode, 2)


if __name__ == "__main__":
    unittest.main()
