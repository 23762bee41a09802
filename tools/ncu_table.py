#!/usr/bin/env python3
"""A few metrics of each profiled kernel launch, from Nsight Compute's raw CSV, as one committed table.

    tools/ncu_table.py LABEL=RAW.csv... --out docs/results/step11_profile.csv
    tools/ncu_table.py --set clock LABEL=RAW.csv... --out docs/results/step11_clock_ab/profile.csv

RAW.csv: `ncu -i REPORT.ncu-rep --page raw --csv` of one report (one row per launch), or what `ncu --csv
--metrics ...` prints (one row per launch and metric; the lines before its header are skipped), or either file
gzipped (RAW.csv.gz, as the raw exports are committed). docs/lab_step11_fitted_tile.md says which reports:
`ncu --set full --clock-control none`, launches of a step's kernel and cuBLAS's in a `--bench` run.
LABEL names the report in the table's `profile` column (such as s11_512x1600x1600). One row per launch.

--set full (the default), the columns:

  profile, launch (1, 2, ... in the report's order), kernel (the name up to its first '(' or '<', with the
  template arguments of our hgemm_kernel kept), grid (CTAs), duration_us, sm_active_cycles (the SMs' average),
  tensor_active_pct (tensor pipe active, % of peak over the elapsed cycles, the SMs' average),
  tensor_active_min_pct (the least busy SM's), l2_hit_pct, dram_read_mb, dram_write_mb, tma_load_mb (what TMA
  loads delivered to the SMs, multicast copies counted at each SM), l2_read_mb (what the SMs read from L2: a
  multicast box once), plain_store_mb (written by ordinary st.global: stream-K's parts and the threads' store of
  D; TMA's stores are not in it), barrier_stall (warps stalled at bar.sync per instruction issued, ncu's
  smsp__average_warps_issue_stalled_barrier_per_issue_active).

ncu writes a quantity in the unit that suits its size (us or ms, Mbyte or Gbyte, sectors of 32 bytes); each is
converted to the column's unit.

--set clock, for two kernels that do the same work at different speeds, the columns: profile, launch, kernel,
grid, duration_us, sm_clock_mhz (the SMs' average clock over the launch, sm__cycles_elapsed.avg.per_second),
cycles_k (duration times clock: the launch's length in thousands of SM cycles), inst_m (instructions executed,
millions), tensor_active_pct, l2_hit_pct, dram_read_mb, dram_write_mb.

Exit codes: 0 written, 2 bad input (a file that is not ncu's raw CSV, a metric missing), said in one line.
Python standard library only.
"""
import argparse
import csv
import gzip
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_log_csv  # noqa: E402  (write_rows: how every results CSV is written)

METRICS = {
    "grid": "launch__grid_size",
    "duration_us": "gpu__time_duration.sum",
    "sm_active_cycles": "sm__cycles_active.avg",
    "tensor_active_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "tensor_active_min_pct": "sm__pipe_tensor_cycles_active.min.pct_of_peak_sustained_elapsed",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "dram_read_mb": "dram__bytes_read.sum",
    "dram_write_mb": "dram__bytes_write.sum",
    "tma_load_mb": "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
    "l2_read_mb": "lts__t_sectors_srcunit_tex_op_read.sum",
    "plain_store_mb": "l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum",
    "barrier_stall": "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
}
# The units a column accepts, each with its factor into the column's unit (a sector is 32 bytes, ncu's L2 unit).
_MB = {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3, "sector": 32e-6}
UNITS = {"duration_us": {"ns": 1e-3, "us": 1.0, "ms": 1e3, "nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3},
         "dram_read_mb": _MB, "dram_write_mb": _MB, "tma_load_mb": _MB, "l2_read_mb": _MB, "plain_store_mb": _MB,
         "sm_clock_mhz": {"hz": 1e-6, "khz": 1e-3, "mhz": 1.0, "ghz": 1e3, "cycle/second": 1e-6,
                          "cycle/nsecond": 1e3, "cycle/usecond": 1.0},
         "inst_m": {"inst": 1e-6, "Kinst": 1e-3, "Minst": 1.0, "Ginst": 1e3}}
CLOCK_METRICS = {
    "grid": "launch__grid_size",
    "duration_us": "gpu__time_duration.sum",
    "sm_clock_mhz": "sm__cycles_elapsed.avg.per_second",
    "inst_m": "sm__inst_executed.sum",
    "tensor_active_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "dram_read_mb": "dram__bytes_read.sum",
    "dram_write_mb": "dram__bytes_write.sum",
}
# Each set: its metrics, and the columns of the table (a derived column after the metrics it is made of).
SETS = {"full": (METRICS, ["profile", "launch", "kernel"] + list(METRICS)),
        "clock": (CLOCK_METRICS, ["profile", "launch", "kernel", "grid", "duration_us", "sm_clock_mhz", "cycles_k",
                                  "inst_m", "tensor_active_pct", "l2_hit_pct", "dram_read_mb", "dram_write_mb"])}


class InputError(Exception):
    """Bad input: the one-line reason."""


def kernel_name(full):
    """cuBLAS's name, or ours with its template arguments: 'step11::hgemm_kernel<128, 4, 0, 1>'."""
    name = re.sub(r"^void ", "", full)
    m = re.match(r"([^(<]+(<[^>]*>)?)", name)
    return m.group(1).strip() if m else name


def pivot(rows, head):
    """ncu --csv's one row per (launch, metric), from its header row on, as the raw page's rows: a header of
    ID, Kernel Name and the metrics, a unit row, one row per launch in ID order."""
    names = rows[head]
    at = {c: names.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
    launches, metrics, units = {}, [], {}
    for r in rows[head + 1:]:
        if len(r) != len(names):
            continue
        metric = r[at["Metric Name"]]
        if metric not in units:
            metrics.append(metric)
            units[metric] = r[at["Metric Unit"]]
        launch = launches.setdefault(int(r[at["ID"]]), {"Kernel Name": r[at["Kernel Name"]]})
        launch[metric] = r[at["Metric Value"]]
    header = ["ID", "Kernel Name"] + metrics
    return [header, ["", ""] + [units[m] for m in metrics]] + [
        [str(i), launch["Kernel Name"]] + [launch.get(m, "") for m in metrics] for i, launch in sorted(launches.items())]


def read_raw(label, path, metric_set="full"):
    metrics_of, _ = SETS[metric_set]
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
    except (gzip.BadGzipFile, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a raw CSV export ({e})") from None
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is not None and "Metric Name" in rows[head]:
        rows, head = pivot(rows, head), 0
    if head is None or head + 1 >= len(rows):
        raise InputError(f"{path}: no 'Kernel Name' header (is it `ncu -i ... --page raw --csv`?)")
    names, units = rows[head], rows[head + 1]
    missing = [m for m in metrics_of.values() if m not in names]
    if missing:
        raise InputError(f"{path}: no metric {', '.join(missing)} (profile with "
                         + ("--set full)" if metric_set == "full" else f"--metrics {','.join(metrics_of.values())})"))
    scale = {}
    for col, accepted in UNITS.items():
        if col not in metrics_of:
            continue
        got = units[names.index(metrics_of[col])]
        if got not in accepted:
            raise InputError(f"{path}: {metrics_of[col]} is in '{got}', expected one of {', '.join(accepted)}")
        scale[col] = accepted[got]
    out = []
    for r in rows[head + 2:]:
        if len(r) != len(names):
            continue
        row = {"profile": label, "launch": len(out) + 1, "kernel": kernel_name(r[names.index("Kernel Name")])}
        for col, metric in metrics_of.items():
            cell = r[names.index(metric)].replace(",", "")
            try:
                value = float(cell) * scale.get(col, 1.0)
            except ValueError:
                raise InputError(f"{path}: {metric} of launch {len(out) + 1} is '{cell}', not a number") from None
            row[col] = f"{value:.0f}" if col in ("grid", "sm_active_cycles") else f"{value:.2f}"
        if metric_set == "clock":  # us x MHz = cycles; in thousands
            row["cycles_k"] = f"{float(row['duration_us']) * float(row['sm_clock_mhz']) / 1000:.1f}"
        out.append(row)
    if not out:
        raise InputError(f"{path}: no launches")
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", metavar="LABEL=RAW.csv")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--set", choices=sorted(SETS), default="full", help="the metrics and columns (above)")
    args = parser.parse_args(argv)
    try:
        rows = []
        for item in args.reports:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                raise InputError(f"'{item}': give LABEL=RAW.csv")
            rows += read_raw(label, path, args.set)
    except (InputError, OSError) as e:
        print(f"ncu_table: {e}", file=sys.stderr)
        return 2
    bench_log_csv.write_rows(args.out, SETS[args.set][1], rows)
    print(f"ncu_table: {len(rows)} launches written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
