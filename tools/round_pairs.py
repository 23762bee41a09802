#!/usr/bin/env python3
"""Two kernels compared round by round within each benchmark run, beside the comparison of their pooled medians.

    tools/round_pairs.py RUN_DIR... --steps A,B --out docs/results/step11_round_ab/round_pairs.csv

RUN_DIR: the --out directory of one `hgemm_bench` run each; its samples.csv holds every timed launch with its round.
The ladder's median takes each kernel's launches of a run together. When single turns run slow (for whatever
reason: a clock held down for a while, say), they are slow for whichever kernel takes them, and the pooled medians
of two kernels that do the same work can differ by more than a percent. Within one round the kernels' turns run
close together, a fraction of a second apart (the turns of others, and under sustained the settle launches, between
them), so the ratio of their medians in that round compares them at nearly one moment. This tool writes, per shape,
method and run (and over all runs, run = all):

  rounds          rounds compared (those in which both kernels ran)
  b_faster        of them, rounds in which B's median is below A's
  paired_pct      B over A, the median over the rounds of the round's ratio, minus one, in percent
  round_min_pct   the smallest round's ratio, minus one, in percent (the spread of the clock episodes)
  round_max_pct   the largest
  pooled_pct      B's median of the run's launches over A's, minus one, in percent; for run = all, the median of
                  the runs' pooled_pct (the runs' paired ratios are pooled instead: paired_pct over every round)

A positive percentage: B took longer. Exit codes: 0 written, 2 bad input (a run without samples.csv, a step
absent from a run, a file without samples.csv's columns, a row with a field missing or not a number, a file
that cannot be read), said in one line. Python standard library only.
"""
import argparse
import collections
import csv
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_log_csv  # noqa: E402  (write_table: how every results table is written)

COLUMNS = ["m", "n", "k", "method", "run", "rounds", "b_faster", "paired_pct", "round_min_pct", "round_max_pct",
           "pooled_pct", "a", "b"]
NEEDED = {"m", "n", "k", "step", "method", "round", "ms"}


class InputError(Exception):
    pass


def read_samples(run_dir):
    """{(m, n, k, method): {step: {round: [ms, ...]}}} of one run's samples.csv."""
    path = run_dir / "samples.csv"
    if not path.is_file():
        raise InputError(f"{path}: no such file; give hgemm_bench's --out directories")
    times = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = NEEDED - set(reader.fieldnames or [])
        if missing:
            raise InputError(f"{path}: no column(s) {', '.join(sorted(missing))}; is it hgemm_bench's samples.csv?")
        for line, row in enumerate(reader, start=2):
            if None in row.values():
                raise InputError(f"{path}:{line}: a field is missing; is the file cut short?")
            key = (int(row["m"]), int(row["n"]), int(row["k"]), row["method"])
            times[key][row["step"]][int(row["round"])].append(float(row["ms"]))
    return times


def pct(ratio):
    return f"{(ratio - 1.0) * 100.0:.2f}"


def compare(runs, a, b):
    """The table's rows: per shape and method, one per run, then run = all."""
    per_key = collections.defaultdict(list)  # (m, n, k, method) -> [(run, round ratios, pooled ratio)]
    for number, (run_dir, times) in enumerate(runs, start=1):
        for key, steps in times.items():
            for step in (a, b):
                if step not in steps:
                    raise InputError(f"{run_dir}: no samples of {step} at {key[0]}x{key[1]}x{key[2]} {key[3]}")
            common = sorted(set(steps[a]) & set(steps[b]))
            ratios = [statistics.median(steps[b][r]) / statistics.median(steps[a][r]) for r in common]
            pooled = (statistics.median([t for r in steps[b].values() for t in r]) /
                      statistics.median([t for r in steps[a].values() for t in r]))
            per_key[key].append((str(number), ratios, pooled))
    rows = []
    for key in sorted(per_key):
        entries = per_key[key]
        every = [x for _, ratios, _ in entries for x in ratios]
        entries.append(("all", every, statistics.median(pooled for _, _, pooled in entries)))
        for run, ratios, pooled in entries:
            rows.append(dict(zip(COLUMNS, [*key, run, len(ratios), sum(x < 1.0 for x in ratios),
                                           pct(statistics.median(ratios)), pct(min(ratios)), pct(max(ratios)),
                                           pct(pooled), a, b])))
    return rows


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=pathlib.Path, metavar="RUN_DIR")
    parser.add_argument("--steps", required=True, help="A,B: B is compared with A")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="the CSV to write")
    args = parser.parse_args(argv)

    def rows():
        names = args.steps.split(",")
        if len(names) != 2 or not all(names) or names[0] == names[1]:
            raise InputError(f"--steps {args.steps}: give two different steps, A,B")
        return compare([(d, read_samples(d)) for d in args.runs], *names)

    return bench_log_csv.write_table("round_pairs", args.out, COLUMNS, rows, (InputError, OSError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
