#!/usr/bin/env python3
"""CPU test of tools/round_pairs.py, which compares two kernels round by round within each benchmark run.

    python3 -m unittest tests/test_round_pairs.py        (CTest: round/pairs)

Synthetic runs in a temporary directory: a round slowed for both kernels moves the pooled medians and not the
paired ratio, the counts and percentages land in their columns, run = all pools the rounds and takes the runs'
median pooled ratio, and a run without samples.csv, a step absent from a run, a file without samples.csv's columns,
a row cut short and --steps that are not two different names are refused (exit 2) in one line.
Python standard library only.
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
import round_pairs  # noqa: E402  (found through the path set just above)

HEADER = ["m", "n", "k", "step", "method", "round", "position", "after", "index", "ms"]


def samples(run_dir, times):
    """A run's samples.csv: times[(step, round)] = [ms, ...] at 512x128x64 under sustained."""
    run_dir.mkdir(parents=True)
    with open(run_dir / "samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for (step, rnd), values in times.items():
            for i, ms in enumerate(values):
                w.writerow([512, 128, 64, step, "sustained", rnd, 0, "cublas", i, ms])


def run(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = round_pairs.main(args)
    return rc, err.getvalue()


class RoundPairsTest(TempDirTest):
    def table(self, runs, steps="a,b"):
        rc, err = run([str(d) for d in runs] + ["--steps", steps, "--out", str(self.dir / "t.csv")])
        self.assertEqual(rc, 0, err)
        with open(self.dir / "t.csv", newline="") as f:
            return list(csv.DictReader(f))

    def test_slow_round_moves_pooled_not_paired(self):
        # Both kernels equal within each round; round 1 slow for both, and b takes more of its launches there.
        samples(self.dir / "r1", {("a", 0): [1.0, 1.0, 1.0], ("b", 0): [1.0],
                                  ("a", 1): [2.0], ("b", 1): [2.0, 2.0, 2.0]})
        rows = self.table([self.dir / "r1"])
        self.assertEqual([r["run"] for r in rows], ["1", "all"])
        r = rows[0]
        self.assertEqual((r["m"], r["n"], r["k"], r["method"], r["rounds"], r["b_faster"], r["paired_pct"]),
                         ("512", "128", "64", "sustained", "2", "0", "0.00"))
        self.assertEqual(r["pooled_pct"], "100.00")  # b's median is 2.0 ms, a's 1.0 ms
        self.assertEqual((r["a"], r["b"]), ("a", "b"))

    def test_counts_percentages_and_all(self):
        samples(self.dir / "r1", {("a", 0): [1.0], ("b", 0): [0.9], ("a", 1): [1.0], ("b", 1): [1.2],
                                  ("a", 2): [1.0], ("b", 2): [1.01]})
        samples(self.dir / "r2", {("a", 0): [1.0], ("b", 0): [0.98], ("a", 1): [1.0], ("b", 1): [0.99],
                                  ("a", 5): [1.0]})  # round 5 has no b: not compared
        rows = {r["run"]: r for r in self.table([self.dir / "r1", self.dir / "r2"])}
        self.assertEqual((rows["1"]["rounds"], rows["1"]["b_faster"], rows["1"]["paired_pct"],
                          rows["1"]["round_min_pct"], rows["1"]["round_max_pct"], rows["1"]["pooled_pct"]),
                         ("3", "1", "1.00", "-10.00", "20.00", "1.00"))
        self.assertEqual((rows["2"]["rounds"], rows["2"]["b_faster"], rows["2"]["pooled_pct"]),
                         ("2", "2", "-1.50"))  # b's median 0.985 over a's 1.0
        # all: the five rounds pooled (0.9, 0.98, 0.99, 1.01, 1.2: median 0.99), the runs' pooled ratios' median
        self.assertEqual((rows["all"]["rounds"], rows["all"]["b_faster"], rows["all"]["paired_pct"],
                          rows["all"]["round_min_pct"], rows["all"]["pooled_pct"]),
                         ("5", "3", "-1.00", "-10.00", "-0.25"))

    def test_bad_input_is_refused(self):
        samples(self.dir / "ok", {("a", 0): [1.0], ("b", 0): [1.0]})
        samples(self.dir / "only_a", {("a", 0): [1.0]})
        (self.dir / "odd").mkdir()
        (self.dir / "odd" / "samples.csv").write_text("m,n\n1,2\n")
        (self.dir / "cut").mkdir()
        (self.dir / "cut" / "samples.csv").write_text(",".join(HEADER) + "\n512,128,64,a,sustained\n")
        for runs, steps, said in [([self.dir / "none"], "a,b", "no such file"),
                                  ([self.dir / "only_a"], "a,b", "no samples of b at 512x128x64 sustained"),
                                  ([self.dir / "odd"], "a,b", "no column(s) k, method, ms, round, step"),
                                  ([self.dir / "cut"], "a,b", "samples.csv:2: a field is missing"),
                                  ([self.dir / "ok"], "a,a", "give two different steps"),
                                  ([self.dir / "ok"], "a", "give two different steps")]:
            rc, err = run([str(d) for d in runs] + ["--steps", steps, "--out", str(self.dir / "t.csv")])
            self.assertEqual((rc, said in err), (2, True), err)


if __name__ == "__main__":
    unittest.main()
