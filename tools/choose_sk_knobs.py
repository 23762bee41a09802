#!/usr/bin/env python3
"""Choose step 10's split thresholds (--sk-min-saving, --sk-part-cost) from the sweep of real layer shapes.

    tools/choose_sk_knobs.py --sk-plan build/sk_plan --workers 66 [--sweep docs/results/sweep_forced/sweep.csv]
                             [--out docs/results/sk_knobs.csv] [--min-share N] [--rounds N]
                             [--min-saving 0,2,4,...,12,15,20] [--part-cost 0,1,2,3,4,6,8]

Reads the per-shape medians of the forced sweep's sweep.csv (tools/sweep_summary.py --out
docs/results/sweep_forced over runs of hgemm_bench --sweep ... --steps step9_multi_consumer,step10_stream_k
--sk-forced; docs/results/sweep.csv is the sweep with the knobs at their defaults, which has no forced split) for
step10_stream_k+split (the split wherever the plan can make one) and step9_multi_consumer (no split: what step
10 launches where its plan does not split), by every timing method in the file (burst and sustained). sk_plan
(tools/sk_plan.cpp: the kernels' own plan_stream_k) says where each candidate (min_saving, part_cost) of the grid
splits, on --workers workers with the run's --min-share and --rounds (give them if the runs did; sk_plan's
defaults are the benchmark's).

At each shape and method a candidate that splits gets the change of the forced split against step 9, in % of
step 9's % of cuBLAS; one that does not split, 0. A change within the spread (sweep_summary's verdict: the
difference of the medians not beyond the larger of the two ranges over the runs) counts 0, neither a loss nor a
gain. The choice: the candidate with (a) the smallest worst loss over shapes and methods, then (b) the largest
median change, then the largest mean change (where fewer than half the shapes split, every median is 0), then
the fewest shapes split (a split that only ties buys nothing), then the part cost nearest --prefer-part-cost
(default 2: where the sweep cannot tell part costs apart, a part's round trip, 128 KiB per CTA written to L2 and
read back, is assumed to cost about two K tiles; an estimate, not a measurement), then the smallest min_saving.

Writes --out (one row per candidate: min_saving, part_cost, worst_loss_pct, median_gain_pct, mean_gain_pct,
shapes_split of shapes, chosen 1 for the choice) and prints the table and the choice. Exit codes: 0 written, 2 bad
input (no forced-split rows, a shape the plan covers without both times, fewer than three runs, sk_plan
failing), each said in one line. Python standard library only.
"""
import argparse
import statistics
import sys

import registry
import sweep_summary
from sweep_summary import InputError

SPLIT, NO_SPLIT = "step10_stream_k+split", "step9_multi_consumer"
FORCED_SWEEP = "sweep_forced/sweep.csv"  # under docs/results: the sweep with the split forced, which chose the knobs
COLUMNS = ["min_saving", "part_cost", "worst_loss_pct", "median_gain_pct", "mean_gain_pct", "shapes_split", "shapes",
           "chosen"]


def plan_rows(args):
    """sk_plan's rows for the sweep's shapes and the grid, as dicts of ints."""
    cmd = [args.sk_plan, "--shapes", args.sweep, "--workers", str(args.workers)]
    for flag in ("min_share", "rounds", "full_split_max", "min_saving", "part_cost", "pair_tile"):
        if getattr(args, flag) is not None:
            cmd += ["--" + flag.replace("_", "-"), getattr(args, flag)]
    return [{c: int(v) for c, v in r.items()} for r in sweep_summary.tool_rows(cmd, "sk_plan")]


def changes(combined, shapes, methods):
    """{(shape, method): change of the forced split against step 9, in %, 0 within the spread}."""
    out = {}
    for shape in shapes:
        for method in methods:
            split, whole = combined.get(shape + (method, SPLIT)), combined.get(shape + (method, NO_SPLIT))
            if not split or not whole or split["runs"] == 0 or whole["runs"] == 0:
                raise InputError("%dx%dx%d %s: no time of %s and %s both, where step 10 runs (a failed verification, "
                                 "or runs of other steps)" % (shape + (method, SPLIT, NO_SPLIT)))
            runs = min(split["runs"], whole["runs"])
            if runs < sweep_summary.MIN_RUNS:
                raise InputError("%dx%dx%d %s: %d run(s); a choice rests on the medians of at least %d"
                                 % (shape + (method, runs, sweep_summary.MIN_RUNS)))
            tie = sweep_summary.verdict(split, whole) == "tie"
            out[(shape, method)] = 0.0 if tie else \
                100.0 * (split["pct_cublas_median"] / whole["pct_cublas_median"] - 1.0)
    return out


def weigh(plan, combined, prefer_part_cost=2):
    """The rows of sk_knobs.csv, the chosen one marked."""
    methods = sorted({key[3] for key in combined if key[4] == SPLIT})
    if not methods:
        raise InputError(f"no rows of {SPLIT}: give --sweep the sweep.csv of runs of hgemm_bench --sweep with "
                         f"--sk-forced (sweep_summary.py over them; docs/results/{FORCED_SWEEP})")
    shapes = list(dict.fromkeys((r["m"], r["n"], r["k"]) for r in plan))
    if not shapes:
        raise InputError("no shape of the sweep that step 10 runs (sk_plan skipped them all)")
    change = changes(combined, shapes, methods)
    candidates = {}
    for r in plan:
        candidates.setdefault((r["min_saving"], r["part_cost"]), set())
        if r["split"]:
            candidates[(r["min_saving"], r["part_cost"])].add((r["m"], r["n"], r["k"]))
    rows = []
    for (min_saving, part_cost), split_at in candidates.items():
        values = [change[(s, m)] if s in split_at else 0.0 for s in shapes for m in methods]
        rows.append({"min_saving": min_saving, "part_cost": part_cost, "worst_loss_pct": max(0.0, -min(values)),
                     "median_gain_pct": statistics.median(values), "mean_gain_pct": statistics.mean(values),
                     "shapes_split": len(split_at), "shapes": len(shapes), "chosen": 0})
    # Rounded, so that equal outcomes summed in another order tie exactly.
    best = min(rows, key=lambda r: (round(r["worst_loss_pct"], 2), -round(r["median_gain_pct"], 2),
                                    -round(r["mean_gain_pct"], 2), r["shapes_split"],
                                    abs(r["part_cost"] - prefer_part_cost), r["min_saving"]))
    best["chosen"] = 1
    return rows


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description="Choose step 10's --sk-min-saving and --sk-part-cost from the "
                                                 "sweep's medians.")
    parser.add_argument("--sk-plan", required=True, help="the sk_plan binary (build/sk_plan)")
    parser.add_argument("--workers", required=True, type=int, help="persistent workers (CTA pairs): 66 on the H200")
    parser.add_argument("--sweep", default=str(registry.ROOT / "docs" / "results" / FORCED_SWEEP),
                        help=f"sweep_summary.py's sweep.csv of runs with --sk-forced (default: docs/results/"
                             f"{FORCED_SWEEP})")
    parser.add_argument("--out", default=str(registry.ROOT / "docs" / "results" / "sk_knobs.csv"),
                        help="where the candidates go (default: docs/results/sk_knobs.csv)")
    for flag in ("--min-share", "--rounds", "--full-split-max", "--min-saving", "--part-cost", "--pair-tile"):
        parser.add_argument(flag, help="passed to sk_plan (its --help says the default)")
    parser.add_argument("--prefer-part-cost", type=int, default=2,
                        help="among candidates that measure alike, the part cost to prefer (default 2)")
    args = parser.parse_args(argv)
    try:
        rows = weigh(plan_rows(args), sweep_summary.read_combined(args.sweep), args.prefer_part_cost)
    except (InputError, OSError, ValueError) as e:
        sys.stderr.write(f"choose_sk_knobs: {e}\n")
        return 2
    sweep_summary.write_csv(args.out, rows, COLUMNS)
    print("%10s %9s %10s %11s %9s %12s" % ("min_saving", "part_cost", "worst_loss%", "median_gain%", "mean_gain%",
                                           "shapes_split"))
    for r in rows:
        print("%10d %9d %10.1f %11.1f %9.1f %6d of %-3d%s" % (
            r["min_saving"], r["part_cost"], r["worst_loss_pct"], r["median_gain_pct"], r["mean_gain_pct"],
            r["shapes_split"], r["shapes"], "  <- chosen" if r["chosen"] else ""))
    c = next(r for r in rows if r["chosen"])
    print(f"chosen: --sk-min-saving {c['min_saving']} --sk-part-cost {c['part_cost']} (worst loss "
          f"{c['worst_loss_pct']:.1f}%, median gain {c['median_gain_pct']:.1f}%, mean gain {c['mean_gain_pct']:.1f}%, "
          f"{c['shapes_split']} of {c['shapes']} shapes split); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
