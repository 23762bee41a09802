#!/usr/bin/env python3
"""CPU test of tools/choose_tile_price.py, which chooses step 11's part price from the sweep with every tile forced.

    python3 tests/test_choose_tile_price.py FACTS   (CTest: tile_price/chooser; FACTS: the built hg_step_facts)

Which tile each price takes comes from hg_step_facts tile_price_grid itself (the kernel's choose_tile and menu), so
the right answers are known. A synthetic sweep.csv (sweep_summary's columns, three runs' medians, burst and
sustained) forces every Hopper tile at one shape, 512 x 3584 x 3584, where the price of 2 takes 256 x 224 (all its
tiles split) and the prices 10 to 12 take 256 x 128 whole (and the same tile as each other at every shape). With 256
x 128 planted fastest beyond the spread, 2 loses and 10, 11 and 12 tie: the middle one, 11, is chosen; with 256 x 224
within the spread of it, no price loses. With 256 x 224 not forced there, the shape is not scored, and with no
shape scored the choice is refused; a second --sweep that forced it (and 256 x 256 again, at another time, which
is not used) makes the shape scored again, with the same choice. At the other shapes no tile was forced, and the price of 2 departs there
from the others' choice: not eligible. Also: a sweep.csv without forced rows, and fewer than three runs, are refused;
and by default the chooser reads the committed sweeps (docs/results/sweep_tiles/sweep.csv and, for 256 x 224,
docs/results/sweep_tiles224/sweep.csv) and makes of them the committed docs/results/tile_price.csv, byte for byte.
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
import choose_tile_price  # noqa: E402  (found through the path set just above)
import sweep_summary  # noqa: E402

FACTS = None  # set from the command line
SHAPE = (512, 3584, 3584)
TILES = ["256x256", "256x224", "256x192", "256x128", "128x256", "128x128"]
# % of cuBLAS: (median, min, max) over three runs, per forced tile.
FAST_NARROW = {"256x256": (41.0, 40.5, 41.5), "256x224": (57.0, 56.5, 57.5), "256x192": (55.0, 54.5, 55.5),
               "256x128": (69.0, 68.5, 69.5), "128x256": (53.0, 52.5, 53.5), "128x128": (50.0, 49.5, 50.5)}


def sweep_rows(pcts, runs=3, forced=True, tiles=TILES):
    rows = []
    for method in ("burst", "sustained"):
        steps = [choose_tile_price.STEP] + ([choose_tile_price.STEP + "+" + t for t in tiles] if forced else [])
        for step in steps:
            row = {c: "" for c in sweep_summary.SHAPE_COLUMNS}
            med, lo, hi = pcts.get(step.split("+")[1], (60.0, 59.5, 60.5)) if "+" in step else (60.0, 59.5, 60.5)
            row.update(model="M1", layer="L", m=SHAPE[0], n=SHAPE[1], k=SHAPE[2], method=method, step=step,
                       runs=runs, source="cfg", pct_cublas_median=med, pct_cublas_min=lo, pct_cublas_max=hi)
            rows.append(row)
    return rows


class ChooseTilePrice(TempDirTest):
    def choose(self, rows, prices="2,10,11,12", later_rows=None):
        sweeps = []
        for i, r in enumerate([rows] + ([later_rows] if later_rows else [])):
            sweeps += ["--sweep", str(self.dir / f"sweep{i}.csv")]
            sweep_summary.write_csv(sweeps[-1], r, sweep_summary.SHAPE_COLUMNS)
        out = self.dir / "tile_price.csv"
        with contextlib.redirect_stdout(io.StringIO()) as so, contextlib.redirect_stderr(io.StringIO()) as se:
            rc = choose_tile_price.main(["--facts", FACTS] + sweeps + ["--out", str(out), "--prices", prices])
        table = {int(r["price"]): r for r in csv.DictReader(io.StringIO(out.read_text()))} if rc == 0 else {}
        return rc, so.getvalue(), se.getvalue(), table

    def test_the_grid_takes_the_tiles_this_test_assumes(self):
        grid = choose_tile_price.grid_rows(FACTS, "2,10,11,12")
        self.assertEqual(grid[SHAPE], {2: "256x224", 10: "256x128", 11: "256x128", 12: "256x128"})
        self.assertTrue(all(tiles[10] == tiles[11] == tiles[12] for tiles in grid.values()))

    def test_a_planted_loss_picks_the_middle_of_the_prices_that_avoid_it(self):
        rc, out, err, table = self.choose(sweep_rows(FAST_NARROW))
        self.assertEqual(rc, 0, err)
        self.assertEqual([p for p, r in table.items() if r["chosen"] == "1"], [11])
        self.assertIn("chosen: part price 11", out)
        for p in (10, 11, 12):
            self.assertEqual(table[p]["worst_loss_pct"], "0.0")
            self.assertEqual(table[p]["unmeasured_changes"], "0")
        # 2 takes 256 x 224: 12 points behind 256 x 128 in both methods; and it departs at unmeasured shapes.
        self.assertEqual(table[2]["worst_loss_pct"], "12.0")
        self.assertEqual(table[2]["shapes_lost"], "2")
        self.assertGreater(int(table[2]["unmeasured_changes"]), 0)

    def test_a_difference_within_the_spread_is_no_loss(self):
        close = dict(FAST_NARROW, **{"256x224": (68.0, 66.0, 70.0)})
        rc, _, err, table = self.choose(sweep_rows(close), prices="2,11")
        self.assertEqual(rc, 0, err)
        self.assertEqual(table[2]["worst_loss_pct"], "0.0")
        self.assertEqual(table[2]["shapes_lost"], "0")

    def test_a_shape_where_a_price_takes_a_tile_not_forced_is_not_scored(self):
        # 256 x 224, which the price of 2 takes here, was not forced: the shape is scored for no price, and with no
        # shape left to score the choice is refused.
        rows = sweep_rows(FAST_NARROW, tiles=[t for t in TILES if t != "256x224"])
        rc, _, err, _ = self.choose(rows)
        self.assertEqual(rc, 2)
        self.assertIn("no shape where every price's tile was forced", err)

    def test_a_later_sweep_adds_the_tile_the_first_lacks(self):
        first = sweep_rows(FAST_NARROW, tiles=[t for t in TILES if t != "256x224"])
        # The later runs: 256 x 224, and 256 x 256 again, planted fastest there: were it used, 10 to 12 would lose.
        later = sweep_rows(dict(FAST_NARROW, **{"256x256": (90.0, 89.5, 90.5)}), tiles=["256x256", "256x224"])
        rc, _, err, table = self.choose(first, later_rows=later)
        self.assertEqual(rc, 0, err)
        self.assertEqual([p for p, r in table.items() if r["chosen"] == "1"], [11])
        self.assertEqual(table[2]["worst_loss_pct"], "12.0")
        self.assertEqual(table[11]["worst_loss_pct"], "0.0")

    def test_without_forced_rows_it_is_refused(self):
        rc, _, err, _ = self.choose(sweep_rows(FAST_NARROW, forced=False))
        self.assertEqual(rc, 2)
        self.assertIn("no rows of step11_fitted_tile+MxN: give --sweep the sweep.csv of runs of hgemm_bench --sweep "
                      "with --steps step11_fitted_tile --tiles", err)

    def test_fewer_than_three_runs_are_refused(self):
        rc, _, err, _ = self.choose(sweep_rows(FAST_NARROW, runs=2))
        self.assertEqual(rc, 2)
        self.assertIn("2 run(s) of step11_fitted_tile+", err)

    def test_by_default_the_committed_sweep_gives_the_committed_choice(self):
        out = self.dir / "tile_price.csv"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = choose_tile_price.main(["--facts", FACTS, "--out", str(out)])
        self.assertEqual(rc, 0, err.getvalue())
        self.assertEqual(out.read_text(), (ROOT / "docs" / "results" / "tile_price.csv").read_text(),
                         "docs/results/tile_price.csv is not what tools/choose_tile_price.py makes of the sweep with "
                         "every tile forced: run it again (docs/lab_step11_fitted_tile.md says how)")
        chosen = [r for r in csv.DictReader(io.StringIO(out.read_text())) if r["chosen"] == "1"]
        header = (ROOT / "common" / "kernel" / "tile_choice.hpp").read_text()
        self.assertIn(f"constexpr int kTilePartPrice = {chosen[0]['price']};", header,
                      "hg::kTilePartPrice is not the price docs/results/tile_price.csv chose")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_choose_tile_price.py FACTS (the built hg_step_facts binary)")
    FACTS = sys.argv.pop(1)
    unittest.main()
