#!/usr/bin/env python3
"""Time the ladder's steps from PyTorch (hgemm.mm, tile auto), torch.matmul(a, b.T) and a persistent Triton GEMM
(torch/hgemm/triton_matmul.py) in one process, on the default benchmark shapes or a sweep file.

    PYTHONPATH=torch python3 tools/torch_bench.py [--quick] [--sweep [FILE]] [--steps NAME,...] [--out FILE.csv]
                                                  [--iters N] [--rounds R] [--warmup W] [--settle-ms T]

The library: $HGEMM_TORCH_LIB or build/libhgemm_torch_ops.so (cmake --build build --target hgemm_torch_ops).
The steps: those steps.json marks "ladder", and hgemm.mm's default step (the last); --steps names others. The
shapes: hgemm_bench's defaults (default_bench_shapes, common/harness/bench.cpp, which the library reports), or with
--sweep the rows of tools/sweep_shapes.csv (or FILE) that the contenders' rules take. --quick: the first and last
default shape, 20 launches in 2 rounds: a smoke test of a few tens of seconds, Triton's compilation included.

It times as hgemm_bench does (common/harness: time_interleaved, RotatingInputs), with the library's own functions
for the parts that decide a number: each contender is first checked on one random-normal problem against the fp32
reference with the verify binary's tolerance (hgemm/verify.py; torch.matmul is checked too, and a contender that
fails is reported and not timed); inputs rotate over enough sets of A and B that together they are at least twice
the L2 (rotating_input_sets), so no launch finds its operands cached by the one before (D is each call's own
output, which PyTorch's caching allocator hands back from the same block, for every contender alike, where
hgemm_bench rotates D with A and B); after W warm-up launches of
each, R rounds in which every contender takes iters/R timed launches in turn, in the balanced order of round_order
(each turn follows every other contender's equally often over a cycle), by two methods: burst (no settle) and
sustained (each turn starts with about T ms of untimed launches of that contender, sized from its warm-up, so that a
power-capped GPU times it at the clock it can hold). median/p10/p90: hg::summarize (NumPy's interpolation).

Launch overhead. Each timed launch is one Python call between two CUDA events recorded on the stream: for hgemm.mm
the custom op's dispatch, the output's allocation and the ctypes call into a prepared launcher (kept per problem:
its first call on each set prepares it, in the check pass before the warm-up, unless a later output lands at a
new address); for torch.matmul its dispatch to cuBLAS; for Triton its
launcher, which builds three TMA descriptors on every call. The events time the GPU's stream, not the host: while
the host enqueues faster than the GPU runs (each call shorter than the kernel), the next launch is already queued
and the time is the kernel's; where a call takes longer on the host than its kernel on the GPU, the GPU idles
between the events and that idle time is counted. So a small shape can measure a contender's Python path rather
than its kernel. host_us in each row is the host's mean time per timed call (perf_counter around a turn's calls).
It does not isolate the Python path: a call blocks once the launch queue is full, so host_us approaches the
kernel's time wherever the GPU is the bottleneck, and exceeds it after the sustained turns' settle launches have
filled the queue. prepares is the number of launchers the library built during the warm-up and timed launches of
a method: a call whose output lands at a new address is a new problem for the cache, and its prepare adds host
time to that one call (0: every call found its launcher prepared).

Writes one row per (shape, contender, method) to --out (default docs/results/torch_bench.csv; with --quick
torch_bench_quick.csv), with tools/bench_log_csv.py's write_rows. Exit codes: 0 written (a contender that failed
its check has verified=no and no times), 2 bad usage, 3 no Hopper or Blackwell GPU or no library.
"""
import argparse
import ctypes
import datetime
import math
import pathlib
import sys
import time

import bench_log_csv

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "torch"))

COLUMNS = ["m", "n", "k", "model", "layer", "contender", "method", "verified", "median_ms", "p10_ms", "p90_ms",
           "tflops", "pct_torch", "host_us", "prepares", "sets", "iters", "rounds", "settle_ms", "gpu", "torch",
           "triton", "date"]
TORCH = "torch.matmul"
TRITON = "triton_persistent"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="the first and last default shape, 20 launches in 2 rounds (a smoke test)")
    p.add_argument("--sweep", nargs="?", const=str(ROOT / "tools" / "sweep_shapes.csv"), metavar="FILE",
                   help="the shapes of a sweep file (default tools/sweep_shapes.csv) instead of the defaults")
    p.add_argument("--steps", help="comma-separated steps to time (default: the ladder's and hgemm.mm's default)")
    p.add_argument("--out", type=pathlib.Path, help="the CSV to write")
    p.add_argument("--iters", type=int, help="timed launches per contender, shape and method (default 200)")
    p.add_argument("--rounds", type=int, help="interleaved rounds; iters must be a multiple (default 20)")
    p.add_argument("--warmup", type=int, default=10, help="warm-up launches per contender (default 10)")
    p.add_argument("--settle-ms", type=float, default=50.0, help="the sustained method's settle (default 50)")
    args = p.parse_args(argv)
    args.iters = args.iters or (20 if args.quick else 200)
    args.rounds = args.rounds or (2 if args.quick else 20)
    if args.iters < 1 or args.rounds < 1 or args.iters % args.rounds:
        p.error(f"--iters ({args.iters}) must be a positive multiple of --rounds ({args.rounds})")
    if args.warmup < 1 or args.settle_ms <= 0:
        p.error("--warmup must be at least 1 and --settle-ms above 0")
    if args.quick and args.sweep:
        p.error("--quick and --sweep exclude each other")
    args.out = args.out or (pathlib.Path("torch_bench_quick.csv") if args.quick
                            else ROOT / "docs" / "results" / "torch_bench.csv")
    return args


class Timing:
    """The library's share of hgemm_bench's timing (torch/hgemm_ops.cu): input sets, round order, summary."""

    def __init__(self, lib):
        self.lib = lib

    def sets(self, m, n, k, l2_bytes, free_bytes):
        return self.lib.hg_torch_rotating_sets(m, n, k, l2_bytes, free_bytes)

    def order(self, kernels, round_index):
        out = (ctypes.c_int * kernels)()
        self.lib.hg_torch_round_order(kernels, round_index, out)
        return list(out)

    def cycle(self, kernels):
        return self.lib.hg_torch_order_cycle(kernels)

    def summarize(self, ms):
        out = (ctypes.c_double * 3)()
        self.lib.hg_torch_summarize((ctypes.c_double * len(ms))(*ms), len(ms), out)
        return list(out)


def time_interleaved(torch, timing, launches, warmup, iters, rounds, settle_ms):
    """hgemm_bench's time_interleaved (common/harness/harness.cu) for Python calls: per contender, its times (ms)
    and its mean host time per timed call (us)."""
    n = len(launches)
    per_round = iters // rounds
    stream = torch.cuda.current_stream()
    settle = [0] * n
    for c in timing.order(n, timing.cycle(n) - 1):  # the warm-up, in the cycle's last round's order
        w0, w1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        w0.record(stream)
        for i in range(warmup):
            launches[c](i)
        w1.record(stream)
        w1.synchronize()
        if settle_ms > 0:
            settle[c] = math.ceil(settle_ms / max(w0.elapsed_time(w1) / warmup, 1e-3))
    events = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
              for _ in range(n)]
    host_s = [0.0] * n
    for r in range(rounds):
        for c in timing.order(n, r):
            for i in range(settle[c]):
                launches[c](i % warmup)
            t0 = time.perf_counter()
            for i in range(r * per_round, (r + 1) * per_round):
                start, stop = events[c][i]
                start.record(stream)
                launches[c](warmup + i)
                stop.record(stream)
            host_s[c] += time.perf_counter() - t0
    torch.cuda.synchronize()
    return [([start.elapsed_time(stop) for start, stop in events[c]], 1e6 * host_s[c] / iters) for c in range(n)]


def contenders(env, m, n, k):
    """(name, call(a, b)) of every contender that takes M x N x K: the steps whose rules admit it, torch.matmul,
    and Triton where K and N are multiples of 8."""
    torch, hgemm = env["torch"], env["hgemm"]
    out = []
    for step in env["steps"]:
        try:
            hgemm._lib.check(step, m, n, k, "auto", 0)
        except hgemm.RequestError as e:
            print(f"  {step} skips {m}x{n}x{k}: {e}", file=sys.stderr)
            continue
        out.append((step, lambda a, b, step=step: hgemm.mm(a, b, step=step)))
    out.append((TORCH, lambda a, b: torch.matmul(a, b.T)))
    if k % 8 == 0 and n % 8 == 0:
        out.append((TRITON, env["triton_matmul"].matmul))
    return out


def bench_shape(env, shape, args):
    """The rows of one shape: every contender checked, then timed burst, then sustained."""
    torch, hgemm, timing = env["torch"], env["hgemm"], env["timing"]
    m, n, k = shape["m"], shape["n"], shape["k"]
    props = torch.cuda.get_device_properties(0)
    free, _ = torch.cuda.mem_get_info()
    sets = timing.sets(m, n, k, props.L2_cache_size, free)
    operands = [hgemm.verify.inputs(m, n, k, "random", seed=1000 + s) for s in range(sets)]
    verified, wrong = [], {}
    for name, call in contenders(env, m, n, k):
        try:
            error = hgemm.verify.compare(call(*operands[0]), *operands[0], "random")
        except Exception as e:  # a contender that cannot run here (e.g. Triton failing to compile) is reported
            error = f"{type(e).__name__}: {e}"
        if error:
            print(f"  {name} FAILED its check at {m}x{n}x{k}: {error}; not timed", file=sys.stderr)
            wrong[name] = error
        else:
            verified.append((name, call))
            for a, b in operands[1:]:  # each set's first call (hgemm: prepares its launcher), before any timing
                call(a, b)
    torch.cuda.synchronize()
    rows = []
    base = {"m": m, "n": n, "k": k, "model": shape.get("model", ""), "layer": shape.get("layer", ""),
            "sets": sets, "iters": args.iters, "rounds": args.rounds, **env["meta"]}
    for name in wrong:
        for method in ("burst", "sustained"):
            rows.append({**base, "contender": name, "method": method, "verified": "no", "settle_ms": ""})
    if not verified:
        return rows
    launches = [lambda i, call=call: call(*operands[i % sets]) for _, call in verified]
    for method, settle in (("burst", 0.0), ("sustained", args.settle_ms)):
        before = hgemm._lib.LIB.hg_torch_prepared_count()
        results = time_interleaved(torch, timing, launches, args.warmup, args.iters, args.rounds, settle)
        prepares = hgemm._lib.LIB.hg_torch_prepared_count() - before
        stats = {name: timing.summarize(ms) + [host_us] for (name, _), (ms, host_us) in zip(verified, results)}
        torch_ms = stats[TORCH][0] if TORCH in stats else float("nan")
        for name, (median, p10, p90, host_us) in stats.items():
            rows.append({**base, "contender": name, "method": method, "verified": "yes", "median_ms": f"{median:.4f}",
                         "p10_ms": f"{p10:.4f}", "p90_ms": f"{p90:.4f}",
                         "tflops": f"{2.0 * m * n * k / (median * 1e-3) / 1e12:.1f}",
                         "pct_torch": f"{100.0 * torch_ms / median:.1f}", "host_us": f"{host_us:.1f}",
                         "prepares": prepares if name in env["steps"] else "", "settle_ms": f"{settle:g}"})
            print(f"{m}x{n}x{k} {method:9s} {name:24s} median {median:8.4f} ms  p10 {p10:8.4f}  p90 {p90:8.4f}  "
                  f"{rows[-1]['tflops']:>7s} TFLOP/s  {rows[-1]['pct_torch']:>6s}% of torch.matmul  host "
                  f"{host_us:7.1f} us/call")
    return rows


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
        import triton
        import hgemm
        import hgemm.verify
        from hgemm import triton_matmul
    except ImportError as e:
        print(f"torch_bench: {e}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0) not in ((9, 0), (10, 0)):
        print("torch_bench: no Hopper (9.0) or Blackwell (10.0) GPU visible to PyTorch", file=sys.stderr)
        return 3
    if args.steps:
        try:
            steps = [hgemm.resolve_step(s.strip()) for s in args.steps.split(",")]
        except ValueError as e:
            print(f"torch_bench: --steps: {e}", file=sys.stderr)
            return 2
    else:
        steps = [name for name, s in hgemm.STEPS.items() if s["ladder"]]
        steps += [hgemm.DEFAULT_STEP] if hgemm.DEFAULT_STEP not in steps else []
    if args.sweep:
        try:
            shapes = hgemm._lib.sweep_shapes(args.sweep)
        except ValueError as e:
            print(f"torch_bench: {e}", file=sys.stderr)
            return 2
    else:
        defaults = hgemm.REGISTRY["bench_shapes"]
        shapes = [{"m": m, "n": n, "k": k} for m, n, k in (defaults[::len(defaults) - 1] if args.quick else defaults)]
    meta = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "triton": triton.__version__,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    env = {"torch": torch, "hgemm": hgemm, "triton_matmul": triton_matmul, "steps": steps, "meta": meta,
           "timing": Timing(hgemm._lib.LIB)}
    print(f"torch_bench: {meta['gpu']}, torch {meta['torch']}, triton {meta['triton']}; {len(shapes)} shape(s), "
          f"{args.iters} launches in {args.rounds} rounds per contender and method; steps: {', '.join(steps)}")
    rows = []
    for shape in shapes:
        rows += bench_shape(env, shape, args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    bench_log_csv.write_rows(args.out, COLUMNS, rows)
    print(f"torch_bench: {len(rows)} rows written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
