#!/usr/bin/env python3
"""Combine whole runs of the layer-shape sweep into the results the pages show.

    tools/sweep_summary.py RUN.csv... [--out DIR] [--allow-fewer]

RUN.csv: the sweep_run.csv of one run of `hgemm_bench --sweep tools/sweep_shapes.csv` each (give at least three:
one run on a power-capped GPU moves by several percent). Writes into DIR (default docs/results):

  sweep.csv        per shape, method (burst, sustained) and kernel: the median over the runs of its % of
                   cuBLAS, the spread (min and max over the runs), its median TFLOP/s, and how it compares with
                   the previous step at that shape (win, loss, tie; empty where either has no time);
                   a kernel that skipped the shape (its rule refuses it) has the reason in `note` and no numbers.
  sweep_steps.csv  per step and method, over the shapes it timed: the median and the worst of those medians
                   (and the worst one's shape), and its wins, losses and ties against the previous step.

and prints the second table. % of cuBLAS is taken within each run: 100 * cuBLAS's median time / the kernel's,
both from the same interleaved rounds and method, so a run's clock state cancels.

"Beyond the spread": a step wins at a shape (and method) when the difference of the two medians over the runs,
its own minus the previous step's, exceeds the larger of the two steps' ranges there (max - min of their % of
cuBLAS over the runs); it loses when the negative difference does; anything else is a tie, however large the
difference of medians looks. The previous step is the one before it among the registry's steps (steps.json,
in the ladder or not) that the runs timed. A VARIANT of a step (hgemm_bench --sk-forced's step10_stream_k+split:
a name with '+' after the step's) gets its medians like any kernel but stands outside that chain: it has no previous
step, and is no step's previous (tools/choose_sk_knobs.py weighs it). With one run every range is zero and every
difference would count, so a claim needs three runs or more: fewer are refused (exit 2) unless --allow-fewer, and
then sweep_steps.csv says claims=no and the table says why. The runs must hold the same rows (the same sweep file,
steps and methods); a kernel that failed verification in a run has no time there (`note` names the runs, numbered
in the order given).

Exit codes: 0 written, 2 bad input (a missing column, runs that differ, fewer than three runs), each said in one
line. Python standard library only.
"""
import argparse
import csv
import io
import pathlib
import statistics
import subprocess
import sys

import registry

NEEDED = ["m", "n", "k", "step", "method", "verified", "median_ms", "model", "layer", "source", "skipped"]
MIN_RUNS = 3
BASELINE = "cublas"


class InputError(Exception):
    """Bad input: the one-line reason."""


def read_run(path):
    """{(m, n, k, method, step): row} of one run's CSV, in file order, with the shape's model, layer and source."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in NEEDED if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}: no column {', '.join(missing)} (is it the sweep_run.csv of hgemm_bench "
                             "--sweep?)")
        rows = {}
        for line, row in enumerate(reader, start=2):
            key = (int(row["m"]), int(row["n"]), int(row["k"]), row["method"], row["step"])
            if key in rows:
                raise InputError(f"{path}:{line}: the row of {row['step']} at {shape_text(key)} {row['method']} "
                                 "appears twice")
            rows[key] = row
    return rows


def shape_text(key):
    return "%dx%dx%d" % key[:3]


def pct_of_cublas(run, key):
    """The kernel's % of cuBLAS in one run, or None when it has no time there (skipped or failed)."""
    row = run[key]
    if row["skipped"] or row["verified"] != "1" or float(row["median_ms"]) <= 0:
        return None
    base = run.get(key[:4] + (BASELINE,))
    if base is None or float(base["median_ms"]) <= 0:
        raise InputError(f"no timed cuBLAS row at {shape_text(key)} {key[3]}: every shape needs its baseline")
    return 100.0 * float(base["median_ms"]) / float(row["median_ms"])


def tflops(key, ms):
    return 2.0 * key[0] * key[1] * key[2] / (ms * 1e-3) / 1e12


def combine(paths):
    """The per-shape rows of sweep.csv, as dicts, in the first run's order."""
    runs = [read_run(p) for p in paths]
    keys = list(runs[0])
    for path, run in zip(paths[1:], runs[1:]):
        if set(run) != set(keys):
            extra, lacks = sorted(set(run) - set(keys)), sorted(set(keys) - set(run))
            which = f"has {shape_text(extra[0])} {extra[0][4]} {extra[0][3]}" if extra else \
                f"lacks {shape_text(lacks[0])} {lacks[0][4]} {lacks[0][3]}"
            raise InputError(f"{path} {which} that {paths[0]} does not: combine runs of the same sweep, steps and "
                             "methods")
    steps = registry.steps()
    for key in keys:
        if key[4] != BASELINE and key[4].split("+")[0] not in steps:
            raise InputError(f"{paths[0]}: '{key[4]}' is not a step of steps.json (or a variant of one: "
                             "step+variant)")
    out = []
    for key in keys:
        first = runs[0][key]
        row = {"model": first["model"], "layer": first["layer"], "m": key[0], "n": key[1], "k": key[2],
               "method": key[3], "step": key[4], "runs": 0, "pct_cublas_median": "", "pct_cublas_min": "",
               "pct_cublas_max": "", "tflops_median": "", "previous": "", "vs_previous": "", "note": "",
               "source": first["source"]}
        if first["skipped"]:
            row["note"] = "skipped: " + first["skipped"]
            out.append(row)
            continue
        pcts = [pct_of_cublas(run, key) for run in runs]
        failed = [str(i + 1) for i, p in enumerate(pcts) if p is None]
        values = [p for p in pcts if p is not None]
        if failed:
            row["note"] = "failed verification in run %s" % ", ".join(failed)
        if values:
            ms = [float(run[key]["median_ms"]) for run, p in zip(runs, pcts) if p is not None]
            row.update(runs=len(values), pct_cublas_median=statistics.median(values), pct_cublas_min=min(values),
                       pct_cublas_max=max(values), tflops_median=tflops(key, statistics.median(ms)))
        out.append(row)
    compare_with_previous(out, steps)
    return out


def is_variant(step):
    """Whether `step` names a variant of a step (step+variant), outside the chain of previous steps."""
    return "+" in step


def compare_with_previous(rows, steps):
    """Fills previous and vs_previous: each step against the registry's step before it that the runs timed."""
    timed = [s for s in steps if any(r["step"] == s for r in rows)]
    by_key = {(r["m"], r["n"], r["k"], r["method"], r["step"]): r for r in rows}
    for r in rows:
        if r["step"] == BASELINE or is_variant(r["step"]) or timed.index(r["step"]) == 0:
            continue
        prev = timed[timed.index(r["step"]) - 1]
        r["previous"] = prev
        p = by_key[(r["m"], r["n"], r["k"], r["method"], prev)]
        if r["runs"] == 0 or p["runs"] == 0:
            continue
        r["vs_previous"] = verdict(r, p)


def verdict(mine, prev):
    """win, loss or tie: the difference of medians against the larger of the two ranges (the module's docstring)."""
    diff = mine["pct_cublas_median"] - prev["pct_cublas_median"]
    spread = max(mine["pct_cublas_max"] - mine["pct_cublas_min"], prev["pct_cublas_max"] - prev["pct_cublas_min"])
    if diff > spread:
        return "win"
    if -diff > spread:
        return "loss"
    return "tie"


def step_summary(rows):
    """The rows of sweep_steps.csv: per step and method over the shapes with a time. claims=yes only where every
    one of those shapes has a time in at least MIN_RUNS runs."""
    out = []
    methods = list(dict.fromkeys(r["method"] for r in rows))
    steps = list(dict.fromkeys(r["step"] for r in rows if r["step"] != BASELINE))
    for step in steps:
        for method in methods:
            mine = [r for r in rows if r["step"] == step and r["method"] == method]
            timed = [r for r in mine if r["runs"] > 0]
            if not timed:
                continue
            medians = [r["pct_cublas_median"] for r in timed]
            worst = min(timed, key=lambda r: r["pct_cublas_median"])
            verdicts = [r["vs_previous"] for r in mine]
            runs = min(r["runs"] for r in timed)
            out.append({"step": step, "method": method, "runs": runs,
                        "shapes": len(timed), "pct_cublas_median": statistics.median(medians),
                        "pct_cublas_worst": worst["pct_cublas_median"],
                        "worst_shape": "%s %s %dx%dx%d" % (worst["model"], worst["layer"], worst["m"], worst["n"],
                                                          worst["k"]),
                        "previous": mine[0]["previous"], "wins": verdicts.count("win"),
                        "losses": verdicts.count("loss"), "ties": verdicts.count("tie"),
                        "claims": "yes" if runs >= MIN_RUNS else "no"})
    return out


def write_csv(path, rows, columns):
    """rows (dicts) as CSV with `columns`, floats to one decimal; creates the file's folder if it is missing."""
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: ("%.1f" % r[c] if isinstance(r[c], float) else r[c]) for c in columns})


SHAPE_COLUMNS = ["model", "layer", "m", "n", "k", "method", "step", "runs", "pct_cublas_median", "pct_cublas_min",
                 "pct_cublas_max", "tflops_median", "previous", "vs_previous", "note", "source"]
STEP_COLUMNS = ["step", "method", "runs", "shapes", "pct_cublas_median", "pct_cublas_worst", "worst_shape",
                "previous", "wins", "losses", "ties", "claims"]


def tool_rows(cmd, target):
    """The CSV rows (dicts) that the project's binary cmd[0], built as ninja target `target`, prints for cmd: what
    tools/choose_sk_knobs.py asks sk_plan and tools/choose_tile_price.py asks hg_step_facts. InputError when it
    cannot run or fails."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise InputError(f"cannot run {target} '{cmd[0]}': {e} (build it: ninja -C build {target})")
    if done.returncode != 0:
        raise InputError(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    return list(csv.DictReader(io.StringIO(done.stdout)))


def read_combined(path):
    """sweep.csv as combine and write_csv wrote it: {(m, n, k, method, step): row}, with runs an int and the % of
    cuBLAS columns floats (None where the kernel has no time at that shape)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in SHAPE_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}: no column {', '.join(missing)} (is it the sweep.csv of sweep_summary.py?)")
        rows = {}
        for row in reader:
            row["runs"] = int(row["runs"])
            for c in ("pct_cublas_median", "pct_cublas_min", "pct_cublas_max"):
                row[c] = float(row[c]) if row[c] else None
            rows[(int(row["m"]), int(row["n"]), int(row["k"]), row["method"], row["step"])] = row
    return rows


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description="Combine runs of hgemm_bench --sweep into sweep.csv and "
                                                 "sweep_steps.csv.")
    parser.add_argument("runs", nargs="+", metavar="RUN.csv", help="one sweep_run.csv per whole run")
    parser.add_argument("--out", default=str(registry.ROOT / "docs" / "results"),
                        help="where sweep.csv and sweep_steps.csv go (default: docs/results)")
    parser.add_argument("--allow-fewer", action="store_true",
                        help=f"summarize fewer than {MIN_RUNS} runs; the step rows then say claims=no")
    args = parser.parse_args(argv)
    try:
        paths = [pathlib.Path(p) for p in args.runs]
        repeated = [p for i, p in enumerate(paths) if p.resolve() in [q.resolve() for q in paths[:i]]]
        if repeated:
            raise InputError(f"{repeated[0]} is given twice: each run counts once")
        claims = len(paths) >= MIN_RUNS
        if not claims and not args.allow_fewer:
            raise InputError(f"{len(paths)} run(s) given: a claim rests on the median of at least {MIN_RUNS} whole "
                             "runs (pass --allow-fewer to summarize anyway; the step rows then say claims=no)")
        rows = combine(paths)
    except (InputError, OSError, ValueError) as e:
        sys.stderr.write(f"sweep_summary: {e}\n")
        return 2
    steps = step_summary(rows)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "sweep.csv", rows, SHAPE_COLUMNS)
    write_csv(out / "sweep_steps.csv", steps, STEP_COLUMNS)
    print("%-22s %-9s %4s %6s %8s %8s  %-20s %4s %6s %4s  %s" % (
        "step", "method", "runs", "shapes", "median%", "worst%", "previous", "wins", "losses", "ties", "worst shape"))
    for s in steps:
        print("%-22s %-9s %4d %6d %8.1f %8.1f  %-20s %4d %6d %4d  %s" % (
            s["step"], s["method"], s["runs"], s["shapes"], s["pct_cublas_median"], s["pct_cublas_worst"],
            s["previous"] or "-", s["wins"], s["losses"], s["ties"], s["worst_shape"]))
    if any(s["claims"] == "no" for s in steps):
        print(f"claims=no where a step has fewer than {MIN_RUNS} timed runs: its wins and losses are no claim")
    print(f"wrote {out / 'sweep.csv'} and {out / 'sweep_steps.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
