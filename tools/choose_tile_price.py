#!/usr/bin/env python3
"""Choose step 11's part price (hg::kTilePartPrice) from the sweep with every tile of the menu forced.

    tools/choose_tile_price.py --facts build/hg_step_facts [--sweep SWEEP.csv [--sweep MORE.csv ...]]
                               [--out docs/results/tile_price.csv] [--prices 0,1,2,...,12,16]

Reads the per-shape medians of sweep_summary.py's sweep.csv over runs of hgemm_bench --sweep ... --steps
step11_fitted_tile --tiles 256x256,256x192,... (each tile of the Hopper menu forced, as step11_fitted_tile+MxN), by
every timing method in the file. A later --sweep adds only the forced tiles the earlier ones lack at a shape and
method (a tile added to the menu after the first runs, forced in runs of its own); its other rows, the same tiles
timed again, are not used (they are kept to compare the two sets of runs). Without --sweep: the two committed
ones, docs/results/sweep_tiles/sweep.csv (the first five tiles) and docs/results/sweep_tiles224/sweep.csv (256 x
224 beside 256 x 256). `hg_step_facts tile_price_grid` (tools/step_facts.cu: choose_tile itself, with the
kernel's menu and rates) says which tile the heuristic takes at each candidate price, at the sweep's shapes and the
benchmark's.

At each shape and method with every tile forced, a candidate's LOSS is the fastest forced tile's % of cuBLAS minus
that of the tile the candidate takes, 0 where the two are within the spread (sweep_summary's verdict: the difference
of the medians not beyond the larger of the two ranges over the runs). A candidate whose choice differs from most
candidates' at a shape where no tile was forced, or where some candidate takes a tile that was not forced there (a
tile added to the menu after the runs), is not eligible: its cost there is unknown, and such a shape is not scored.
The choice among the eligible: (a) the smallest worst loss, then (b) the smallest mean loss; of the prices that tie
on both the middle one is taken (the lower of two middles), so that the price sits away from the edges where the
scores change.

Writes --out (one row per price: price, worst_loss_pct, mean_loss_pct, shapes_lost (shape and method pairs with a
loss), pairs, unmeasured_changes, chosen 1 for the choice) and prints the table and the choice. Exit codes: 0
written, 2 bad input (no forced rows, a forced tile without a time, fewer than three runs, hg_step_facts failing,
no eligible price), each said in one line. Python standard library only.
"""
import argparse
import statistics
import sys

import registry
import sweep_summary
from sweep_summary import InputError

STEP = "step11_fitted_tile"
# Under docs/results: the sweeps with every tile forced, which chose the price (the second adds 256 x 224).
SWEEPS = ["sweep_tiles/sweep.csv", "sweep_tiles224/sweep.csv"]
COLUMNS = ["price", "worst_loss_pct", "mean_loss_pct", "shapes_lost", "pairs", "unmeasured_changes", "chosen"]
DEFAULT_PRICES = "0,1,2,3,4,5,6,7,8,9,10,12,16"


def grid_rows(facts, prices):
    """hg_step_facts tile_price_grid's rows: {(m, n, k): {price: tile}}, shapes in its order."""
    out = {}
    for r in sweep_summary.tool_rows([facts, "tile_price_grid", prices], "hg_step_facts"):
        out.setdefault((int(r["m"]), int(r["n"]), int(r["k"])), {})[int(r["price"])] = r["tile"]
    return out


def forced_times(combined):
    """{(m, n, k): {method: {tile: row}}} of the forced tiles, refusing a tile without a time or too few runs."""
    out = {}
    for (m, n, k, method, step), row in combined.items():
        if not step.startswith(STEP + "+"):
            continue
        tile = step.split("+", 1)[1]
        if row["runs"] == 0 or row["pct_cublas_median"] is None:
            raise InputError(f"{m}x{n}x{k} {method}: no time of {step} (a failed verification?)")
        if row["runs"] < sweep_summary.MIN_RUNS:
            raise InputError(f"{m}x{n}x{k} {method}: {row['runs']} run(s) of {step}; a choice rests on the medians "
                             f"of at least {sweep_summary.MIN_RUNS}")
        out.setdefault((m, n, k), {}).setdefault(method, {})[tile] = row
    if not out:
        raise InputError(f"no rows of {STEP}+MxN: give --sweep the sweep.csv of runs of hgemm_bench --sweep with "
                         f"--steps {STEP} --tiles ... (sweep_summary.py over them; docs/results/{SWEEPS[0]})")
    return out


def read_sweeps(paths):
    """The rows of every sweep.csv in `paths`, a later file adding only the forced tiles (step+MxN at a shape and
    method) that the earlier ones lack."""
    combined = {}
    for i, path in enumerate(paths):
        for key, row in sweep_summary.read_combined(path).items():
            if i == 0 or (key[4].startswith(STEP + "+") and key not in combined):
                combined[key] = row
    return combined


def weigh(grid, forced):
    """The rows of tile_price.csv, the chosen one marked."""
    prices = sorted({p for choices in grid.values() for p in choices})
    for shape in forced:
        if shape not in grid:
            raise InputError("%dx%dx%d has forced tiles but is not a shape of the sweep file or the benchmark"
                             % shape)
    rows = []
    for price in prices:
        losses, unmeasured = [], 0
        for shape, choices in grid.items():
            tile = choices[price]
            # Scored only where every candidate's tile was forced: a tile added to the menu after the forced runs
            # leaves the shapes where some candidate takes it unmeasured, like a shape where nothing was forced.
            measured = shape in forced and all(set(choices.values()) <= set(tiles) for tiles in forced[shape].values())
            if not measured:  # most candidates' tile here, the first of equals
                usual = max(dict.fromkeys(choices.values()), key=list(choices.values()).count)
                unmeasured += tile != usual
                continue
            for method, tiles in forced[shape].items():
                best = max(tiles.values(), key=lambda r: r["pct_cublas_median"])
                mine = tiles[tile]
                tie = sweep_summary.verdict(mine, best) == "tie"
                losses.append(0.0 if tie else best["pct_cublas_median"] - mine["pct_cublas_median"])
        if not losses:
            raise InputError("no shape where every price's tile was forced: force the menu's tiles (all of them) "
                             "at the sweep's shapes")
        rows.append({"price": price, "worst_loss_pct": max(losses), "mean_loss_pct": statistics.mean(losses),
                     "shapes_lost": sum(1 for v in losses if v > 0), "pairs": len(losses),
                     "unmeasured_changes": unmeasured, "chosen": 0})
    eligible = [r for r in rows if r["unmeasured_changes"] == 0]
    if not eligible:
        raise InputError("every price changes the choice at a shape where its tile was not forced: force the tiles "
                         "there")
    # Rounded, so that equal outcomes summed in another order tie exactly.
    score = lambda r: (round(r["worst_loss_pct"], 2), round(r["mean_loss_pct"], 2))  # noqa: E731
    best = min(score(r) for r in eligible)
    tied = [r for r in eligible if score(r) == best]
    tied[(len(tied) - 1) // 2]["chosen"] = 1
    return rows


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description="Choose step 11's part price from the sweep with every tile "
                                                 "forced.")
    parser.add_argument("--facts", required=True, help="the hg_step_facts binary (build/hg_step_facts)")
    parser.add_argument("--sweep", action="append",
                        help="sweep_summary.py's sweep.csv of runs with --tiles; again to add the tiles a later set of "
                             "runs forced (default: docs/results/" + " and docs/results/".join(SWEEPS) + ")")
    parser.add_argument("--out", default=str(registry.ROOT / "docs" / "results" / "tile_price.csv"),
                        help="where the candidates go (default: docs/results/tile_price.csv)")
    parser.add_argument("--prices", default=DEFAULT_PRICES, help=f"the candidate prices (default {DEFAULT_PRICES})")
    args = parser.parse_args(argv)
    sweeps = args.sweep or [str(registry.ROOT / "docs" / "results" / s) for s in SWEEPS]
    try:
        rows = weigh(grid_rows(args.facts, args.prices), forced_times(read_sweeps(sweeps)))
    except (InputError, OSError, ValueError) as e:
        sys.stderr.write(f"choose_tile_price: {e}\n")
        return 2
    sweep_summary.write_csv(args.out, rows, COLUMNS)
    print("%5s %11s %10s %11s %10s" % ("price", "worst_loss%", "mean_loss%", "lost", "unmeasured"))
    for r in rows:
        print("%5d %11.1f %10.2f %5d of %-3d %10d%s" % (
            r["price"], r["worst_loss_pct"], r["mean_loss_pct"], r["shapes_lost"], r["pairs"],
            r["unmeasured_changes"], "  <- chosen" if r["chosen"] else ""))
    c = next(r for r in rows if r["chosen"])
    print(f"chosen: part price {c['price']} (worst loss {c['worst_loss_pct']:.1f} points, mean loss "
          f"{c['mean_loss_pct']:.2f}, {c['shapes_lost']} of {c['pairs']} shape and method pairs lost); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
