#!/usr/bin/env python3
"""CPU test of tools/ladder_median.py, which combines whole runs of hgemm_bench into the ladder the pages show.

    python3 -m unittest tests/test_ladder_median.py        (CTest: ladder/median)

Every case writes synthetic run directories (hgemm_bench's ladder.csv and ladder.json, a power.csv and a
samples.csv) into a temporary directory and runs the tool's command line on them: each row's median time, its
TFLOP/s and % of peak from that median, the median, least and largest % of cuBLAS, and the run count (the
values planted so that a mean, the first run or the last one gives another answer); a kernel that failed
verification in one run; the metadata, the runs kept as they came, the power logs one after the other and the
first run's samples; fewer than three runs refused (exit 2) unless --allow-fewer; a run with other rows, other
metadata or a missing file refused with a message naming that run's file. Python standard library only.
"""
import contextlib
import csv
import io
import json
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ladder_median  # noqa: E402  (found through the path set just above)

HEADER = ["m", "n", "k", "step", "what", "method", "verified", "max_abs_err", "median_ms", "p10_ms", "p90_ms",
          "tflops", "pct_cublas", "pct_peak"]
SHAPE = (4096, 4096, 4096)
FLOP = 2.0 * SHAPE[0] * SHAPE[1] * SHAPE[2]
PEAK = 1000.0  # TFLOP/s: each run's pct_peak is its tflops in % of this
S9 = "step9_multi_consumer"
# Per run: step 9's median, p10 and p90 times (ms) and, by method, % of cuBLAS. No column's median (1.1, 1.0,
# 1.25, 90) is its mean or the first run's value (the row the tool starts from), the last run holds only some of
# them, and the first run's % of cuBLAS is neither the least nor the largest under one method or the other.
TIMES = [(2.0, 1.05, 1.3), (1.1, 0.9, 1.25), (1.0, 1.0, 1.15)]
PCTS = {"burst": [80.0, 90.0, 95.0], "sustained": [95.0, 80.0, 90.0]}


def tflops(ms):
    return FLOP / (ms * 1e-3) / 1e12


def bench_row(step, method, ms, p10, p90, pct, verified=1):
    t = tflops(ms) if verified else 0.0
    return {"m": SHAPE[0], "n": SHAPE[1], "k": SHAPE[2], "step": step, "what": "x, y", "method": method,
            "verified": verified, "max_abs_err": 0.125, "median_ms": "%.5f" % (ms if verified else 0.0),
            "p10_ms": "%.5f" % p10, "p90_ms": "%.5f" % p90, "tflops": "%.1f" % t, "pct_cublas": "%.1f" % pct,
            "pct_peak": "%.1f" % (100.0 * t / PEAK)}


def run_rows(i, step9_verified=1):
    """Run i's rows: step 9 as TIMES and PCTS plant it, cuBLAS at 1 ms, under both methods."""
    rows = []
    for method in ("burst", "sustained"):
        ms, p10, p90 = TIMES[i]
        rows.append(bench_row(S9, method, ms, p10, p90, PCTS[method][i], step9_verified))
        rows.append(bench_row("cublas", method, 1.0, 0.9, 1.1, 100.0))
    return rows


def meta(i, **changes):
    m = {"gpu": "NVIDIA H200", "sm_count": 132, "kernel": "sm90", "driver": "580.0", "cuda_runtime": "13.0",
         "cublas": "13.1.0", "iters": 100, "rounds": 10, "warmup": 10, "kernel_order": "balanced",
         "methods": {"burst": {"settle_ms": 0}, "sustained": {"settle_ms": 50}}, "steps": [S9],
         "stream_k": {"min_share": 4}, "date_utc": "2026-12-0%dT00:00:00Z" % (i + 1), "csv": "ladder.csv"}
    m.update(changes)
    return m


class Fixture:
    """Run directories in a temporary directory, and the tool's command line on them."""

    def __init__(self, tmp):
        self.dir = pathlib.Path(tmp)
        self.out = self.dir / "out"

    def run_dir(self, i, rows=None, metadata=None, skip=()):
        d = self.dir / ("run%d" % (i + 1))
        d.mkdir()
        if "ladder.csv" not in skip:
            with open(d / "ladder.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=HEADER, lineterminator="\n")
                w.writeheader()
                w.writerows(run_rows(i) if rows is None else rows)
        if "ladder.json" not in skip:
            (d / "ladder.json").write_text(json.dumps(meta(i) if metadata is None else metadata))
        (d / "power.csv").write_text("time,clock\nt%d,1980 MHz\n" % i)
        (d / "samples.csv").write_text("m,step,ms\n4096,cublas,%d\n" % i)
        return str(d)

    def runs(self, n=3):
        return [self.run_dir(i) for i in range(n)]

    def combine(self, dirs, *flags):
        """(exit code, stdout, stderr, ladder.csv rows keyed by (step, method), ladder.json)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = ladder_median.main(list(dirs) + ["--out", str(self.out)] + list(flags))
        rows, combined = {}, None
        if rc == 0:
            with open(self.out / "ladder.csv") as f:
                rows = {(r["step"], r["method"]): r for r in csv.DictReader(f)}
            combined = json.loads((self.out / "ladder.json").read_text())
        return rc, out.getvalue(), err.getvalue(), rows, combined


class LadderMedianTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.f = Fixture(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_each_row_is_the_median_of_the_runs(self):
        rc, out, _, rows, _ = self.f.combine(self.f.runs())
        self.assertEqual(rc, 0)
        self.assertIn("the median of 3 runs", out)
        for method in ("burst", "sustained"):
            r = rows[(S9, method)]
            self.assertEqual((r["median_ms"], r["p10_ms"], r["p90_ms"]), ("1.10000", "1.00000", "1.25000"))
            self.assertEqual(r["tflops"], "%.1f" % tflops(1.1))
            self.assertEqual(r["pct_peak"], "%.1f" % (100.0 * float(r["tflops"]) / PEAK))
            self.assertEqual((r["pct_cublas"], r["pct_cublas_min"], r["pct_cublas_max"]), ("90.0", "80.0", "95.0"))
            self.assertEqual((r["runs"], r["verified"], r["what"]), ("3", "1", "x, y"))
            self.assertEqual(rows[("cublas", method)]["pct_cublas"], "100.0")

    def test_another_tools_csv_keyed_by_variant(self):
        """--csv dips.csv: hg_dips_bench's runs (a variant column, no JSON) combine the same way."""
        dirs = []
        for i in range(3):
            d = self.f.dir / ("dips%d" % (i + 1))
            d.mkdir()
            rows = [dict({("variant" if k == "step" else k): v for k, v in r.items()}) for r in run_rows(i)]
            with open(d / "dips.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=["variant" if h == "step" else h for h in HEADER],
                                   lineterminator="\n")
                w.writeheader()
                w.writerows(rows)
            (d / "dips_samples.csv").write_text("m,variant,ms\n4096,cublas,%d\n" % i)
            dirs.append(str(d))
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = ladder_median.main(dirs + ["--out", str(self.f.out), "--csv", "dips.csv"])
        self.assertEqual(rc, 0, err.getvalue())
        with open(self.f.out / "dips.csv") as f:
            rows = {(r["variant"], r["method"]): r for r in csv.DictReader(f)}
        self.assertEqual(rows[(S9, "burst")]["median_ms"], "1.10000")
        self.assertEqual(rows[(S9, "sustained")]["pct_cublas"], "90.0")
        self.assertEqual(sorted(p.name for p in (self.f.out / "dips_runs").iterdir()),
                         ["run1.csv", "run2.csv", "run3.csv"])
        self.assertEqual((self.f.out / "dips_samples.csv").read_text(), "m,variant,ms\n4096,cublas,0\n")
        self.assertFalse((self.f.out / "ladder.csv").exists())

    def test_one_run_given_three_times_is_refused(self):
        d = self.f.run_dir(0)
        rc, _, err, _, _ = self.f.combine([d, d, d])
        self.assertEqual(rc, 2)
        self.assertIn("is given twice", err)

    def test_a_kernel_that_failed_verification_in_one_run_keeps_no_time(self):
        dirs = [self.f.run_dir(0), self.f.run_dir(1, rows=run_rows(1, step9_verified=0)), self.f.run_dir(2)]
        rc, _, _, rows, _ = self.f.combine(dirs)
        self.assertEqual(rc, 0)
        r = rows[(S9, "burst")]
        self.assertEqual((r["verified"], r["runs"], r["pct_cublas_min"], r["pct_cublas_max"]), ("0", "0", "", ""))
        # No time survives from the runs that did verify: a tie to this row must not read one.
        self.assertEqual((r["median_ms"], r["tflops"], r["pct_cublas"]), ("0.00000", "0.0", "0.0"))
        self.assertEqual(rows[("cublas", "burst")]["runs"], "3")

    def test_metadata_runs_power_and_samples(self):
        dirs = self.f.runs()
        rc, _, _, _, combined = self.f.combine(dirs)
        self.assertEqual(rc, 0)
        self.assertEqual(combined["runs"], 3)
        self.assertEqual(combined["dates_utc"], [meta(i)["date_utc"] for i in range(3)])
        self.assertEqual(combined["gpu"], "NVIDIA H200")
        for i, d in enumerate(dirs, 1):
            for name in ("csv", "json"):
                self.assertEqual((self.f.out / "ladder_runs" / ("run%d.%s" % (i, name))).read_text(),
                                 (pathlib.Path(d) / ("ladder." + name)).read_text())
        self.assertEqual((self.f.out / "power.csv").read_text(),
                         "time,clock\nt0,1980 MHz\nt1,1980 MHz\nt2,1980 MHz\n")
        self.assertEqual((self.f.out / "samples.csv").read_text(),
                         (pathlib.Path(dirs[0]) / "samples.csv").read_text())

    def test_fewer_than_three_runs_are_refused_unless_allowed(self):
        dirs = self.f.runs(2)
        rc, _, err, _, _ = self.f.combine(dirs)
        self.assertEqual(rc, 2)
        self.assertIn("2 run(s) given: a comparison needs the median of at least three whole runs", err)
        self.assertIn("--allow-fewer", err)
        self.assertFalse((self.f.out / "ladder.csv").exists())
        rc, _, _, rows, combined = self.f.combine(dirs, "--allow-fewer")
        self.assertEqual(rc, 0)
        self.assertEqual((rows[(S9, "burst")]["runs"], combined["runs"]), ("2", 2))

    def test_a_run_with_other_rows_is_refused_with_its_file(self):
        other = [r for r in run_rows(2) if r["method"] == "burst"]
        dirs = [self.f.run_dir(0), self.f.run_dir(1), self.f.run_dir(2, rows=other)]
        rc, _, err, _, _ = self.f.combine(dirs)
        self.assertEqual(rc, 2)
        self.assertIn(dirs[2] + "/ladder.csv holds other rows than " + dirs[0] + "/ladder.csv", err)
        self.assertFalse((self.f.out / "ladder.csv").exists())

    def test_a_run_with_other_metadata_is_refused_with_its_file(self):
        dirs = [self.f.run_dir(0), self.f.run_dir(1, metadata=meta(1, iters=200)), self.f.run_dir(2)]
        rc, _, err, _, _ = self.f.combine(dirs)
        self.assertEqual(rc, 2)
        self.assertIn(dirs[1] + "/ladder.json: iters is 200, the first run's 100", err)

    def test_a_run_without_its_files_is_refused_with_the_path(self):
        dirs = [self.f.run_dir(0), self.f.run_dir(1), self.f.run_dir(2, skip=("ladder.json",))]
        rc, _, err, _, _ = self.f.combine(dirs)
        self.assertEqual(rc, 2)
        self.assertIn(dirs[2] + "/ladder.json does not exist", err)


if __name__ == "__main__":
    unittest.main()
