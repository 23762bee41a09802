#!/usr/bin/env python3
"""Measure step 11's tile rates: how fast a CTA pair runs one K tile of each tile of the menu, relative to the
widest, from timed runs of the verify binary with each tile forced.

    tools/tile_rates.py LOG... --sk-plan BUILD/sk_plan --workers 66 --out docs/results/tile_rates.csv

LOG: what `./build/step11_fitted_tile --m M --n N --k K --tile 256xBN --bench --settle-ms 0|50` printed, for every
tile of the menu at each shape and method (lines of other steps are passed over; tools/bench_log_csv.py reads each
line). On Blackwell the tiles are 512xBN and --workers is the B200's pairs (74); the plan is made for the tile each
line names, so one GPU's logs at a time. The heuristic (common/kernel/tile_choice.hpp) predicts a tile's time as
the longest worker's K tiles times the work of one K tile (tile rows x BN x 64) divided by the tile's rate, so each
measurement gives

    rate(BN) = 1000 * (longest(BN) * BN / ms(BN)) / (longest(256) * 256 / ms(256))

where longest is the plan's longest worker in K tiles (sk_plan --pair-tile with the line's tile, step 10's plan
with the line's knobs: its max_cost where it splits, else whole rounds) and ms the line's median time. Writes one
row per (shape, method, tile) and per tile one row with shape "median" (the median over the rows): the rates the
kernel's menu carries (kTiles of step11_fitted_tile/hgemm_sm90.cuh, or of hgemm_sm100.cuh for a B200's logs;
tests/test_tile_rates.py checks the Hopper ones agree with the committed CSV). Exit codes: 0 written, 2 bad input.
Python standard library only.
"""
import argparse
import csv
import pathlib
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_log_csv  # noqa: E402  (the parser of --bench summary lines)

STEP = "step11_fitted_tile"
WIDEST = 256  # the widest tile's N, the reference of the rates (Hopper 256 x 256, Blackwell 512 x 256)
COLUMNS = ["m", "n", "k", "method", "tile", "median_ms", "longest", "split", "rate_permille"]


InputError = bench_log_csv.InputError  # bad input: the one-line reason


def read_times(paths):
    """{(m, n, k, method): {BN: (median_ms, knobs)}} of the step's lines with a forced tile."""
    times = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, start=1):
                if "median_ms=" not in text or not text.startswith(STEP + " "):
                    continue
                where = f"{path}:{number}"
                row = bench_log_csv.read_line(text, where)
                fields = dict(w.split("=", 1) for w in text.split() if "=" in w)
                if fields.get("tile_choice") != "forced" or "tile" not in fields:
                    raise InputError(f"{where}: no forced tile (tile=256xBN tile_choice=forced): run each tile with "
                                     "--tile")
                bn = int(fields["tile"].split("x")[1])
                key = (row["m"], row["n"], row["k"], row["method"])
                if bn in times.get(key, {}):
                    raise InputError(f"{where}: a second line for {'x'.join(key[:3])} {key[3]} tile {fields['tile']}")
                times.setdefault(key, {})[bn] = (float(row["median_ms"]), fields)
    if not times:
        raise InputError(f"no {STEP} --bench line with a forced tile in {', '.join(map(str, paths))}")
    return times


def longest(sk_plan, workers, shape, knobs):
    """(longest worker in K tiles, whether the plan splits) for the line's tile (knobs["tile"]), from sk_plan."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("m,n,k\n" + ",".join(shape) + "\n")
    cmd = [str(sk_plan), "--shapes", f.name, "--workers", str(workers), "--pair-tile", knobs["tile"],
           "--min-share", knobs["sk_min_share"], "--rounds", knobs["sk_rounds"], "--min-saving",
           knobs["sk_min_saving"], "--part-cost", knobs["sk_part_cost"], "--full-split-max", knobs["sk_full_split_max"]]
    out = subprocess.run(cmd, capture_output=True, text=True)
    pathlib.Path(f.name).unlink()
    rows = list(csv.DictReader(out.stdout.splitlines()))
    if out.returncode != 0 or len(rows) != 1:
        raise InputError(f"sk_plan gave no plan for {'x'.join(shape)} at {knobs['tile']}: {out.stderr.strip()}")
    split = rows[0]["split"] == "1"
    return int(rows[0]["max_cost"] if split else rows[0]["whole"]), split


def rates(times, sk_plan, workers):
    out = []
    for key, by_bn in times.items():
        if WIDEST not in by_bn or len(by_bn) < 2:
            raise InputError(f"{'x'.join(key[:3])} {key[3]}: needs the widest tile and at least one other")
        heights = {knobs["tile"].split("x")[0] for ms, knobs in by_bn.values()}
        if len(heights) != 1:
            raise InputError(f"{'x'.join(key[:3])} {key[3]}: tiles of different heights ({', '.join(sorted(heights))})"
                             ": give one GPU's logs at a time")
        cost = {bn: longest(sk_plan, workers, key[:3], knobs) for bn, (ms, knobs) in by_bn.items()}
        speed = {bn: cost[bn][0] * bn / by_bn[bn][0] for bn in by_bn}
        for bn in sorted(by_bn, reverse=True):
            out.append({"m": key[0], "n": key[1], "k": key[2], "method": key[3], "tile": by_bn[bn][1]["tile"],
                        "median_ms": f"{by_bn[bn][0]:g}", "longest": cost[bn][0], "split": int(cost[bn][1]),
                        "rate_permille": round(1000 * speed[bn] / speed[WIDEST])})
    for tile in sorted({r["tile"] for r in out}, key=lambda t: -int(t.split("x")[1])):
        values = [r["rate_permille"] for r in out if r["tile"] == tile]
        out.append({"m": "median", "n": "", "k": "", "method": "", "tile": tile, "median_ms": "", "longest": "",
                    "split": "", "rate_permille": round(statistics.median(values))})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=pathlib.Path, metavar="LOG")
    parser.add_argument("--sk-plan", required=True, type=pathlib.Path, help="the build's sk_plan")
    parser.add_argument("--workers", type=int, default=66, help="CTA pairs of the GPU the logs ran on (H200: 66)")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    try:
        rows = rates(read_times(args.logs), args.sk_plan, args.workers)
    except (InputError, OSError) as e:
        sys.stderr.write(f"tile_rates: {e}\n")
        return 2
    bench_log_csv.write_rows(args.out, COLUMNS, rows)
    print(f"tile_rates: {len(rows)} rows written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
