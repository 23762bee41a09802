#!/usr/bin/env python3
"""A few metrics of each profiled kernel launch, from Nsight Compute's raw CSV, as one committed table.

    tools/ncu_table.py LABEL=RAW.csv... --out docs/results/step11_profile.csv

RAW.csv: `ncu -i REPORT.ncu-rep --page raw --csv` of one report (docs/lab_step11_fitted_tile.md says which
reports: `ncu --set full --clock-control none`, launches of a step's kernel and cuBLAS's in a `--bench` run).
LABEL names the report in the table's `profile` column (such as s11_512x1600x1600). One row per launch:

  profile, launch (1, 2, ... in the report's order), kernel (the name up to its first '(' or '<', with the
  template arguments of our hgemm_kernel kept), grid (CTAs), duration_us, sm_active_cycles (the SMs' average),
  tensor_active_pct (tensor pipe active, % of peak over the elapsed cycles, the SMs' average),
  tensor_active_min_pct (the least busy SM's), l2_hit_pct, dram_read_mb.

Exit codes: 0 written, 2 bad input (a file that is not ncu's raw CSV, a metric missing), said in one line.
Python standard library only.
"""
import argparse
import csv
import pathlib
import re
import sys

METRICS = {
    "grid": "launch__grid_size",
    "duration_us": "gpu__time_duration.sum",
    "sm_active_cycles": "sm__cycles_active.avg",
    "tensor_active_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "tensor_active_min_pct": "sm__pipe_tensor_cycles_active.min.pct_of_peak_sustained_elapsed",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "dram_read_mb": "dram__bytes_read.sum",
}
UNITS = {"duration_us": "us", "dram_read_mb": "Mbyte"}  # what the value must be in, as ncu's unit row says
COLUMNS = ["profile", "launch", "kernel"] + list(METRICS)


class InputError(Exception):
    """Bad input: the one-line reason."""


def kernel_name(full):
    """cuBLAS's name, or ours with its template arguments: 'step11::hgemm_kernel<128, 4, 0, 1>'."""
    name = re.sub(r"^void ", "", full)
    m = re.match(r"([^(<]+(<[^>]*>)?)", name)
    return m.group(1).strip() if m else name


def read_raw(label, path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None or head + 1 >= len(rows):
        raise InputError(f"{path}: no 'Kernel Name' header (is it `ncu -i ... --page raw --csv`?)")
    names, units = rows[head], rows[head + 1]
    missing = [m for m in METRICS.values() if m not in names]
    if missing:
        raise InputError(f"{path}: no metric {', '.join(missing)} (profile with --set full)")
    for col, unit in UNITS.items():
        got = units[names.index(METRICS[col])]
        if got != unit:
            raise InputError(f"{path}: {METRICS[col]} is in '{got}', expected '{unit}'")
    out = []
    for r in rows[head + 2:]:
        if len(r) != len(names):
            continue
        row = {"profile": label, "launch": len(out) + 1, "kernel": kernel_name(r[names.index("Kernel Name")])}
        for col, metric in METRICS.items():
            value = float(r[names.index(metric)].replace(",", ""))
            row[col] = f"{value:.0f}" if col in ("grid", "sm_active_cycles") else f"{value:.2f}"
        out.append(row)
    if not out:
        raise InputError(f"{path}: no launches")
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", metavar="LABEL=RAW.csv")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    try:
        rows = []
        for item in args.reports:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                raise InputError(f"'{item}': give LABEL=RAW.csv")
            rows += read_raw(label, path)
    except (InputError, OSError) as e:
        print(f"ncu_table: {e}", file=sys.stderr)
        return 2
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"ncu_table: {len(rows)} launches written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
