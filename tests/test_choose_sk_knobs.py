#!/usr/bin/env python3
"""CPU test of tools/choose_sk_knobs.py, which chooses step 10's split thresholds from the sweep's medians.

    python3 tests/test_choose_sk_knobs.py SK_PLAN        (CTest: sk_knobs/chooser; SK_PLAN: the built sk_plan)

A synthetic sweep.csv (sweep_summary's columns, three runs' medians, burst and sustained) of four shapes that step
10 runs, and one it skips: at WIN and BIG the forced split beats step 9 beyond the spread, at LOSS (planted) it
loses beyond the spread, at TIE its median is lower but within the spread. Where each candidate splits comes from
sk_plan itself (the kernels' plan_stream_k), so the right answer is known: the choice must not split at LOSS and
must split at WIN, although the candidates that split at BIG (all of which split at LOSS too) have the best median
and mean gains; every candidate that splits at LOSS has the planted loss as its worst; TIE costs nothing.
Also: a sweep.csv without the forced split's rows (the sweep with the knobs at their defaults), and fewer than
three runs, are refused; and without --sweep the chooser reads the committed forced sweep
(docs/results/sweep_forced/sweep.csv) and makes of it the committed docs/results/sk_knobs.csv, byte for byte.
Python standard library only.
"""
import contextlib
import csv
import io
import pathlib
import subprocess
import sys
import unittest

from tempdir_test import TempDirTest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import choose_sk_knobs  # noqa: E402  (found through the path set just above)
import sweep_summary  # noqa: E402

SK_PLAN = None  # set from the command line
WORKERS = 66
# At 66 workers: WIN splits under most of the grid, LOSS (a saving near 10%) only at small thresholds, BIG (3%) at
# the smallest only, TIE under many.
# The limit on splitting every tile is lifted: the fixture's LOSS splits every tile, and the test is about the
# choice between (min_saving, part_cost) candidates.
NO_FULL_LIMIT = ["--full-split-max", "1000"]
WIN, LOSS, TIE, BIG = (512, 4096, 4096), (2048, 3584, 3584), (512, 4608, 3584), (4096, 4096, 4096)
SKIPPED = (1000, 4096, 4096)
S9, SPLIT = choose_sk_knobs.NO_SPLIT, choose_sk_knobs.SPLIT
# % of cuBLAS: (median, min, max) over three runs, per shape and step.
PCTS = {WIN: {S9: (80.0, 79.5, 80.5), SPLIT: (90.0, 89.5, 90.5)},     # +12.5%, beyond the spread
        LOSS: {S9: (90.0, 89.8, 90.2), SPLIT: (85.5, 85.3, 85.7)},    # -5%, beyond the spread
        TIE: {S9: (90.0, 88.0, 92.0), SPLIT: (89.0, 87.5, 90.5)},     # lower, within the spread
        BIG: {S9: (80.0, 79.5, 80.5), SPLIT: (104.0, 103.5, 104.5)}}  # +30%, beyond the spread


def sweep_rows(pcts=PCTS, runs=3, steps=(S9, SPLIT)):
    rows = []
    for method in ("burst", "sustained"):
        for (m, n, k), by_step in list(pcts.items()) + [(SKIPPED, {})]:
            for step in steps:
                row = {c: "" for c in sweep_summary.SHAPE_COLUMNS}
                row.update(model="M1", layer="L", m=m, n=n, k=k, method=method, step=step, runs=0, source="cfg")
                if step in by_step:
                    med, lo, hi = by_step[step]
                    row.update(runs=runs, pct_cublas_median=med, pct_cublas_min=lo, pct_cublas_max=hi)
                else:
                    row["note"] = "skipped: M must be a multiple of 128 (BLK_M), got M=1000"
                rows.append(row)
    return rows


class ChooseSkKnobsTest(TempDirTest):
    def choose(self, rows):
        """(exit code, stdout, stderr, sk_knobs.csv rows keyed by (min_saving, part_cost))."""
        sweep = self.dir / "sweep.csv"
        sweep_summary.write_csv(sweep, rows, sweep_summary.SHAPE_COLUMNS)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = choose_sk_knobs.main(["--sk-plan", SK_PLAN, "--workers", str(WORKERS), "--sweep", str(sweep),
                                       "--out", str(self.dir / "sk_knobs.csv")] + NO_FULL_LIMIT)
        knobs = {}
        if rc == 0:
            with open(self.dir / "sk_knobs.csv") as f:
                knobs = {(int(r["min_saving"]), int(r["part_cost"])): r for r in csv.DictReader(f)}
        return rc, out.getvalue(), err.getvalue(), knobs

    def splits_at(self):
        """{(min_saving, part_cost): the shapes it splits}, from sk_plan on the same shapes."""
        shapes = self.dir / "shapes.csv"
        shapes.write_text("m,n,k\n" + "".join("%d,%d,%d\n" % s for s in PCTS))
        out = subprocess.run([SK_PLAN, "--shapes", str(shapes), "--workers", str(WORKERS)] + NO_FULL_LIMIT, check=True,
                             capture_output=True, text=True).stdout
        at = {}
        for r in csv.DictReader(io.StringIO(out)):
            at.setdefault((int(r["min_saving"]), int(r["part_cost"])), set())
            if r["split"] == "1":
                at[(int(r["min_saving"]), int(r["part_cost"]))].add((int(r["m"]), int(r["n"]), int(r["k"])))
        return at

    def test_the_choice_avoids_the_planted_loss_and_keeps_the_win(self):
        at = self.splits_at()
        # The fixture means something only if the grid has candidates on both sides of LOSS and of TIE, and the
        # gains alone would choose a candidate that splits at LOSS (one that splits at BIG).
        self.assertTrue(any(LOSS not in s and WIN in s for s in at.values()))
        self.assertTrue(any(TIE in s and LOSS not in s for s in at.values()))
        self.assertTrue(any(BIG in s for s in at.values()))
        self.assertTrue(all(LOSS in s for s in at.values() if BIG in s))
        rc, out, err, knobs = self.choose(sweep_rows())
        self.assertEqual(rc, 0, err)
        self.assertEqual(set(knobs), set(at))
        chosen = [key for key, r in knobs.items() if r["chosen"] == "1"]
        self.assertEqual(len(chosen), 1)
        self.assertNotIn(LOSS, at[chosen[0]])
        self.assertIn(WIN, at[chosen[0]])
        self.assertEqual(knobs[chosen[0]]["worst_loss_pct"], "0.0")
        self.assertIn("chosen: --sk-min-saving %d --sk-part-cost %d" % chosen[0], out)
        big = next(key for key, split in at.items() if BIG in split)
        self.assertGreater(float(knobs[big]["median_gain_pct"]), float(knobs[chosen[0]]["median_gain_pct"]))
        for key, split in at.items():
            r = knobs[key]
            self.assertEqual(r["shapes_split"], str(len(split)))
            self.assertEqual(r["worst_loss_pct"], "5.0" if LOSS in split else "0.0")  # TIE is no loss
            # Eight values (four shapes, two methods): WIN's +12.5 twice where it splits, BIG's +30, LOSS's -5.
            mean = 2 * (12.5 * (WIN in split) + 30.0 * (BIG in split) - 5.0 * (LOSS in split)) / 8
            self.assertAlmostEqual(float(r["mean_gain_pct"]), mean, places=1)

    def test_without_the_forced_split_rows_it_is_refused(self):
        rc, _, err, _ = self.choose(sweep_rows(steps=(S9,)))
        self.assertEqual(rc, 2)
        self.assertIn("no rows of step10_stream_k+split: give --sweep the sweep.csv of runs of hgemm_bench --sweep "
                      "with --sk-forced", err)

    def test_by_default_the_committed_forced_sweep_gives_the_committed_choice(self):
        out = self.dir / "sk_knobs.csv"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = choose_sk_knobs.main(["--sk-plan", SK_PLAN, "--workers", str(WORKERS), "--out", str(out)])
        self.assertEqual(rc, 0, err.getvalue())
        self.assertEqual(out.read_text(), (ROOT / "docs" / "results" / "sk_knobs.csv").read_text(),
                         "docs/results/sk_knobs.csv is not what tools/choose_sk_knobs.py makes of the forced sweep: "
                         "run it again (docs/lab_step10_stream_k.md says how)")

    def test_fewer_than_three_runs_are_refused(self):
        rc, _, err, _ = self.choose(sweep_rows(runs=2))
        self.assertEqual(rc, 2)
        self.assertIn("2 run(s); a choice rests on the medians of at least 3", err)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_choose_sk_knobs.py SK_PLAN (the built sk_plan binary)")
    SK_PLAN = sys.argv.pop(1)
    unittest.main()
