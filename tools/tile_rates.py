#!/usr/bin/env python3
"""Measure step 11's tile rates: how fast a CTA pair runs one K tile of each tile of the menu, relative to the
widest, from timed runs of the verify binary with each tile forced.

    tools/tile_rates.py LOG... --sk-plan BUILD/sk_plan --workers 66 --out docs/results/tile_rates.csv

LOG: one whole run of the loop, what `./build/step11_fitted_tile --m M --n N --k K --tile BMxBN --bench --settle-ms
0|50` printed, for every tile of the menu at each shape and method (lines of other steps are passed over;
tools/bench_log_csv.py reads each line). On Blackwell the tiles are 512xBN and --workers is the B200's pairs (74);
the plan is made for the tile each line names, so one GPU's logs at a time (lines of both kernels, sm90 and sm100,
at one point are refused). The heuristic (common/kernel/tile_choice.hpp) predicts a tile's time as the longest
worker's K tiles times the work of one K tile (tile rows x tile columns x 64) divided by the tile's rate, so each
measurement gives

    rate(tile) = 1000 * (longest(tile) * rows * cols / ms(tile)) / (the same for the reference tile)

where the reference is the menu's first tile, the tallest of the 256-wide ones (Hopper 256x256, Blackwell
512x256), longest is the plan's longest worker in K tiles (sk_plan --pair-tile with the line's tile, step 10's plan
with the line's knobs: its max_cost where it splits, else whole rounds) and ms the median over the runs (one per
LOG) of the lines' median times. A tile is compared with the reference timed in the same runs: a log may time only
some tiles (a tile added to the menu later, timed beside the reference in runs of its own), and each tile's rate
takes the reference's median over the logs that time that tile, so no rate compares two sessions' clocks. Writes one
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
WIDEST = 256  # the reference tile's N: the tallest tile this wide is the reference (Hopper 256x256, Blackwell 512x256)
COLUMNS = ["m", "n", "k", "method", "tile", "median_ms", "runs", "longest", "split", "rate_permille"]


InputError = bench_log_csv.InputError  # bad input: the one-line reason


def tile_of(text):
    """(rows, columns) of a tile written RxC."""
    rows, cols = text.split("x")
    return int(rows), int(cols)


def read_times(paths):
    """{(m, n, k, method): {(rows, cols): (median_ms, runs, fields, by_log)}} of the step's lines with a forced tile:
    each log is one run of the loop, at most one line per point and tile; median_ms is the median over the logs that
    have the point, runs their count. fields holds the first line's key=value words and "arch" (its kernel, sm90 or
    sm100); a knob (sk_*, pipe_depth, stages) that differs between runs is refused. by_log: {log index: median_ms}
    of each run that timed the point and tile (rates() pairs a tile with the reference in the same runs)."""
    lines = {}
    for index, path in enumerate(paths):
        seen = set()
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, start=1):
                if "median_ms=" not in text or not text.startswith(STEP + " "):
                    continue
                where = f"{path}:{number}"
                row = bench_log_csv.read_line(text, where)
                fields = dict(w.split("=", 1) for w in text.split() if "=" in w)
                if fields.get("tile_choice") != "forced" or "tile" not in fields:
                    raise InputError(f"{where}: no forced tile (tile=BMxBN tile_choice=forced): run each tile with "
                                     "--tile")
                fields["arch"] = text.split()[1]
                key = (row["m"], row["n"], row["k"], row["method"], tile_of(fields["tile"]))
                if key in seen:
                    raise InputError(f"{where}: a second line for {'x'.join(key[:3])} {key[3]} tile {fields['tile']}"
                                     " in one log (give each run of the loop its own log)")
                seen.add(key)
                earlier = lines.setdefault(key, [])
                knobs = {k: v for k, v in fields.items() if k.startswith("sk_") or k in ("pipe_depth", "stages")}
                if earlier and knobs != earlier[0][2]:
                    raise InputError(f"{where}: knobs differ from the first run's at this point and tile: "
                                     f"{knobs} against {earlier[0][2]}")
                earlier.append((float(row["median_ms"]), fields, knobs, index))
    if not lines:
        raise InputError(f"no {STEP} --bench line with a forced tile in {', '.join(map(str, paths))}")
    times = {}
    for key, runs in lines.items():
        times.setdefault(key[:4], {})[key[4]] = (statistics.median(ms for ms, _, _, _ in runs), len(runs), runs[0][1],
                                                 {index: ms for ms, _, _, index in runs})
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
    for key, by_tile in times.items():
        point = f"{'x'.join(key[:3])} {key[3]}"
        archs = {fields["arch"] for ms, runs, fields, _ in by_tile.values()}
        if len(archs) != 1:
            raise InputError(f"{point}: lines of both kernels ({', '.join(sorted(archs))}): give one GPU's logs at a "
                             "time")
        wide = [t for t in by_tile if t[1] == WIDEST]
        if not wide or len(by_tile) < 2:
            raise InputError(f"{point}: needs the reference tile ({WIDEST} wide) and at least one other")
        ref = max(wide)  # the tallest 256-wide tile
        cost = {t: longest(sk_plan, workers, key[:3], fields) for t, (ms, runs, fields, _) in by_tile.items()}
        ref_runs = by_tile[ref][3]

        def ref_ms(t):  # the reference's median over the runs that timed tile t
            logs = by_tile[t][3]
            if not set(logs) <= set(ref_runs):
                raise InputError(f"{point}: a log times {by_tile[t][2]['tile']} without the reference tile "
                                 f"{by_tile[ref][2]['tile']}: time the reference in every run")
            return statistics.median(ref_runs[i] for i in logs)

        speed = {t: cost[t][0] * t[0] * t[1] / by_tile[t][0] for t in by_tile}
        ref_speed = {t: cost[ref][0] * ref[0] * ref[1] / ref_ms(t) for t in by_tile}
        for t in sorted(by_tile, reverse=True):  # the menus' order: taller first, then wider
            out.append({"m": key[0], "n": key[1], "k": key[2], "method": key[3], "tile": by_tile[t][2]["tile"],
                        "median_ms": f"{by_tile[t][0]:g}", "runs": by_tile[t][1], "longest": cost[t][0],
                        "split": int(cost[t][1]), "rate_permille": round(1000 * speed[t] / ref_speed[t])})
    for tile in sorted({r["tile"] for r in out}, key=lambda t: tuple(-v for v in tile_of(t))):
        values = [r["rate_permille"] for r in out if r["tile"] == tile]
        out.append({"m": "median", "n": "", "k": "", "method": "", "tile": tile, "median_ms": "", "runs": "",
                    "longest": "", "split": "", "rate_permille": round(statistics.median(values))})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=pathlib.Path, metavar="LOG")
    parser.add_argument("--sk-plan", required=True, type=pathlib.Path, help="the build's sk_plan")
    parser.add_argument("--workers", type=int, default=66, help="CTA pairs of the GPU the logs ran on (H200: 66)")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    return bench_log_csv.write_table("tile_rates", args.out, COLUMNS,
                                     lambda: rates(read_times(args.logs), args.sk_plan, args.workers),
                                     (InputError, OSError))


if __name__ == "__main__":
    sys.exit(main())
