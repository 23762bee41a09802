#!/usr/bin/env python3
"""CPU test of tools/sweep_summary.py, which combines runs of hgemm_bench --sweep.

    python3 -m unittest tests/test_sweep_summary.py        (CTest: sweep/summary)

Every case writes synthetic sweep_run.csv files (the bench's columns; cuBLAS at 1 ms, so a kernel at P % of
cuBLAS takes 100 / P ms) into a temporary directory and runs the tool's command line on them: a win beyond the
spread counts, a win within it (planted: the medians differ, the ranges are wider) is a tie; a loss; the median
and the worst shape per step; a skipped shape; a failed verification; the previous step when the runs skip
one; a step outside the ladder against the step before it; a variant (step10_stream_k+split) with its medians
but outside the chain of previous steps, and one of no step refused; fewer than three runs refused unless
--allow-fewer; a missing column, runs that differ and a run given twice refused. Python standard library only.
"""
import contextlib
import csv
import io
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sweep_summary  # noqa: E402  (found through the path set just above)

HEADER = ["m", "n", "k", "step", "what", "method", "verified", "max_abs_err", "median_ms", "p10_ms", "p90_ms",
          "tflops", "pct_cublas", "pct_peak", "model", "layer", "source", "skipped"]
S9, S10 = "step9_multi_consumer", "step10_stream_k"


def run_rows(shapes, method="burst"):
    """The rows of one run: shapes is [((m, n, k), {step: pct, or None for failed, or 'skip: why'})]."""
    rows = []
    for (m, n, k), steps in shapes:
        for step, pct in list(steps.items()) + [("cublas", 100.0)]:
            skipped = pct[len("skip: "):] if isinstance(pct, str) else ""
            timed = not skipped and pct is not None
            rows.append({"m": m, "n": n, "k": k, "step": step, "what": "x, y", "method": method,
                         "verified": 1 if timed else 0, "max_abs_err": 0,
                         "median_ms": "%.5f" % (100.0 / pct) if timed else "0.00000", "p10_ms": 0, "p90_ms": 0,
                         "tflops": 0, "pct_cublas": 0, "pct_peak": 0, "model": "M1", "layer": "L%d" % m,
                         "source": "cfg.json", "skipped": skipped})
    return rows


class Fixture:
    """Run files in a temporary directory, and the tool's command line on them."""

    def __init__(self, tmp):
        self.dir = pathlib.Path(tmp)
        self.count = 0

    def run_file(self, rows, header=HEADER):
        self.count += 1
        path = self.dir / ("run%d.csv" % self.count)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore", lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        return str(path)

    def runs(self, per_run):
        """One file per run; per_run: [shapes of run 1, shapes of run 2, ...] as run_rows takes them."""
        return [self.run_file(run_rows(shapes)) for shapes in per_run]

    def summarize(self, files, *flags):
        """(exit code, stdout, stderr, sweep.csv rows, sweep_steps.csv rows)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = sweep_summary.main(list(files) + ["--out", str(self.dir / "out")] + list(flags))
        shapes = steps = []
        if rc == 0:
            with open(self.dir / "out" / "sweep.csv") as f:
                shapes = list(csv.DictReader(f))
            with open(self.dir / "out" / "sweep_steps.csv") as f:
                steps = list(csv.DictReader(f))
        return rc, out.getvalue(), err.getvalue(), shapes, steps


def one_shape(pct9, pct10, shape=(512, 4096, 4096)):
    """Three runs of one shape: step 9 and step 10 at the given % of cuBLAS, run by run."""
    return [[(shape, {S9: a, S10: b})] for a, b in zip(pct9, pct10)]


def row(rows, step, m=512):
    return next(r for r in rows if r["step"] == step and int(r["m"]) == m)


def step_row(steps, step):
    return next(s for s in steps if s["step"] == step)


class SweepSummaryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.f = Fixture(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_win_beyond_the_spread_counts(self):
        rc, out, _, shapes, steps = self.f.summarize(self.f.runs(one_shape([90, 91, 90.5], [95, 96, 95.5])))
        self.assertEqual(rc, 0)
        r = row(shapes, S10)
        self.assertEqual((r["runs"], r["pct_cublas_median"], r["pct_cublas_min"], r["pct_cublas_max"]),
                         ("3", "95.5", "95.0", "96.0"))
        self.assertEqual((r["previous"], r["vs_previous"]), (S9, "win"))
        self.assertEqual(row(shapes, S9)["vs_previous"], "")  # the first step timed has nothing to compare with
        s = step_row(steps, S10)
        self.assertEqual((s["wins"], s["losses"], s["ties"], s["claims"]), ("1", "0", "0", "yes"))
        self.assertIn(S10, out)

    def test_win_within_the_spread_is_a_tie(self):
        # Planted: step 10's median is 2 points above step 9's, but its own runs range over 5 points.
        pct9, pct10 = [90, 92, 91], [93, 96, 91]
        rc, _, _, shapes, steps = self.f.summarize(self.f.runs(one_shape(pct9, pct10)))
        self.assertEqual(rc, 0)
        r = row(shapes, S10)
        self.assertGreater(float(r["pct_cublas_median"]), float(row(shapes, S9)["pct_cublas_median"]))
        self.assertEqual(r["vs_previous"], "tie")
        s = step_row(steps, S10)
        self.assertEqual((s["wins"], s["losses"], s["ties"]), ("0", "0", "1"))

    def test_a_difference_equal_to_the_spread_is_a_tie(self):
        # Percentages exact in binary (1 ms and 1.25 ms against cuBLAS's 1 ms): medians 80 and 100, ranges 20.
        rc, _, _, shapes, _ = self.f.summarize(self.f.runs(one_shape([80, 100, 80], [100, 80, 100])))
        self.assertEqual(rc, 0)
        self.assertEqual(row(shapes, S10)["vs_previous"], "tie")

    def test_loss_beyond_the_spread(self):
        rc, _, _, shapes, steps = self.f.summarize(self.f.runs(one_shape([95, 95.2, 95.1], [90, 90.5, 90.2])))
        self.assertEqual(rc, 0)
        self.assertEqual(row(shapes, S10)["vs_previous"], "loss")
        self.assertEqual(step_row(steps, S10)["losses"], "1")

    def test_median_and_worst_over_the_shapes(self):
        per_run = [[((512, 4096, 4096), {S9: 90, S10: 99}), ((1024, 4096, 4096), {S9: 90, S10: 80}),
                    ((2048, 4096, 4096), {S9: 90, S10: 95})] for _ in range(3)]
        rc, _, _, _, steps = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        s = step_row(steps, S10)
        self.assertEqual((s["shapes"], s["pct_cublas_median"], s["pct_cublas_worst"], s["worst_shape"]),
                         ("3", "95.0", "80.0", "M1 L1024 1024x4096x4096"))
        self.assertEqual((s["wins"], s["losses"]), ("2", "1"))

    def test_a_skipped_shape_has_its_reason_and_no_numbers(self):
        why = "M must be a multiple of 128 (BLK_M), got M=1000"
        per_run = [[((512, 4096, 4096), {S9: 90, S10: 95}),
                    ((1000, 4096, 4096), {S9: "skip: " + why, S10: "skip: " + why})] for _ in range(3)]
        rc, _, _, shapes, steps = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        r = row(shapes, S10, m=1000)
        self.assertEqual((r["note"], r["runs"], r["pct_cublas_median"], r["vs_previous"]),
                         ("skipped: " + why, "0", "", ""))
        self.assertEqual(row(shapes, "cublas", m=1000)["pct_cublas_median"], "100.0")
        self.assertEqual(step_row(steps, S10)["shapes"], "1")

    def test_a_failed_verification_leaves_that_run_out(self):
        per_run = one_shape([90, 90, 90], [95, None, 96])
        rc, out, _, shapes, steps = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        r = row(shapes, S10)
        self.assertEqual((r["runs"], r["note"], r["pct_cublas_median"]),
                         ("2", "failed verification in run 2", "95.5"))
        self.assertEqual(step_row(steps, S10)["claims"], "no")
        self.assertIn("claims=no", out)

    def test_previous_is_the_step_before_among_those_timed(self):
        per_run = [[((512, 4096, 4096), {"step8_cluster": 90, S10: 95})] for _ in range(3)]
        rc, _, _, shapes, _ = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        self.assertEqual(row(shapes, S10)["previous"], "step8_cluster")

    def test_a_step_outside_the_ladder_compares_with_the_step_before_it(self):
        # Step 11 is no ladder step (steps.json), but it is timed against step 10, the registry's step before it.
        per_run = [[((1000, 4096, 4096), {S10: "skip: M must be a multiple of 128", "step11_fitted_tile": b}),
                    ((512, 4096, 4096), {S10: a, "step11_fitted_tile": b})]
                   for a, b in zip([90, 91, 90.5], [95, 96, 95.5])]
        rc, _, _, shapes, steps = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        r = row(shapes, "step11_fitted_tile")
        self.assertEqual((r["previous"], r["vs_previous"]), (S10, "win"))
        s = step_row(steps, "step11_fitted_tile")
        self.assertEqual((s["shapes"], s["wins"], s["ties"]), ("2", "1", "0"))

    def test_a_variant_has_its_medians_but_no_place_in_the_chain(self):
        # The variant listed first: step 10's previous step is still step 9, and the variant compares with none.
        split = S10 + "+split"
        per_run = [[((512, 4096, 4096), {split: c, S9: a, S10: b})]
                   for a, b, c in zip([90, 91, 90.5], [95, 96, 95.5], [80, 81, 80.5])]
        rc, out, _, shapes, steps = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 0)
        r = row(shapes, split)
        self.assertEqual((r["runs"], r["pct_cublas_median"], r["previous"], r["vs_previous"]), ("3", "80.5", "", ""))
        self.assertEqual((row(shapes, S10)["previous"], row(shapes, S10)["vs_previous"]), (S9, "win"))
        s = step_row(steps, split)
        self.assertEqual((s["previous"], s["wins"], s["losses"], s["ties"]), ("", "0", "0", "0"))
        self.assertIn(split, out)

    def test_a_variant_of_no_ladder_step_is_refused(self):
        per_run = [[((512, 4096, 4096), {S9: 90, "step99_none+split": 95})] for _ in range(3)]
        rc, _, err, _, _ = self.f.summarize(self.f.runs(per_run))
        self.assertEqual(rc, 2)
        self.assertIn("'step99_none+split' is not a step of steps.json", err)

    def test_fewer_than_three_runs_are_refused_unless_allowed(self):
        files = self.f.runs(one_shape([90, 91], [95, 96]))
        rc, _, err, _, _ = self.f.summarize(files)
        self.assertEqual(rc, 2)
        self.assertIn("2 run(s) given: a claim rests on the median of at least 3 whole runs", err)
        self.assertIn("--allow-fewer", err)
        rc, out, _, shapes, steps = self.f.summarize(files, "--allow-fewer")
        self.assertEqual(rc, 0)
        self.assertEqual(step_row(steps, S10)["claims"], "no")
        self.assertIn("claims=no", out)

    def test_a_missing_column_is_refused_with_the_file(self):
        files = self.f.runs(one_shape([90, 91, 90.5], [95, 96, 95.5]))
        files[1] = self.f.run_file(run_rows(one_shape([90], [95])[0]), [c for c in HEADER if c != "skipped"])
        rc, _, err, _, _ = self.f.summarize(files)
        self.assertEqual(rc, 2)
        self.assertIn(files[1] + ": no column skipped", err)

    def test_runs_that_differ_are_refused(self):
        files = self.f.runs(one_shape([90, 91, 90.5], [95, 96, 95.5]))
        files[2] = self.f.run_file(run_rows([((512, 4096, 4096), {S9: 90})]))
        rc, _, err, _, _ = self.f.summarize(files)
        self.assertEqual(rc, 2)
        self.assertIn("lacks 512x4096x4096 step10_stream_k burst", err)

    def test_a_run_given_twice_is_refused(self):
        files = self.f.runs(one_shape([90, 91, 90.5], [95, 96, 95.5]))
        rc, _, err, _, _ = self.f.summarize([files[0], files[1], files[0]])
        self.assertEqual(rc, 2)
        self.assertIn("is given twice", err)


if __name__ == "__main__":
    unittest.main()
