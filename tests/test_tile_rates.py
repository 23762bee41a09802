#!/usr/bin/env python3
"""tools/tile_rates.py and the Hopper menu's rates.

    python3 tests/test_tile_rates.py BUILD/sk_plan      (CTest: tile_rates/measured)

Checks that the committed docs/results/tile_rates.csv is what tools/tile_rates.py makes of the committed logs
(docs/results/tile_runs/, one log per whole run), that step11_fitted_tile/hgemm_sm90.cuh's kTiles carry exactly its
median rates, that a rate follows the formula (a tile twice as slow per K tile of the same work gets 500), also for
Blackwell's 512 x BN tiles on 74 pairs, that a point's time is the median over the runs, that a tile timed in runs
of its own is compared with the reference of those runs, and that a log without the
widest tile, with a tile that was not forced, or with tiles of two heights, is refused (exit 2).
Python standard library only.
"""
import csv
import pathlib
import re
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import tile_rates  # noqa: E402

SK_PLAN = None
LINE = ('step11_fitted_tile {arch} gpu="NVIDIA H200" M={m} N={n} K={k} init=random seed=1 pipe_depth=4 sk_min_share=4 '
        'sk_rounds=1 sk_min_saving=4 sk_part_cost=2 sk_full_split_max=60 tile={h}x{bn} tile_choice={choice} '
        'max_abs_err=0.1 max_rel_err=0.001 bad=0/1 PASS median_ms={ms} p10_ms={ms} p90_ms={ms} tflops=1.0 '
        'cublas_median_ms=1.0 cublas_tflops=1.0 pct_cublas=100.0 cublas_check=PASS iters=100 sets=2 '
        'method=burst settle_ms=0\n')


def line(bn, ms, choice="forced", h=256):
    """A --bench line of step 11 at 4096^3 with tile h x bn (Blackwell's kernel where h is 512)."""
    return LINE.format(arch="sm100" if h == 512 else "sm90", m=4096, n=4096, k=4096, h=h, bn=bn, choice=choice,
                       ms=ms)


def run(lines, workers=66, *more_logs):
    """(exit code, rows) of tile_rates.py on a log of `lines` (one run), and one log per list of more_logs."""
    with tempfile.TemporaryDirectory() as d:
        logs, out = [], pathlib.Path(d) / "r.csv"
        for i, text in enumerate([lines, *more_logs]):
            logs.append(pathlib.Path(d) / f"{i}.log")
            logs[-1].write_text("".join(text))
        rc = tile_rates.main([*map(str, logs), "--sk-plan", SK_PLAN, "--workers", str(workers), "--out", str(out)])
        if rc != 0:
            return rc, []
        with open(out, encoding="utf-8") as f:
            return rc, list(csv.DictReader(f))


class TileRates(unittest.TestCase):
    def test_committed_csv_is_the_tools_output(self):
        logs = sorted(str(p) for p in (ROOT / "docs/results/tile_runs").glob("*.log"))
        with tempfile.TemporaryDirectory() as d:
            out = pathlib.Path(d) / "r.csv"
            self.assertEqual(tile_rates.main(logs + ["--sk-plan", SK_PLAN, "--out", str(out)]), 0)
            self.assertEqual(out.read_text(), (ROOT / "docs/results/tile_rates.csv").read_text())

    def test_kernel_menu_carries_the_medians(self):
        with open(ROOT / "docs/results/tile_rates.csv", encoding="utf-8") as f:
            medians = {r["tile"]: int(r["rate_permille"]) for r in csv.DictReader(f) if r["m"] == "median"}
        header = (ROOT / "step11_fitted_tile/hgemm_sm90.cuh").read_text()
        menu = re.search(r"kTiles\[\] = \{(.*?)\};", header, re.S).group(1)
        tiles = {f"{m}x{n}": int(r) for m, n, r in re.findall(r"\{(\d+), (\d+), (\d+)\}", menu)}
        self.assertEqual(tiles, medians)

    def test_formula(self):
        # 4096^3: 256x256 has 256 K tiles on its longest worker, 256x128 has 512 (tools/sk_plan); the same time per
        # worker-K-tile of the same work would give 1000; twice the time gives 500.
        rc, rows = run([line(256, 1.0), line(128, 2.0)])
        self.assertEqual(rc, 0)
        by = {r["tile"]: r for r in rows if r["m"] != "median"}
        self.assertEqual(by["256x256"]["longest"], "256")
        self.assertEqual(by["256x128"]["longest"], "512")
        self.assertEqual(by["256x128"]["rate_permille"], "500")

    def test_short_tiles(self):
        # Hopper's short tiles against 256x256 at 4096^3: 128x128 has 1024 K tiles on its longest worker, each a
        # quarter of 256x256's work (tools/sk_plan); twice the time per worker-K-tile of the same work gives 500.
        # The median rows follow the menu's order: taller first, then wider.
        rc, rows = run([line(256, 1.0), line(128, 2.0, h=128), line(256, 1.0, h=128)])
        self.assertEqual(rc, 0)
        by = {r["tile"]: r for r in rows if r["m"] != "median"}
        self.assertEqual(by["128x128"]["longest"], "1024")
        self.assertEqual(by["128x128"]["rate_permille"], "500")
        self.assertEqual([r["tile"] for r in rows if r["m"] == "median"], ["256x256", "128x256", "128x128"])

    def test_blackwell_tiles(self):
        # Blackwell's 512 x BN tiles on a B200's 74 pairs: the plan is the named tile's. At 4096^3, 512x256 runs 128
        # K tiles on its longest worker (no split: every tile would be split); 512x128 splits, 226 with its parts
        # (tools/sk_plan). Twice the time per worker-K-tile of the same work gives 500.
        rc, rows = run([line(256, 1.0, h=512), line(128, 2 * 226 * 128 / (128 * 256), h=512)], workers=74)
        self.assertEqual(rc, 0)
        by = {r["tile"]: r for r in rows if r["m"] != "median"}
        self.assertEqual((by["512x256"]["longest"], by["512x256"]["split"]), ("128", "0"))
        self.assertEqual((by["512x128"]["longest"], by["512x128"]["split"]), ("226", "1"))
        self.assertEqual(by["512x128"]["rate_permille"], "500")

    def test_runs_give_the_median_time(self):
        # Three runs (one log each): the point's time is the median of the three, and the row counts them.
        rc, rows = run([line(256, 1.0), line(128, 2.0)], 66, [line(256, 1.2), line(128, 9.0)],
                       [line(256, 0.9), line(128, 2.4)])
        self.assertEqual(rc, 0)
        by = {r["tile"]: r for r in rows if r["m"] != "median"}
        self.assertEqual((by["256x256"]["median_ms"], by["256x256"]["runs"]), ("1", "3"))
        self.assertEqual((by["256x128"]["median_ms"], by["256x128"]["rate_permille"]), ("2.4", "417"))
        # A second line of one point in one log, or a run with other knobs, is refused.
        self.assertEqual(run([line(256, 1.0), line(128, 2.0), line(128, 2.0)])[0], 2)
        other = line(128, 2.0).replace("pipe_depth=4", "pipe_depth=3")
        self.assertEqual(run([line(256, 1.0), line(128, 2.0)], 66, [line(256, 1.0), other])[0], 2)

    def test_a_tile_timed_in_runs_of_its_own(self):
        # A tile added later, timed beside the reference in runs of its own (a slower session: the reference took
        # twice as long there): each tile's rate takes the reference from the runs that timed that tile, so 256x128
        # keeps 500 against the first run alone, and the reference's own row is the median of both runs.
        rc, rows = run([line(256, 1.0), line(128, 2.0)], 66, [line(256, 2.0), line(192, 2.0)])
        self.assertEqual(rc, 0)
        by = {r["tile"]: r for r in rows if r["m"] != "median"}
        self.assertEqual(by["256x128"]["rate_permille"], "500")
        self.assertEqual((by["256x256"]["median_ms"], by["256x256"]["runs"]), ("1.5", "2"))
        # 256x192 at 4096^3: 345 K tiles on its longest worker (split), against 256 for 256x256, the same time.
        self.assertEqual(by["256x192"]["rate_permille"], str(round(1000 * 345 * 192 / (256 * 256))))
        # A run that times a tile without the reference is refused.
        self.assertEqual(run([line(256, 1.0), line(128, 2.0)], 66, [line(192, 2.0)])[0], 2)

    def test_refusals(self):
        self.assertEqual(run([line(128, 2.0)])[0], 2)  # no widest tile
        self.assertEqual(run([line(256, 1.0, choice="auto"), line(128, 2.0)])[0], 2)  # not forced
        self.assertEqual(run([line(256, 1.0), line(128, 2.0, h=512)])[0], 2)  # two GPUs' tiles in one comparison


if __name__ == "__main__":
    SK_PLAN = sys.argv.pop(1)
    unittest.main()
