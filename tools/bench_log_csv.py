#!/usr/bin/env python3
"""Turn the summary lines of verify binaries run with --bench, each kernel in its own process, into a CSV the
pages can tie numbers to.

    tools/bench_log_csv.py LOG... --source TEXT --out FILE.csv

LOG: what `./build/STEP --m M --n N --k K --bench --settle-ms 0|50` printed, any number of runs one after the other
(the order they ran in). A summary line is one that holds median_ms=; every other line is passed over. Each must
say PASS (the kernel verified) and cublas_check=PASS, and hold M, N, K, method, median_ms, p10_ms, p90_ms, tflops,
cublas_median_ms and pct_cublas (the kernel's and cuBLAS's medians from one process's interleaved rounds, and
100 * cuBLAS's median / the kernel's). The n-th line of one kernel (shape, method, step, tile, stream-K knobs,
pipeline depth) is its repetition n: a line with other knobs or another depth is another kernel.

Writes FILE.csv, one row per line (kind=run, rep=n) and per kernel one more (kind=median, rep empty): each
column's own median over the repetitions, so a median row may take its p10_ms from another
repetition than its median_ms. Columns: m, n, k, method, step, tile (the line's tile=, step 11's; empty for a step
without a menu), kind, rep, median_ms, p10_ms, p90_ms, tflops,
cublas_median_ms, pct_cublas, stream_k (the line's sk_* knobs, empty for a step without them), pipe_depth (the
line's pipe_depth=, empty where it has none), gpu, source
(--source: when, where and how the logs were made; the CSV keeps no other record of it). Every kernel needs the
same odd number of repetitions, at least three, so that a median is a measured value and a
comparison does not rest on one process. Exit codes: 0 written, 2 bad input (each said in one line naming the
file and line). Python standard library only.
"""
import argparse
import csv
import pathlib
import re
import sys

FIELD_RE = re.compile(r'(\w+)=("[^"]*"|\S+)')
NEEDED = ["M", "N", "K", "method", "median_ms", "p10_ms", "p90_ms", "tflops", "cublas_median_ms", "pct_cublas"]
VALUES = ["median_ms", "p10_ms", "p90_ms", "tflops", "cublas_median_ms", "pct_cublas"]  # each row's numbers
KEY = ["m", "n", "k", "method", "step", "tile", "stream_k", "pipe_depth"]  # what one repetition is a repetition of
COLUMNS = KEY[:6] + ["kind", "rep"] + VALUES + KEY[6:] + ["gpu", "source"]
MIN_REPS = 3


class InputError(Exception):
    """Bad input: the one-line reason."""


def read_line(text, where):
    """The row of one summary line (without kind, rep and source), or raises InputError naming `where`."""
    words = text.split()
    fields = {k: v.strip('"') for k, v in FIELD_RE.findall(text)}
    missing = [k for k in NEEDED if k not in fields]
    if missing:
        raise InputError(f"{where}: no {', '.join(missing)} (is it the summary line of a verify binary's --bench?)")
    if "PASS" not in words or fields.get("cublas_check") != "PASS":
        raise InputError(f"{where}: the kernel or cuBLAS did not verify (no PASS, or cublas_check is not PASS): a "
                         "time of a wrong result is no time")
    for k in VALUES:
        try:
            float(fields[k])
        except ValueError:
            raise InputError(f"{where}: {k}={fields[k]} is not a number") from None
    knobs = " ".join(f"{k[3:]}={v}" for k, v in fields.items() if k.startswith("sk_"))
    return {"m": fields["M"], "n": fields["N"], "k": fields["K"], "method": fields["method"], "step": words[0],
            "tile": fields.get("tile", ""), **{k: fields[k] for k in VALUES}, "stream_k": knobs,
            "pipe_depth": fields.get("pipe_depth", ""), "gpu": fields.get("gpu", "")}


def read_logs(paths):
    """{(m, n, k, method, step, tile, stream_k, pipe_depth): [row, ...]} in the order the lines ran."""
    runs = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, start=1):
                if "median_ms=" not in text:
                    continue
                row = read_line(text, f"{path}:{number}")
                runs.setdefault(tuple(row[c] for c in KEY), []).append(row)
    if not runs:
        raise InputError(f"no summary line (median_ms=) in {', '.join(str(p) for p in paths)}: give the output of "
                         "verify binaries run with --bench")
    return runs


def median_text(texts):
    """The median of an odd number of numbers, as one of them was written."""
    return sorted(texts, key=float)[len(texts) // 2]


def rows_of(runs, source):
    """The rows of the CSV: each repetition, then the median, per kernel in the order first seen."""
    counts = {len(reps) for reps in runs.values()}
    if len(counts) != 1:
        seen = ", ".join(f"{'x'.join(key[:3])} {key[3]} {' '.join(key[4:]).strip()}: {len(reps)}"
                         for key, reps in runs.items())
        raise InputError("every kernel (shape, method, step, tile, knobs, depth) needs the same number of "
                         f"repetitions, got {seen}")
    reps = counts.pop()
    if reps < MIN_REPS or reps % 2 == 0:
        raise InputError(f"{reps} repetition(s) of each: give an odd number, at least {MIN_REPS}, so that the median "
                         "is one process's measurement and no comparison rests on one process")
    out = []
    for rows in runs.values():
        for rep, row in enumerate(rows, start=1):
            out.append({**row, "kind": "run", "rep": rep, "source": source})
        out.append({**rows[0], **{k: median_text([r[k] for r in rows]) for k in VALUES}, "kind": "median", "rep": "",
                    "source": source})
    return out


def write_rows(path, columns, rows):
    """Writes `rows` (dicts) to the CSV `path` with the header `columns`, as every results file here is written."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_table(tool, out, columns, make_rows, bad_input):
    """The end of a table tool's command line: the rows make_rows() returns, written to `out` (write_rows) with one
    line saying so; an exception of the types `bad_input` is the tool's bad input, said in one line
    ("tool: message"), exit code 2. Returns the exit code."""
    try:
        rows = make_rows()
        write_rows(out, columns, rows)  # an --out that cannot be written is bad input too
    except bad_input as e:
        sys.stderr.write(f"{tool}: {e}\n")
        return 2
    print(f"{tool}: {len(rows)} rows written to {out}")
    return 0


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=pathlib.Path, metavar="LOG")
    parser.add_argument("--source", required=True, help="when, where and how the logs were made (into every row)")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="the CSV to write")
    args = parser.parse_args(argv)
    return write_table("bench_log_csv", args.out, COLUMNS, lambda: rows_of(read_logs(args.logs), args.source),
                       (InputError, OSError, ValueError))  # ValueError: a log that is not UTF-8 text


if __name__ == "__main__":
    sys.exit(main())
