#!/usr/bin/env python3
"""CPU test of tools/bench_log_csv.py, which turns verify binaries' --bench summary lines into a CSV.

    python3 tests/test_bench_log_csv.py        (CTest: bench_log_csv/rows)

Three repetitions of two steps at one shape and method, in two logs with other lines between: each line becomes
its repetition's row in the order run, two forced tiles of one step are kept apart, the median row takes each column's own median (here from different
repetitions), step 10's knobs are kept and step 9 has none; a line that did not verify, a missing field, unequal
or even repetition counts, and logs without a summary line are refused (exit 2) naming the file and line or the
counts. Python standard library only.
"""
import contextlib
import csv
import io
import pathlib
import sys
import unittest

from tempdir_test import TempDirTest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import bench_log_csv  # noqa: E402  (found through the path set just above)

LINE = ('{step} sm90 gpu="GPU X" M=256 N=512 K=1024 init=random seed=1 pipe_depth=4{knobs} max_abs_err=0.1 '
        'bad=0/131072 {verdict} median_ms={ms} p10_ms={p10} p90_ms=0.5000 tflops={tflops} cublas_median_ms=0.2000 '
        'cublas_tflops=1.3 pct_cublas={pct} cublas_check=PASS iters=100 sets=2 method=burst settle_ms=0\n')
KNOBS = " sk_min_share=4 sk_min_saving=4"


def line(step="step9_multi_consumer", ms="0.3000", p10="0.2900", pct="66.7", tflops="0.9", verdict="PASS",
         knobs=""):
    return LINE.format(step=step, ms=ms, p10=p10, pct=pct, tflops=tflops, verdict=verdict, knobs=knobs)


class BenchLogCsvTest(TempDirTest):
    def convert(self, *logs):
        """(exit code, stderr, rows of the CSV) for logs given as texts."""
        paths = []
        for i, text in enumerate(logs):
            paths.append(self.dir / f"log{i}.log")
            paths[-1].write_text(text)
        out, err = self.dir / "out.csv", io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = bench_log_csv.main([str(p) for p in paths] + ["--source", "here, today", "--out", str(out)])
        if rc != 0:
            return rc, err.getvalue(), []
        with open(out, newline="") as f:
            return rc, err.getvalue(), list(csv.DictReader(f))

    def test_repetitions_and_their_medians(self):
        s10 = "step10_stream_k"
        first = ("ab 12 s\n" + line(ms="0.3000", p10="0.2800", pct="66.7")
                 + line(step=s10, ms="0.2500", pct="80.0", knobs=KNOBS))
        rest = (line(ms="0.3200", p10="0.2900", pct="62.5") + line(step=s10, ms="0.2400", pct="83.3", knobs=KNOBS)
                + "a line to pass over\n" + line(ms="0.3100", p10="0.3000", pct="64.5")
                + line(step=s10, ms="0.2600", pct="76.9", knobs=KNOBS))
        rc, err, rows = self.convert(first, rest)
        self.assertEqual(rc, 0, err)
        self.assertEqual(list(rows[0]), bench_log_csv.COLUMNS)
        s9 = [r for r in rows if r["step"] == "step9_multi_consumer"]
        self.assertEqual([(r["kind"], r["rep"], r["median_ms"]) for r in s9],
                         [("run", "1", "0.3000"), ("run", "2", "0.3200"), ("run", "3", "0.3100"),
                          ("median", "", "0.3100")])
        # Each column's own median: median_ms from repetition 3, p10_ms from repetition 2, pct_cublas from 3.
        self.assertEqual((s9[3]["p10_ms"], s9[3]["pct_cublas"]), ("0.2900", "64.5"))
        self.assertEqual((s9[3]["m"], s9[3]["n"], s9[3]["k"], s9[3]["method"], s9[3]["gpu"], s9[3]["source"]),
                         ("256", "512", "1024", "burst", "GPU X", "here, today"))
        self.assertEqual(s9[0]["stream_k"], "")
        median10 = [r for r in rows if r["step"] == s10 and r["kind"] == "median"]
        self.assertEqual([(r["median_ms"], r["pct_cublas"], r["stream_k"]) for r in median10],
                         [("0.2500", "80.0", "min_share=4 min_saving=4")])

    def test_tiles_are_kept_apart(self):
        # Step 11 forced to two tiles at one shape and method: each tile its own repetitions and median.
        s11 = "step11_fitted_tile"
        text = "".join(line(step=s11, ms=ms, knobs=f" tile={t} tile_choice=forced")
                       for ms in ("0.3", "0.4", "0.5") for t in ("256x128", "128x128"))
        rc, err, rows = self.convert(text)
        self.assertEqual(rc, 0, err)
        self.assertEqual([(r["tile"], r["kind"]) for r in rows if r["kind"] == "median"],
                         [("256x128", "median"), ("128x128", "median")])
        self.assertEqual([r["tile"] for r in rows[:4]], ["256x128"] * 4)

    def test_knobs_and_depths_are_kept_apart(self):
        # One tile split and whole (another sk_min_share), and at two pipeline depths: four kernels, not repetitions.
        s11, whole = "step11_fitted_tile", " sk_min_share=100000"
        text = "".join(line(step=s11, ms=ms, knobs=f" tile=256x256{k}").replace("pipe_depth=4", f"pipe_depth={d}")
                       for ms in ("0.3", "0.4", "0.5") for k in ("", whole) for d in (4, 2))
        rc, err, rows = self.convert(text)
        self.assertEqual(rc, 0, err)
        self.assertEqual([(r["stream_k"], r["pipe_depth"]) for r in rows if r["kind"] == "median"],
                         [("", "4"), ("", "2"), ("min_share=100000", "4"), ("min_share=100000", "2")])

    def test_bad_input_is_refused(self):
        three = line() * 3
        for logs, want in (((three + line(verdict="FAIL"),), "log0.log:4: the kernel or cuBLAS did not verify"),
                           ((line().replace(" p10_ms=0.2900", ""),), "log0.log:1: no p10_ms"),
                           ((line(ms="fast"),), "log0.log:1: median_ms=fast is not a number"),
                           ((three + line(step="step10_stream_k"),), "the same number of repetitions"),
                           ((three + line(),), "4 repetition(s) of each: give an odd number"),
                           ((line(),), "1 repetition(s) of each"),
                           (("nothing here\n",), "no summary line (median_ms=)")):
            rc, err, _ = self.convert(*logs)
            self.assertEqual((rc, want in err), (2, True), err)


if __name__ == "__main__":
    unittest.main()
