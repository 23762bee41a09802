#!/usr/bin/env python3
"""Combine whole runs of the benchmark ladder into the ladder the pages show: the median of each row over runs.

    tools/ladder_median.py RUN_DIR... [--out DIR (default docs/results)] [--csv NAME] [--allow-fewer]

RUN_DIR: the --out directory of one `hgemm_bench` run each (ladder.csv, ladder.json; samples.csv, and power.csv if
nvidia-smi logged it). One run on this power-capped GPU moves by several percent, and a page's comparison of two steps
must not flip with the next run, so the pages read the median of at least three whole runs (fewer are refused,
exit 2, unless --allow-fewer). Writes into DIR:

  ladder.csv   hgemm_bench's columns, per (shape, step, method): median_ms, p10_ms and p90_ms the medians of the
               runs' values, tflops from the median time, pct_cublas the median of the runs' own % of cuBLAS (each
               taken within its run, so a run's clock state cancels); plus runs, pct_cublas_min and
               pct_cublas_max (the spread over the runs). A kernel that failed verification in any run keeps
               verified=0 and no time.
  ladder.json  the first run's metadata, with runs (how many) and dates_utc (each run's date).
  power.csv    the runs' nvidia-smi logs, one after the other.
  samples.csv  the first run's timed launches (the runs' others stay in their directories).
  ladder_runs/runN.csv, runN.json   each run as it came (the runs must agree on GPU, steps, shapes and timing).

--csv NAME combines another tool's runs that write hgemm_bench's columns under NAME, keyed by their step or
variant column (hg_dips_bench: --csv dips.csv): DIR gets NAME, <stem>_runs/runN.csv, <stem>_samples.csv from the
first run and power.csv; the runs' <stem>.json, where the tool writes one, is checked and kept as for the ladder.
"""
import argparse
import csv
import json
import pathlib
import shutil
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_log_csv  # noqa: E402  (write_rows: how every results CSV is written)

SAME = ["gpu", "sm_count", "kernel", "driver", "cuda_runtime", "cublas", "iters", "rounds", "warmup",
        "kernel_order", "methods", "steps", "stream_k"]


class InputError(Exception):
    pass


def read_run(run_dir, name="ladder.csv"):
    csv_path, json_path = run_dir / name, run_dir / (pathlib.Path(name).stem + ".json")
    needed = (csv_path, json_path) if name == "ladder.csv" else (csv_path,)
    for p in needed:
        if not p.is_file():
            raise InputError(f"{p} does not exist: give the --out directory of one run of the tool that writes {name}")
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    key = "step" if "step" in fields else "variant"
    keyed = {(r["m"], r["n"], r["k"], r[key], r["method"]): r for r in rows}
    return fields, keyed, json.loads(json_path.read_text()) if json_path.is_file() else {}


def combine(run_dirs, name="ladder.csv"):
    runs = [read_run(d, name) for d in run_dirs]
    fields, first, meta = runs[0]
    for d, (_, rows, m) in zip(run_dirs[1:], runs[1:]):
        if set(rows) != set(first):
            raise InputError(f"{d}/{name} holds other rows than {run_dirs[0]}/{name}: combine runs of the "
                             "same steps, shapes and methods")
        for key in SAME:
            if m.get(key) != meta.get(key):
                raise InputError(f"{d}/{pathlib.Path(name).stem}.json: {key} is {m.get(key)!r}, the first run's {meta.get(key)!r}: "
                                 "combine runs made the same way")
    out = []
    for key, row in first.items():
        row = dict(row)
        rs = [rows[key] for _, rows, _ in runs]
        ok = all(r["verified"] == "1" and float(r["median_ms"]) > 0.0 for r in rs)
        row["runs"] = len(rs) if ok else 0
        if ok:
            for col in ("median_ms", "p10_ms", "p90_ms"):
                row[col] = f"{statistics.median(float(r[col]) for r in rs):.5f}"
            m, n, k = (int(x) for x in key[:3])
            ms = float(row["median_ms"])
            row["tflops"] = f"{2.0 * m * n * k / (ms * 1e-3) / 1e12:.1f}"
            peak = float(rs[0]["tflops"]) / float(rs[0]["pct_peak"]) * 100.0 if float(rs[0]["pct_peak"]) else 0.0
            row["pct_peak"] = f"{100.0 * float(row['tflops']) / peak:.1f}" if peak else rs[0]["pct_peak"]
            pcts = [float(r["pct_cublas"]) for r in rs]
            row.update(pct_cublas=f"{statistics.median(pcts):.1f}", pct_cublas_min=f"{min(pcts):.1f}",
                       pct_cublas_max=f"{max(pcts):.1f}")
        else:  # not timed in every run: no time, as the benchmark writes a kernel it did not time (zeros)
            row.update(verified="0", median_ms="0.00000", p10_ms="0.00000", p90_ms="0.00000", tflops="0.0",
                       pct_cublas="0.0", pct_peak="0.0", pct_cublas_min="", pct_cublas_max="")
        out.append(row)
    if meta:
        meta = dict(meta, runs=len(runs), dates_utc=[m["date_utc"] for _, _, m in runs])
    return fields + ["runs", "pct_cublas_min", "pct_cublas_max"], out, meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("docs/results"))
    ap.add_argument("--csv", default="ladder.csv", help="the runs' CSV file name (default ladder.csv)")
    ap.add_argument("--allow-fewer", action="store_true")
    a = ap.parse_args(argv)
    seen = set()
    for r in a.runs:
        if r.resolve() in seen:
            print(f"ladder_median: {r} is given twice: the median is over distinct runs", file=sys.stderr)
            return 2
        seen.add(r.resolve())
    if len(a.runs) < 3 and not a.allow_fewer:
        print(f"ladder_median: {len(a.runs)} run(s) given: a comparison needs the median of at least three whole "
              "runs (or pass --allow-fewer for a look)", file=sys.stderr)
        return 2
    try:
        fields, rows, meta = combine(a.runs, a.csv)
    except InputError as e:
        print(f"ladder_median: {e}", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    stem = pathlib.Path(a.csv).stem
    bench_log_csv.write_rows(a.out / a.csv, fields, rows)
    if meta:
        (a.out / f"{stem}.json").write_text(json.dumps(meta, indent=2) + "\n")
    kept = a.out / f"{stem}_runs"
    kept.mkdir(exist_ok=True)
    power = []
    for i, d in enumerate(a.runs, 1):
        shutil.copyfile(d / a.csv, kept / f"run{i}.csv")
        if (d / f"{stem}.json").is_file():
            shutil.copyfile(d / f"{stem}.json", kept / f"run{i}.json")
        if (d / "power.csv").is_file():
            lines = (d / "power.csv").read_text().splitlines()
            power += lines if not power else lines[1:]
    if power:
        (a.out / "power.csv").write_text("\n".join(power) + "\n")
    samples = "samples.csv" if a.csv == "ladder.csv" else f"{stem}_samples.csv"
    if (a.runs[0] / samples).is_file():
        shutil.copyfile(a.runs[0] / samples, a.out / samples)
    print(f"ladder_median: {len(rows)} rows, the median of {len(a.runs)} runs, written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
