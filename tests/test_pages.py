#!/usr/bin/env python3
"""CPU test of tools/pages.py, the generator of every region of the pages, on a scratch checkout.

    python3 tests/test_pages.py        (CTest: pages/generator)

Checks that --check names a stale region by file, line and kind and exits 1, that --write regenerates it and leaves
the rest of the page byte-identical, that --results picks the run the tables and the chart come from, that a marker
in code is no region, that a begin without its end, an end without its begin, an unknown kind or a facts region
without --facts-bin is an error naming the file and line (exit 2), that the facts region holds hg_step_facts's
output as printed (a TABLE argument passed on to it), that a ladder region links the way its page does (\\ref in
docs/, a relative Markdown link in a step's README), that the tables' captions say the turns ran in a balanced order
only for a run whose ladder.json says so, and that the sweep regions render from a small sweep (its per-step table,
a variant against the step before its step with sweep.csv's own verdict where it has one, the grid of split
thresholds with the choice in bold, the runs' knobs in the caption), that a sweep region's dir= renders the sweep
summarized in that folder instead (the forced one) and that a shape every kernel of a shapes table skipped is left
out with a word in the caption, while a missing file, runs that differ, bad arguments or a dir= that names no folder
are errors naming the page and line, and that the payoff and group tables render from a small registry and run (a
step the benchmark does not time shown without numbers, the named method first, a step slower than the one before
refused unless its clause says so, a missing step or shape named), and from the checkout's own on a page; and that
the registry refuses an unknown field.
Python standard library only.
"""
import contextlib
import io
import json
import pathlib
import shutil
import sys
import tempfile
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import pages  # noqa: E402  (found through the path set just above)
import payoff_tables  # noqa: E402
import plot_results  # noqa: E402
import registry  # noqa: E402
import sweep_summary  # noqa: E402

LADDER = registry.ladder()

# A small sweep: two shapes, burst only. At 512 x 4096 x 4096 step 10 wins and the forced split loses beyond the
# spread; at 2048 x 4096 x 4096 sweep.csv says step 10 lost (from its unrounded medians) where its rounded ones
# would tie: the table must show the file's verdict.
S9, S10, SPLIT = "step9_multi_consumer", "step10_stream_k", "step10_stream_k+split"
SWEEP_CSV = """\
{header}
M1,attn,512,4096,4096,burst,{s9},3,60.0,59.5,60.5,400.0,,,,cfg
M1,attn,512,4096,4096,burst,{s10},3,70.0,69.5,70.5,466.7,{s9},win,,cfg
M1,attn,512,4096,4096,burst,{split},3,58.0,57.8,58.2,386.7,,,,cfg
M1,attn,512,4096,4096,burst,cublas,3,100.0,100.0,100.0,666.7,,,,cfg
M1,mlp,2048,4096,4096,burst,{s9},3,99.0,98.9,99.1,660.0,,,,cfg
M1,mlp,2048,4096,4096,burst,{s10},3,98.9,98.8,99.0,659.3,{s9},loss,,cfg
M1,mlp,2048,4096,4096,burst,{split},3,99.1,99.0,99.2,660.7,,,,cfg
M1,mlp,2048,4096,4096,burst,cublas,3,100.0,100.0,100.0,666.7,,,,cfg
""".format(s9=S9, s10=S10, split=SPLIT, header=",".join(sweep_summary.SHAPE_COLUMNS))
SWEEP_STEPS_CSV = """\
step,method,runs,shapes,pct_cublas_median,pct_cublas_worst,worst_shape,previous,wins,losses,ties,claims
{s9},burst,3,2,79.5,60.0,M1 attn 512x4096x4096,,0,0,0,yes
{s10},burst,3,2,84.5,70.0,M1 attn 512x4096x4096,{s9},1,1,0,yes
{split},burst,2,2,78.6,58.0,M1 attn 512x4096x4096,,0,0,0,no
""".format(s9=S9, s10=S10, split=SPLIT)
SK_KNOBS_CSV = """\
min_saving,part_cost,worst_loss_pct,median_gain_pct,mean_gain_pct,shapes_split,shapes,chosen
0,0,3.3,-1.6,-1.6,2,2,0
0,2,3.3,-1.6,-1.6,2,2,0
5,0,0.0,0.0,0.0,0,2,0
5,2,0.0,0.0,0.0,0,2,1
"""
RUN_JSON = {"gpu": "NVIDIA H200", "sm_count": 132, "kernel": "sm90", "driver": "580.159.04", "cuda_runtime": "13.0",
            "cublas": "13.1.0", "date_utc": "2026-12-03T04:01:30Z", "iters": 120, "rounds": 12, "warmup": 10,
            "kernel_order": "balanced", "methods": {"burst": {"settle_ms": 0}, "sustained": {"settle_ms": 50}},
            "settle_ms": 50, "stream_k": {"min_share": 4, "rounds": 1, "min_saving_pct": 10, "part_cost": 2},
            "sk_forced": True}
# The sweep with the knobs at their defaults, in docs/results itself when the forced one is in a folder below it
# (dir=): no forced split, one shape the steps time and one they skip (their shape rule), which cuBLAS times.
DEFAULT_SWEEP_CSV = """\
{header}
M1,attn,512,4096,4096,burst,{s9},3,60.0,59.5,60.5,400.0,,,,cfg
M1,attn,512,4096,4096,burst,{s10},3,71.0,70.5,71.5,473.3,{s9},win,,cfg
M1,attn,512,4096,4096,burst,cublas,3,100.0,100.0,100.0,666.7,,,,cfg
M1,odd,1000,4096,4096,burst,{s9},0,,,,,,,skipped: M must be a multiple of 128 (BLK_M),cfg
M1,odd,1000,4096,4096,burst,{s10},0,,,,,{s9},,skipped: M must be a multiple of 128 (BLK_M),cfg
M1,odd,1000,4096,4096,burst,cublas,3,100.0,100.0,100.0,650.0,,,,cfg
""".format(s9=S9, s10=S10, header=",".join(sweep_summary.SHAPE_COLUMNS))
DEFAULT_SWEEP_STEPS_CSV = """\
step,method,runs,shapes,pct_cublas_median,pct_cublas_worst,worst_shape,previous,wins,losses,ties,claims
{s9},burst,3,1,60.0,60.0,M1 attn 512x4096x4096,,0,0,0,yes
{s10},burst,3,1,71.0,71.0,M1 attn 512x4096x4096,{s9},1,0,0,yes
""".format(s9=S9, s10=S10)
DEFAULT_KNOBS = {**RUN_JSON["stream_k"], "min_saving_pct": 4, "full_split_max_pct": 60}
SWEEP_PAGE = """\
Steps:

<!-- sweep:begin steps -->
<!-- sweep:end -->

Shapes:

<!-- sweep:begin shapes step10_stream_k+split -->
<!-- sweep:end -->

Knobs:

<!-- sweep:begin knobs -->
<!-- sweep:end -->
"""

# A small registry and run for the payoff and group tables: step 1 untimed, step 2 timed, step 3 timed and slower
# than step 2 under burst only (sustained level), at one shape.
PAYOFF = ((256, 256, 256), "sustained")
ENTRIES = [
    {"name": "step1_a", "what": "idea one", "bought": "bought one", "unsolved": "left one", "contract": "c one",
     "label": "one", "rule": "kSingleTile", "ladder": False},
    {"name": "step2_b", "what": "idea two", "bought": "bought two", "unsolved": "left two", "contract": "c two",
     "label": "two", "rule": "kTiled", "ladder": True},
    {"name": "step3_c", "what": "idea three", "bought": "slower in burst", "unsolved": "left three",
     "contract": "c three", "label": "three", "rule": "kTiled", "ladder": True},
]
LADDER_ROWS = [dict(zip(("m", "n", "k", "step", "method", "verified", "median_ms", "tflops", "pct_cublas"), r))
               for r in [("256", "256", "256", "step2_b", "burst", "1", "0.1", "100.0", "101.0"),
                         ("256", "256", "256", "step3_c", "burst", "1", "0.2", "90.0", "90.9"),
                         ("256", "256", "256", "step2_b", "sustained", "1", "0.1", "80.0", "88.9"),
                         ("256", "256", "256", "step3_c", "sustained", "1", "0.1", "80.0", "88.9"),
                         ("512", "512", "512", "step2_b", "sustained", "1", "0.1", "80.0", "88.9")]]
LADDER_META = {"gpu": "GPU X", "date_utc": "2026-01-02T00:00:00Z", "methods": {"sustained": {"settle_ms": 50}}}
LINK = lambda name, text: f"<{name}|{text}>"  # noqa: E731  (a link the tests can see)

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

    def test_facts_table_argument_reaches_the_binary(self):
        page = self.root / "docs" / "page.md"
        page.write_text("<!-- facts:begin -->\n<!-- facts:end -->\n<!-- facts:begin tile_choice -->\n"
                        "<!-- facts:end -->\n")
        echo = self.root / "fake_facts_echo"  # prints the argument it was given
        echo.write_text("#!/bin/sh\necho \"table '$1'\"\n")
        echo.chmod(0o755)
        rc, _, err = self.run_pages("--write", "--facts-bin", str(echo))
        self.assertEqual(rc, 0, err)
        self.assertEqual(page.read_text(), "<!-- facts:begin -->\ntable ''\n<!-- facts:end -->\n"
                                           "<!-- facts:begin tile_choice -->\ntable 'tile_choice'\n<!-- facts:end -->\n")
        page.write_text("<!-- facts:begin a b -->\n<!-- facts:end -->\n")
        rc, _, err = self.run_pages("--check", "--facts-bin", self.fake_facts_bin("x\n"))
        self.assertEqual((rc, "docs/page.md:1: a facts region names at most one table" in err), (2, True), err)

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
        said = ("in a balanced order (each kernel's turn follows each other kernel's equally often over each whole"
                " cycle of rounds)")
        for run, balanced in ((plain, False), ({**plain, "kernel_order": "balanced"}, True)):
            captions = (plot_results.table(run, rows, shapes).splitlines()[0],
                        plot_results.step_table(run, rows, shapes, LADDER[1], [LADDER[0]]).splitlines()[0])
            for caption in captions:
                self.assertEqual(said in caption, balanced, caption)
            if balanced:
                self.assertIn(f"in {run['rounds']} interleaved rounds {said} after", captions[0])

    def write_sweep(self, runs=({}, {"date_utc": "2026-12-04T01:00:00Z"})):
        """The small sweep into the scratch results, with one run's json per entry of runs (changes to RUN_JSON)."""
        results = self.root / "docs" / "results"
        (results / "sweep.csv").write_text(SWEEP_CSV)
        (results / "sweep_steps.csv").write_text(SWEEP_STEPS_CSV)
        (results / "sk_knobs.csv").write_text(SK_KNOBS_CSV)
        shutil.rmtree(results / "sweep_runs", ignore_errors=True)
        (results / "sweep_runs").mkdir()
        for i, changes in enumerate(runs):
            (results / "sweep_runs" / f"run{i + 1}.json").write_text(json.dumps({**RUN_JSON, **changes}))
        page = self.root / "docs" / "page.md"
        page.write_text(SWEEP_PAGE)
        return page

    def test_sweep_regions_render_from_the_results(self):
        page = self.write_sweep()
        rc, _, err = self.run_pages("--write")
        self.assertEqual(rc, 0, err)
        text = page.read_text()
        # The caption: the runs, their dates, the knobs they ran with.
        self.assertIn("2 runs of `hgemm_bench --sweep`", text)
        self.assertIn("on 2026-12-03, 2026-12-04:", text)
        self.assertIn("`--sk-min-share 4 --sk-rounds 1 --sk-min-saving 10 --sk-part-cost 2` and no limit on "
                      "splitting every tile (the runs predate `--sk-full-split-max`)", text)
        # Per step: the variant has no step before it; a row of fewer than three runs is marked as no claim.
        self.assertIn(f"| {S10} | burst | 3 | 2 | 84.5% | 70.0% | M1 attn 512x4096x4096 | {S9} | 1 | 1 | 0 |", text)
        self.assertIn(f"| {SPLIT} &Dagger; | burst | 2 | 2 | 78.6% | 58.0% | M1 attn 512x4096x4096 |  |  |  |  |",
                      text)
        self.assertIn("&Dagger; Fewer than 3 runs", text)
        # Per shape: the variant against step 9 by the spread rule, step 10 by sweep.csv's own verdict.
        self.assertIn("| model, layer | shape | method | step 9 | step 10 | vs step 9 | step 10+split | vs step 9 |",
                      text)
        self.assertIn("| M1, attn | 512 x 4096 x 4096 | burst | 60.0% (59.5 to 60.5) | 70.0% (69.5 to 70.5) | win | "
                      "58.0% (57.8 to 58.2) | loss |", text)
        self.assertIn("| M1, mlp | 2048 x 4096 x 4096 | burst | 99.0% (98.9 to 99.1) | 98.9% (98.8 to 99.0) | loss | "
                      "99.1% (99.0 to 99.2) | tie |", text)
        # The grid of candidates: a loss where there is one, else the mean change; the choice in bold.
        self.assertIn("| min_saving | part cost 0 | part cost 2 |", text)
        self.assertIn("| 0 | loss 3.3% (2) | loss 3.3% (2) |", text)
        self.assertIn("| 5 | +0.0% (0) | **+0.0% (0)** |", text)
        self.assertIn("Chosen: `--sk-min-saving 5 --sk-part-cost 2`, worst loss 0.0%", text)
        self.assertEqual(self.run_pages("--check")[0], 0)
        # A run that records the limit says so.
        knobs = {**RUN_JSON["stream_k"], "full_split_max_pct": 60}
        page = self.write_sweep(runs=({"stream_k": knobs},))
        self.assertEqual(self.run_pages("--write")[0], 0)
        self.assertIn("--sk-part-cost 2 --sk-full-split-max 60`;", page.read_text())

    def test_a_sweep_region_renders_the_sweep_its_dir_names(self):
        # The forced sweep in docs/results/sweep_forced, the default one in docs/results.
        self.write_sweep()
        results = self.root / "docs" / "results"
        forced = results / "sweep_forced"
        forced.mkdir()
        for name in ("sweep.csv", "sweep_steps.csv", "sweep_runs"):
            (results / name).rename(forced / name)
        (results / "sweep.csv").write_text(DEFAULT_SWEEP_CSV)
        (results / "sweep_steps.csv").write_text(DEFAULT_SWEEP_STEPS_CSV)
        (results / "sweep_runs").mkdir()
        for i in range(3):
            (results / "sweep_runs" / f"run{i + 1}.json").write_text(
                json.dumps({**RUN_JSON, "stream_k": DEFAULT_KNOBS, "sk_forced": False}))
        page = self.root / "docs" / "page.md"
        page.write_text("<!-- sweep:begin steps -->\n<!-- sweep:end -->\n\n"
                        "<!-- sweep:begin shapes step10_stream_k -->\n<!-- sweep:end -->\n\n"
                        "<!-- sweep:begin shapes step10_stream_k+split dir=sweep_forced -->\n<!-- sweep:end -->\n")
        rc, _, err = self.run_pages("--write")
        self.assertEqual(rc, 0, err)
        default, shapes, forced_shapes, _ = page.read_text().split("<!-- sweep:end -->")
        # Without dir=: docs/results, its runs and knobs, its medians.
        self.assertIn("3 runs of `hgemm_bench --sweep` (`docs/results/sweep_runs/`)", default)
        self.assertIn("--sk-min-saving 4 --sk-part-cost 2 --sk-full-split-max 60`.", default)
        self.assertIn(f"| {S10} | burst | 3 | 1 | 71.0% | 71.0% | M1 attn 512x4096x4096 | {S9} | 1 | 0 | 0 |", default)
        self.assertNotIn("sweep_forced", default)
        # A shape every kernel of the table skipped is left out, and the caption says so.
        self.assertIn("| M1, attn | 512 x 4096 x 4096 | burst | 60.0% (59.5 to 60.5) | 71.0% (70.5 to 71.5) | win |",
                      shapes)
        self.assertNotIn("1000 x 4096 x 4096", shapes)
        self.assertIn("Left out: the 1 shapes of the sweep that every one of these kernels skipped", shapes)
        # With dir=sweep_forced: that folder's runs, knobs and rows, the forced split among them.
        self.assertIn("(`docs/results/sweep_forced/sweep_runs/`)", forced_shapes)
        self.assertIn("from `docs/results/sweep_forced/sweep.csv`", forced_shapes)
        self.assertIn("--sk-min-saving 10 --sk-part-cost 2` and no limit on splitting every tile", forced_shapes)
        self.assertIn("| M1, attn | 512 x 4096 x 4096 | burst | 60.0% (59.5 to 60.5) | 70.0% (69.5 to 70.5) | win | "
                      "58.0% (57.8 to 58.2) | loss |", forced_shapes)
        self.assertNotIn("Left out", forced_shapes)
        self.assertEqual(self.run_pages("--check")[0], 0)
        # The default sweep has no forced split: without dir= the same region is an error.
        page.write_text("<!-- sweep:begin shapes step10_stream_k+split -->\n<!-- sweep:end -->\n")
        rc, _, err = self.run_pages("--check")
        self.assertEqual((rc, "has no rows of step10_stream_k+split" in err), (2, True), err)
        # A folder that is not there, a path instead of a folder's name, dir= alone.
        for args, want in ((" steps dir=nowhere", "dir=nowhere: "), (" steps dir=../results", "name one folder"),
                           (" shapes dir=sweep_forced", "a sweep region is"),
                           (" dir=sweep_forced steps", "a sweep region is")):
            page.write_text(f"<!-- sweep:begin{args} -->\n<!-- sweep:end -->\n")
            rc, _, err = self.run_pages("--check")
            self.assertEqual((rc, "docs/page.md:1: " in err, want in err), (2, True, True), err)

    def test_sweep_region_errors(self):
        page = self.write_sweep()
        (self.root / "docs" / "results" / "sk_knobs.csv").unlink()
        rc, _, err = self.run_pages("--check")
        self.assertEqual(rc, 2)
        self.assertIn("docs/page.md:13: a sweep region needs ", err)
        self.assertIn("sk_knobs.csv, which does not exist: run tools/choose_sk_knobs.py", err)
        self.write_sweep(runs=({}, {"iters": 100}))
        rc, _, err = self.run_pages("--check")
        self.assertEqual(rc, 2)
        self.assertIn("run2.json has iters=100 but", err)
        self.assertIn("the runs of one summary must be alike", err)
        self.write_sweep(runs=())
        rc, _, err = self.run_pages("--check")
        self.assertEqual((rc, "docs/page.md:3: a sweep region needs the runs' metadata" in err), (2, True), err)
        self.write_sweep()
        usage, unknown = "a sweep region is", "has no rows of step99_none"
        for args, want in (("", usage), (" shapes", usage), (" steps extra", usage), (" shapes step99_none", unknown),
                           (" tiles", "has no rows of step11_fitted_tile+MxN: a tiles region needs a sweep with --tiles"),
                           (" price", "tile_price.csv, which does not exist: run tools/choose_tile_price.py"),
                           (" price extra", usage)):
            page.write_text(f"<!-- sweep:begin{args} -->\n<!-- sweep:end -->\n")
            rc, _, err = self.run_pages("--check")
            self.assertEqual((rc, "docs/page.md:1: " in err, want in err), (2, True, True), err)

    def test_payoff_table_renders_from_the_registry_and_the_run(self):
        text = payoff_tables.payoff_table(ENTRIES, PAYOFF, LADDER_META, LADDER_ROWS, LINK)
        self.assertIn("at 256 x 256 x 256 under the **sustained** timing method (and its % of cuBLAS under "
                      "**burst**)", text)
        self.assertIn("on one GPU X on 2026-01-02", text)
        self.assertIn("Not timed: step 1, whose kernels", text)
        self.assertIn("| step | the idea | what it bought | TFLOP/s, sustained | % of cuBLAS, sustained | "
                      "% of cuBLAS, burst |", text)
        self.assertIn("| <step1_a|step 1> | idea one | bought one | not timed |  |  |", text)
        self.assertIn("| <step2_b|step 2> | idea two | bought two | 80.0 | 88.9% | 101.0% &dagger; |", text)
        self.assertIn("| <step3_c|step 3> | idea three | slower in burst | 80.0 | 88.9% | 90.9% |", text)
        self.assertIn("&dagger; Above 100%", text)

    def test_an_untimed_step_after_the_timed_ones_is_not_yet_in_the_benchmark(self):
        later = ENTRIES + [{"name": "step4_d", "what": "idea four", "bought": "bought four", "unsolved": "left four",
                            "contract": "c four", "label": "four", "rule": "kAny", "ladder": False}]
        text = payoff_tables.payoff_table(later, PAYOFF, LADDER_META, LADDER_ROWS, LINK)
        self.assertIn("Not timed: step 1, whose kernels compute one output tile", text)
        self.assertIn("Not in these runs: step 4, not a ladder step (steps.json's ladder), so these runs do not time it.", text)
        self.assertIn("| <step4_d|step 4> | idea four | bought four | not in these runs |  |  |", text)

    def test_a_dip_must_say_slower(self):
        quiet = [dict(e, bought="bought three") if e["name"] == "step3_c" else e for e in ENTRIES]
        for table in (lambda: payoff_tables.payoff_table(quiet, PAYOFF, LADDER_META, LADDER_ROWS, LINK),
                      lambda: payoff_tables.group_table(quiet, PAYOFF, LADDER_ROWS, "step1_a", "step3_c", LINK, "")):
            with self.assertRaises(payoff_tables.TableError) as e:
                table()
            self.assertIn("step3_c runs at 90.0 TFLOP/s against 100.0 for step2_b at 256 x 256 x 256 under burst, "
                          "but its \"bought\" in steps.json does not say 'slower'", str(e.exception))
        # Level within 1% is no dip.
        level = [dict(r, tflops="99.5") if (r["step"], r["method"]) == ("step3_c", "burst") else r
                 for r in LADDER_ROWS]
        payoff_tables.payoff_table(quiet, PAYOFF, LADDER_META, level, LINK)

    def test_payoff_missing_step_or_shape_is_named(self):
        for payoff, rows, want in (
                (((512, 512, 512), "sustained"), LADDER_ROWS, "no row of step3_c at 512 x 512 x 512 under sustained"),
                (PAYOFF, [r for r in LADDER_ROWS if r["step"] != "step2_b"], "no row of step2_b at 256 x 256 x 256")):
            with self.assertRaises(payoff_tables.TableError) as e:
                payoff_tables.payoff_table(ENTRIES, payoff, LADDER_META, rows, LINK)
            self.assertIn(want, str(e.exception))
            self.assertIn("set steps.json's payoff to a shape and method every ladder step ran", str(e.exception))

    def test_group_table(self):
        text = payoff_tables.group_table(ENTRIES, PAYOFF, LADDER_ROWS, "step1_a", "step3_c", LINK, "THE TABLE")
        self.assertIn("Step 1, step 2 and step 3 in one table: what each computes", text)
        self.assertIn("under the sustained timing method, as in THE TABLE)", text)
        self.assertIn("| <step1_a|step 1> | one output tile, one K tile | nothing: the first step | c one | "
                      "bought one | left one |", text)
        self.assertIn("| <step3_c|step 3> | all of D | the kernel of <step2_b|step 2> (two) and its contracts | "
                      "c three | slower in burst (88.9% of cuBLAS) | left three |", text)
        one = payoff_tables.group_table(ENTRIES, PAYOFF, LADDER_ROWS, "step2_b", "step2_b", LINK, "")
        self.assertEqual(one.count("\n| <"), 1)
        self.assertIn("Step 2 in one table: what it computes", one)
        for first, last, want in (("step3_c", "step1_a", "step3_c comes after step1_a"),
                                  ("step1_a", "step9_x", "step9_x is not a step of steps.json")):
            with self.assertRaises(payoff_tables.TableError) as e:
                payoff_tables.group_table(ENTRIES, PAYOFF, LADDER_ROWS, first, last, LINK, "")
            self.assertIn(want, str(e.exception))

    def test_payoff_and_group_regions_on_a_page(self):
        steps = registry.steps()
        page = self.root / "docs" / "page.md"
        page.write_text(f"<!-- payoff:begin -->\n<!-- payoff:end -->\n\n<!-- group:begin {steps[0]} {steps[2]} -->\n"
                        "<!-- group:end -->\n")
        rc, _, err = self.run_pages("--write")
        self.assertEqual(rc, 0, err)
        text = page.read_text()
        self.assertEqual(text.count(f'| \\ref {steps[0]} "step 1" |'), 2)  # a row in each table, linked by \\ref
        self.assertIn('as in \\ref main_payoff "the payoff table")', text)
        for args, want in (("", "a group region is"), (" a b c", "a group region is"),
                           (" step99_none", "step99_none is not a step of steps.json")):
            page.write_text(f"<!-- group:begin{args} -->\n<!-- group:end -->\n")
            rc, _, err = self.run_pages("--check")
            self.assertEqual((rc, "docs/page.md:1: " in err, want in err), (2, True, True), err)

    def test_registry_refuses_an_unknown_or_missing_field(self):
        real = registry.registry()
        bad = json.loads(json.dumps(real))
        bad["steps"][0]["boughtt"] = bad["steps"][0].pop("bought")
        with mock.patch.object(registry, "registry", return_value=bad):
            problems = registry.check()
        self.assertTrue(any(p.startswith(f"{bad['steps'][0]['name']}: no field bought; unknown field boughtt")
                            for p in problems), problems)
        bad = json.loads(json.dumps(real))
        bad["payoff"]["method"] = "warm"
        with mock.patch.object(registry, "registry", return_value=bad):
            self.assertTrue(any("payoff must be" in p for p in registry.check()))


if __name__ == "__main__":
    unittest.main()
