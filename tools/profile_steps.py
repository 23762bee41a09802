#!/usr/bin/env python3
"""Profile the ladder steps' kernels and cuBLAS with Nsight Compute, and write the committed profile table.

    tools/profile_steps.py BUILD_DIR [OUT_DIR]   run ncu on the registry's ladder steps and cuBLAS at each
                                                 shape of SHAPES below, and write OUT_DIR/profile.csv and
                                                 profile.json (default docs/results); tools/pages.py puts them
                                                 into the pages

The committed docs/results/profile.csv was made before step10_stream_k joined the ladder, which it lacks: a run
now adds its rows (the pages that quote the table say which steps it holds).

Needs a Hopper or Blackwell GPU and `ncu` (Nsight Compute) on PATH or in NCU. Each profiled launch is the
step's first launch of its kernel (the verified one) on random inputs; for cuBLAS, its first GEMM kernel in a
step binary's --bench run. Clocks are left as the GPU sets them (--clock-control none), so durations include
boost and power behaviour, as in the benchmark.

Columns: duration; tensor-pipe active (% of peak, active cycles); achieved occupancy (% of the SM's warps);
resident CTAs per SM (the occupancy calculator's limit: the smallest of the register, shared-memory, warp
and block limits); L2 hit rate; DRAM bytes read; the two largest warp stall reasons (average warps stalled
per issued instruction, from ncu's warp-state metrics).
"""
import csv
import json
import os
import re
import subprocess
import sys
import time

SHAPES = [(4096, 4096, 4096), (16384, 4096, 1024)]  # the second: short K (16 K tiles), 4096 output tiles
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_log_csv  # noqa: E402  (write_rows: how every results CSV is written)
import registry  # noqa: E402  (tools/registry.py: the steps of steps.json)

STEPS = registry.ladder()
KERNEL = "regex:hgemm_kernel"
CUBLAS = "regex:nvjet|xmma|cutlass"  # cuBLAS 13's GEMM kernels (nvjet_...); never our hgemm_kernel

BASE_METRICS = {
    "duration_ns": "gpu__time_duration.sum",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "dram_read_bytes": "dram__bytes_read.sum",
    "limit_registers": "launch__occupancy_limit_registers",
    "limit_shared_mem": "launch__occupancy_limit_shared_mem",
    "limit_warps": "launch__occupancy_limit_warps",
    "limit_blocks": "launch__occupancy_limit_blocks",
    "grid_size": "launch__grid_size",
}
# The tensor pipe's active cycles: the first of these the GPU's ncu knows.
TENSOR_PIPES = ["sm__pipe_tensor_cycles_active", "sm__pipe_tensor_op_hmma_cycles_active"]
STALL_RE = re.compile(r"^(smsp__average_warps_issue_stalled_(\w+)_per_issue_active)\b")

COLUMNS = ["m", "n", "k", "step", "duration_ms", "tensor_active_pct", "achieved_occupancy_pct", "ctas_per_sm",
           "grid_size", "l2_hit_pct", "dram_read_mb", "stall1", "stall1_ratio", "stall2", "stall2_ratio"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def available_metrics(ncu):
    out = run([ncu, "--query-metrics"])
    if out.returncode != 0:
        sys.exit(f"profile_steps: {ncu} --query-metrics failed:\n{out.stdout}{out.stderr}")
    return {line.split()[0] for line in out.stdout.splitlines() if line.strip() and line.split()[0].count("__")}


def profile(ncu, metrics, kernel_filter, cmd):
    """The first launch matching kernel_filter in `cmd`: ({metric: value text}, kernel name), from ncu's raw
    CSV page (a header row, a units row, then one row per profiled launch)."""
    full = [ncu, "--clock-control", "none", "--csv", "--page", "raw", "-k", kernel_filter, "-c", "1",
            "--metrics", ",".join(metrics)] + cmd
    out = run(full)
    rows = list(csv.reader(line for line in out.stdout.splitlines() if line.startswith('"')))
    if out.returncode != 0 or len(rows) < 3:
        sys.exit(f"profile_steps: ncu failed or profiled nothing ({' '.join(full)}):\n{out.stdout[-3000:]}"
                 f"{out.stderr[-3000:]}")
    values = dict(zip(rows[0], rows[2]))
    return values, values.get("Kernel Name", "")


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else float("nan")


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    build = argv[1]
    out_dir = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                          "docs", "results")
    ncu = os.environ.get("NCU", "ncu")
    known = available_metrics(ncu)
    tensor = next((m for m in TENSOR_PIPES if m in known), None)
    if tensor is None:
        sys.exit("profile_steps: this ncu knows none of " + ", ".join(TENSOR_PIPES))
    # Every stall reason ncu names, except "selected" (a warp that issued is not stalled).
    stalls = sorted(m for m in known if STALL_RE.match(m) and STALL_RE.match(m).group(2) != "selected")
    metrics = list(BASE_METRICS.values()) + [tensor + ".avg.pct_of_peak_sustained_active"] + \
        [s + ".ratio" for s in stalls]
    # launch__* are launch attributes: ncu collects them but --query-metrics does not list them.
    missing = [m for m in BASE_METRICS.values() if not m.startswith("launch__") and m.split(".")[0] not in known]
    if missing:
        sys.exit("profile_steps: this ncu lacks " + ", ".join(missing))

    rows, kernels = [], {}
    for (m, n, k) in SHAPES:
        shape_args = ["--m", str(m), "--n", str(n), "--k", str(k), "--init", "random"]
        jobs = [(s, KERNEL, [os.path.join(build, s)] + shape_args) for s in STEPS]
        jobs.append(("cublas", CUBLAS, [os.path.join(build, "step5_pipeline")] + shape_args +
                     ["--bench", "--warmup", "0", "--iters", "1"]))
        for name, flt, cmd in jobs:
            print(f"profile_steps: {m}x{n}x{k} {name}", file=sys.stderr, flush=True)
            values, kernel_name = profile(ncu, metrics, flt, cmd)
            if (name == "cublas") == ("hgemm_kernel" in kernel_name):  # the filter caught the wrong kernel
                sys.exit(f"profile_steps: {name} profiled '{kernel_name}'")
            kernels[f"{m}x{n}x{k} {name}"] = kernel_name
            stall_values = sorted(((number(values.get(s + ".ratio", "")), STALL_RE.match(s).group(2))
                                   for s in stalls), reverse=True)
            stall_values = [(v, s) for v, s in stall_values if v == v]  # drop NaN
            limits = [number(values[BASE_METRICS[x]]) for x in ("limit_registers", "limit_shared_mem",
                                                                 "limit_warps", "limit_blocks")]
            rows.append({
                "m": m, "n": n, "k": k, "step": name,
                "duration_ms": f"{number(values[BASE_METRICS['duration_ns']]) / 1e6:.4f}",
                "tensor_active_pct": f"{number(values[tensor + '.avg.pct_of_peak_sustained_active']):.1f}",
                "achieved_occupancy_pct": f"{number(values[BASE_METRICS['achieved_occupancy_pct']]):.1f}",
                "ctas_per_sm": f"{int(min(limits))}",
                "grid_size": f"{int(number(values[BASE_METRICS['grid_size']]))}",
                "l2_hit_pct": f"{number(values[BASE_METRICS['l2_hit_pct']]):.1f}",
                "dram_read_mb": f"{number(values[BASE_METRICS['dram_read_bytes']]) / 1e6:.1f}",
            })
            for i in (0, 1):  # the two largest stall reasons
                have = len(stall_values) > i
                rows[-1][f"stall{i + 1}"] = stall_values[i][1] if have else ""
                rows[-1][f"stall{i + 1}_ratio"] = f"{stall_values[i][0]:.2f}" if have else ""

    smi = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]).stdout.strip()
    gpu, driver = (smi.split(", ") + ["", ""])[:2]
    ncu_version = run([ncu, "--version"]).stdout.strip().splitlines()[-1]
    cuda = run(["nvcc", "--version"]).stdout
    cuda = re.search(r"release (\S+),", cuda).group(1) if "release" in cuda else ""
    meta = {"gpu": gpu, "driver": driver, "cuda": cuda, "ncu": ncu_version,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "tensor_metric": tensor,
            "clock_control": "none", "csv": "profile.csv", "kernels": kernels}
    os.makedirs(out_dir, exist_ok=True)
    bench_log_csv.write_rows(os.path.join(out_dir, "profile.csv"), COLUMNS, rows)
    with open(os.path.join(out_dir, "profile.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    for r in rows:
        print(",".join(str(r[c]) for c in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
