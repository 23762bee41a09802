"""The tables of the sweep of real layer shapes, for the pages' sweep regions (tools/pages.py).

From a results directory DIR (docs/results), or one sweep's folder below it (SUB: DIR/SUB, such as
sweep_forced, the runs with the split forced that chose the knobs): sweep_steps.csv and sweep.csv
(tools/sweep_summary.py over the runs of `hgemm_bench --sweep`), the runs' own sweep_runs/*.json (hgemm_bench's
sweep_run.json of each run: what the captions say about the GPU, the timing and the stream-K knobs), and
sk_knobs.csv (tools/choose_sk_knobs.py) and tile_price.csv (tools/choose_tile_price.py). This module only reads
and renders; a missing or malformed file raises TableError, whose message says which file and what makes it. Python standard library only.
"""
import csv
import json

import choose_sk_knobs
import choose_tile_price
import plot_results
import sweep_summary

RUNS_DIR = "sweep_runs"
# The run metadata that must agree across the runs of one summary (their dates may differ).
SAME_IN_EVERY_RUN = ["gpu", "sm_count", "kernel", "driver", "cuda_runtime", "cublas", "iters", "rounds", "warmup",
                     "kernel_order", "methods", "stream_k", "sk_forced"]
SHOWN = "docs/results"  # how the captions name the results directory
# What writes each file, {out}: the folder it goes to, as the captions name it.
MADE_BY = {"sweep_steps.csv": "tools/sweep_summary.py over the sweep's runs (--out {out})",
           "sweep.csv": "tools/sweep_summary.py over the sweep's runs (--out {out})",
           "sk_knobs.csv": "tools/choose_sk_knobs.py --sk-plan BUILD/sk_plan --workers 66 (--out {out}/sk_knobs.csv)",
           "tile_price.csv": "tools/choose_tile_price.py --facts BUILD/hg_step_facts (--out {out}/tile_price.csv)"}


class TableError(Exception):
    """A sweep table that cannot be made: the message names the file and what makes it."""


def shown(sub):
    """The sweep's folder as the captions name it: docs/results, or docs/results/SUB."""
    return f"{SHOWN}/{sub}" if sub else SHOWN


def made_by(name, sub):
    return MADE_BY[name].format(out=shown(sub))


def need(results_dir, sub, name):
    """DIR/SUB/name, which must exist."""
    path = results_dir / sub / name
    if not path.is_file():
        raise TableError(f"a sweep region needs {path}, which does not exist: run {made_by(name, sub)} "
                         f"(docs/lab_step10_stream_k.md says how), or remove the region")
    return path


def read_table(results_dir, sub, name, columns):
    """The rows (dicts) of DIR/SUB/name, which must hold `columns`."""
    path = need(results_dir, sub, name)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise TableError(f"{path}: no column {', '.join(missing)} (is it the file {made_by(name, sub)} "
                             f"writes?)")
        rows = list(reader)
    if not rows:
        raise TableError(f"{path} has no rows: run {made_by(name, sub)} again")
    return rows


def read_combined(results_dir, sub):
    """DIR/SUB/sweep.csv as sweep_summary.read_combined reads it."""
    try:
        return sweep_summary.read_combined(need(results_dir, sub, "sweep.csv"))
    except sweep_summary.InputError as e:
        raise TableError(str(e)) from None


def load_runs(results_dir, sub):
    """The metadata of the sweep's runs, DIR/SUB/sweep_runs/*.json, in name order; they must agree but for the
    date."""
    folder = results_dir / sub / RUNS_DIR
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise TableError(f"a sweep region needs the runs' metadata, {folder}/*.json (each run's sweep_run.json "
                         f"from hgemm_bench --sweep), and there is none: copy them there")
    metas = []
    for path in paths:
        try:
            meta = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise TableError(f"{path}: not a sweep_run.json ({e})") from None
        missing = [k for k in SAME_IN_EVERY_RUN + ["date_utc"] if k not in meta]
        if missing:
            raise TableError(f"{path}: no {', '.join(missing)} (is it hgemm_bench's sweep_run.json?)")
        for key in SAME_IN_EVERY_RUN:
            if metas and meta[key] != metas[0][key]:
                raise TableError(f"{path} has {key}={json.dumps(meta[key])} but {paths[0]} has "
                                 f"{json.dumps(metas[0][key])}: the runs of one summary must be alike")
        metas.append(meta)
    return metas


def knobs_text(knobs):
    """The stream-K knobs of the runs, as the command line gives them."""
    text = (f"`--sk-min-share {knobs['min_share']} --sk-rounds {knobs['rounds']} --sk-min-saving "
            f"{knobs['min_saving_pct']} --sk-part-cost {knobs['part_cost']}")
    if "full_split_max_pct" in knobs:
        return text + f" --sk-full-split-max {knobs['full_split_max_pct']}`"
    return text + "` and no limit on splitting every tile (the runs predate `--sk-full-split-max`)"


def runs_text(metas, sub):
    """The captions' account of the runs: where, when, how timed, with which knobs."""
    m = metas[0]
    dates = ", ".join(sorted({meta["date_utc"][:10] for meta in metas}))
    text = (f"{len(metas)} runs of `hgemm_bench --sweep` (`{shown(sub)}/{RUNS_DIR}/`), each one process, on one "
            f"{m['gpu']} ({m['sm_count']} SMs, {m['kernel']} kernels, driver {m['driver']}, CUDA "
            f"{m['cuda_runtime']}, cuBLAS {m['cublas']}) on {dates}: per kernel the median of {m['iters']} timed "
            f"launches in {m['rounds']} interleaved rounds{plot_results.order_text(m)} after {m['warmup']} "
            f"warm-up, by two timing methods ({plot_results.method_text(m)}). % of cuBLAS is taken within each "
            f"run, then its median over the runs. The stream-K steps ran with {knobs_text(m['stream_k'])}")
    if m["sk_forced"]:
        text += ("; a name ending in `+split` is the same kernel with its split forced wherever the plan can make "
                 "one (`--sk-forced`)")
    if m.get("tiles_forced"):
        text += "; a name ending in `+MxN` is step 11 with that tile forced (`--tiles`)"
    return text + "."


def pct(value):
    return f"{float(value):.1f}%"


def steps_table(results_dir, sub=""):
    """Per step and timing method, over the sweep's shapes: DIR/SUB/sweep_steps.csv."""
    rows = read_table(results_dir, sub, "sweep_steps.csv", sweep_summary.STEP_COLUMNS)
    lines = [
        runs_text(load_runs(results_dir, sub), sub) + " Per step and method over the shapes it ran: the median and "
        "the worst of its medians, and against the step before it its wins, losses and ties, a win or a loss only "
        "beyond the spread (the difference of the medians larger than the larger of the two kernels' ranges over "
        f"the runs). Generated by `tools/sweep_tables.py` from `{shown(sub)}/sweep_steps.csv` "
        "(`tools/sweep_summary.py`).",
        "",
        "| step | method | runs | shapes | median, % of cuBLAS | worst, % of cuBLAS | worst shape | against | wins "
        "| losses | ties |",
        "|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|",
    ]
    no_claim = False
    for r in rows:
        against = [r["previous"], r["wins"], r["losses"], r["ties"]] if r["previous"] else ["", "", "", ""]
        mark = ""
        if r["claims"] != "yes":
            mark, no_claim = " &Dagger;", True
        lines.append(f"| {r['step']}{mark} | {r['method']} | {r['runs']} | {r['shapes']} | "
                     f"{pct(r['pct_cublas_median'])} | {pct(r['pct_cublas_worst'])} | {r['worst_shape']} | "
                     + " | ".join(against) + " |")
    if no_claim:
        lines += ["", f"&Dagger; Fewer than {sweep_summary.MIN_RUNS} runs: its wins and losses are no claim."]
    return "\n".join(line.rstrip() for line in lines)


def median_cell(row):
    """A kernel's median % of cuBLAS at one shape and method with its range, or why it has none."""
    if row is None:
        return "not run"
    if row["runs"] == 0:
        return row["note"] or "no time"
    return f"{row['pct_cublas_median']:.1f}% ({row['pct_cublas_min']:.1f} to {row['pct_cublas_max']:.1f})"


def verdict(row, prev):
    """row's verdict against prev: sweep.csv's own where it has one (from the unrounded medians), else
    sweep_summary's rule on the file's medians, as tools/choose_sk_knobs.py weighs a variant."""
    if row is None or row["runs"] == 0 or prev["runs"] == 0:
        return ""
    if row["previous"] == prev["step"] and row["vs_previous"]:
        return row["vs_previous"]
    return sweep_summary.verdict(row, prev)


def shapes_table(results_dir, kernel, sub=""):
    """KERNEL (a step, or a variant step+x) at every shape and method of DIR/SUB/sweep.csv that any of them timed,
    next to the step before it (for a variant: the step before its step, and its step too), with its verdict
    against that one."""
    combined = read_combined(results_dir, sub)
    base = kernel.split("+")[0]
    timed = {key[4] for key in combined}
    if kernel not in timed:
        raise TableError(f"{results_dir / sub / 'sweep.csv'} has no rows of {kernel} (its kernels: "
                         f"{', '.join(sorted(timed))})")
    previous = next((r["previous"] for key, r in combined.items() if key[4] == base and r["previous"]), "")
    if not previous:
        raise TableError(f"{base} has no step before it in {results_dir / sub / 'sweep.csv'}: a shapes region shows a "
                         f"kernel against the step before it")
    others = [base, kernel] if kernel != base else [kernel]
    label = lambda k: plot_results.step_label(k.split("+")[0]) + k[len(k.split("+")[0]):]  # step 10+split
    header = ["model, layer", "shape", "method", label(previous)]
    for k in others:
        header += [label(k), f"vs {label(previous)}"]
    shapes = list(dict.fromkeys(key[:3] for key in combined))
    methods = [m for m in plot_results.METHODS if any(key[3] == m for key in combined)]
    rows, untimed = [], set()
    for shape in shapes:
        for method in methods:
            prev = combined.get(shape + (method, previous))
            mine = [combined.get(shape + (method, k)) for k in others]
            if prev is None or all(r is None for r in mine):
                continue
            if all(r is None or r["note"].startswith("skipped") for r in [prev] + mine):
                untimed.add(shape)  # every kernel of the table skipped it (its shape rule): a row of notes only
                continue
            cells = [median_cell(prev)]
            for r in mine:
                cells += [median_cell(r), verdict(r, prev)]
            rows.append(f"| {prev['model']}, {prev['layer']} | {plot_results.shape_name(shape)} | {method} | "
                        + " | ".join(cells) + " |")
    left_out = (f" Left out: the {len(untimed)} shapes of the sweep that every one of these kernels skipped (their "
                f"shape rule refuses them).") if untimed else ""
    lines = [
        runs_text(load_runs(results_dir, sub), sub) + f" Per shape and method: each kernel's median % of cuBLAS (in "
        f"brackets its range over the runs) and its verdict against {label(previous)} ({previous}), a win or a loss "
        f"only beyond the spread (the difference of the medians larger than the larger of the two ranges).{left_out} "
        f"Generated by `tools/sweep_tables.py` from `{shown(sub)}/sweep.csv` (`tools/sweep_summary.py`).",
        "",
        "| " + " | ".join(header) + " |",
        "|---|---|---|---:|" + "---:|---|" * len(others),
    ] + rows
    return "\n".join(line.rstrip() for line in lines)


def knobs_table(results_dir, sub=""):
    """The candidates of DIR/SUB/sk_knobs.csv as a grid, min_saving by part_cost, and the choice."""
    rows = read_table(results_dir, sub, "sk_knobs.csv", choose_sk_knobs.COLUMNS)
    path = results_dir / sub / "sk_knobs.csv"
    try:
        at = {(int(r["min_saving"]), int(r["part_cost"])): r for r in rows}
    except ValueError as e:
        raise TableError(f"{path}: {e}") from None
    chosen = [r for r in rows if r["chosen"] == "1"]
    if len(chosen) != 1:
        raise TableError(f"{path} marks {len(chosen)} rows chosen, not one: run {made_by('sk_knobs.csv', sub)} "
                         f"again")
    savings, costs = sorted({s for s, _ in at}), sorted({c for _, c in at})
    lines = [
        "Each candidate of `tools/choose_sk_knobs.py`, `--sk-min-saving` (rows) by `--sk-part-cost` (columns), "
        f"weighed on the sweep with the split forced (`{SHOWN}/{choose_sk_knobs.FORCED_SWEEP}`): at each shape "
        "and method where `sk_plan` (the kernels' own plan) says the candidate splits, the forced split's change "
        "against step 9 in % of step 9's share of "
        "cuBLAS (0 within the spread), 0 where it does not split. A cell: the worst loss over the shapes and "
        "methods where there is one, else the mean change; in brackets the shapes it splits. In bold the choice: "
        "the smallest worst loss, then the largest median change, the largest mean change, the fewest shapes "
        "split, the part cost nearest the estimate the chooser is given (default 2), the smallest min_saving. "
        f"Generated by `tools/sweep_tables.py` from `{shown(sub)}/sk_knobs.csv`.",
        "",
        "| min_saving | " + " | ".join(f"part cost {c}" for c in costs) + " |",
        "|---:|" + "---:|" * len(costs),
    ]
    for s in savings:
        cells = []
        for c in costs:
            r = at.get((s, c))
            if r is None:
                cells.append("")
                continue
            loss = float(r["worst_loss_pct"])
            cell = (f"loss {loss:.1f}%" if loss > 0 else f"{float(r['mean_gain_pct']):+.1f}%") + \
                f" ({r['shapes_split']})"
            cells.append(f"**{cell}**" if r["chosen"] == "1" else cell)
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    c = chosen[0]
    lines += ["", f"Chosen: `--sk-min-saving {c['min_saving']} --sk-part-cost {c['part_cost']}`, worst loss "
                  f"{float(c['worst_loss_pct']):.1f}%, median change {float(c['median_gain_pct']):+.1f}%, mean "
                  f"change {float(c['mean_gain_pct']):+.1f}%, {c['shapes_split']} of {c['shapes']} shapes split."]
    return "\n".join(line.rstrip() for line in lines)


def tiles_table(results_dir, sub):
    """Step 11 at every shape and method of DIR/SUB/sweep.csv: its own choice, then each tile forced (hgemm_bench
    --tiles), the fastest forced tile in bold."""
    combined = read_combined(results_dir, sub)
    prefix = choose_tile_price.STEP + "+"
    tiles = list(dict.fromkeys(key[4][len(prefix):] for key in combined if key[4].startswith(prefix)))
    if not tiles:
        raise TableError(f"{results_dir / sub / 'sweep.csv'} has no rows of {prefix}MxN: a tiles region needs a "
                         f"sweep with --tiles")
    methods = [m for m in plot_results.METHODS if any(key[3] == m for key in combined)]
    rows = []
    for shape in dict.fromkeys(key[:3] for key in combined):
        for method in methods:
            auto = combined.get(shape + (method, choose_tile_price.STEP))
            forced = [combined.get(shape + (method, prefix + t)) for t in tiles]
            if auto is None or any(r is None or r["pct_cublas_median"] is None for r in forced):
                raise TableError(f"{results_dir / sub / 'sweep.csv'}: {plot_results.shape_name(shape)} {method} "
                                 f"lacks a time of step 11 or of a forced tile")
            best = max(r["pct_cublas_median"] for r in forced)
            cells = [f"**{pct(r['pct_cublas_median'])}**" if r["pct_cublas_median"] == best
                     else pct(r["pct_cublas_median"]) for r in forced]
            rows.append(f"| {auto['model']}, {auto['layer']} | {plot_results.shape_name(shape)} | {method} | "
                        f"{median_cell(auto)} | " + " | ".join(cells) + " |")
    lines = [
        runs_text(load_runs(results_dir, sub), sub) + " Per shape and method: step 11 with the tile its heuristic "
        "chose when the runs were made (its median % of cuBLAS, in brackets its range over the runs), then each tile "
        "forced (the median), the fastest in bold. Generated by `tools/sweep_tables.py` from "
        f"`{shown(sub)}/sweep.csv` (`tools/sweep_summary.py`).",
        "",
        "| model, layer | shape | method | step 11 | " + " | ".join(t.replace("x", " x ") for t in tiles) + " |",
        "|---|---|---|---:|" + "---:|" * len(tiles),
    ] + rows
    return "\n".join(line.rstrip() for line in lines)


def price_table(results_dir, sub=""):
    """The candidates of DIR/SUB/tile_price.csv, and the choice."""
    rows = read_table(results_dir, sub, "tile_price.csv", choose_tile_price.COLUMNS)
    chosen = [r for r in rows if r["chosen"] == "1"]
    if len(chosen) != 1:
        raise TableError(f"{results_dir / sub / 'tile_price.csv'} marks {len(chosen)} rows chosen, not one: run "
                         f"{made_by('tile_price.csv', sub)} again")
    lines = [
        "Each part price of `tools/choose_tile_price.py`, weighed on the sweeps with every tile forced ("
        + " and ".join(f"`{SHOWN}/{s}`" for s in choose_tile_price.SWEEPS) + ", the second adding the tiles the "
        "first did not force): at each shape and method, the fastest forced tile's % of cuBLAS "
        "minus that of the tile the price makes the heuristic take (0 within the spread). Worst and mean: over the "
        "shape and method pairs; lost: the pairs with a loss; unmeasured: shapes of the sweep or the benchmark where "
        "no tile was forced and the price departs from most prices' choice (such a price is not eligible). In bold "
        "the choice: the smallest worst loss, then the smallest mean loss, the middle of prices that tie. Generated "
        f"by `tools/sweep_tables.py` from `{shown(sub)}/tile_price.csv`.",
        "",
        "| part price (K tiles) | worst loss (points) | mean loss (points) | pairs lost | unmeasured |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [r["price"], r["worst_loss_pct"], r["mean_loss_pct"], f"{r['shapes_lost']} of {r['pairs']}",
                 r["unmeasured_changes"]]
        if r["chosen"] == "1":
            cells = [f"**{c}**" for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(line.rstrip() for line in lines)
