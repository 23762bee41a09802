"""The payoff table (every step: its idea, what it bought, its speed at one shape) and the group tables (a group of
steps: scope, what each reuses, its contract, what it bought, what it leaves), for the pages' payoff and group
regions (tools/pages.py).

From the step registry (the entries of steps.json with their "what", "bought", "unsolved" and "contract", and its
"payoff": one benchmark shape and timing method) and the benchmark run (tools/plot_results.load of
docs/results/ladder.csv). The functions take both as arguments, so a test renders them from a fixture. A step the
data shows slower than the one before at that shape, under a method the table shows, must say 'slower' in its
"bought" clause: the clauses are written by hand and the tables must not hide a loss. A table that cannot be made
raises TableError, whose message says what is missing and what to do. Python standard library only.
"""
import plot_results

SHOWN = ("sustained", "burst")  # the named method first, then the other one's % of cuBLAS, if the run has it
DIP = 0.99                      # slower than the step before: below 99% of its TFLOP/s
# What a step computes, by its shape rule (hg::ShapeRule, common/harness/cli.hpp).
SCOPE = {"kSingleTile": "one output tile, one K tile", "kSingleOutputTile": "one output tile, any K",
         "kTiled": "all of D", "kAny": "all of D, any shape"}


class TableError(Exception):
    """A payoff or group table that cannot be made: the message names what is missing."""


def timed(rows, shape, method, step):
    """The row of ladder.csv for step at shape under method; TableError if there is none."""
    for r in rows:
        if (int(r["m"]), int(r["n"]), int(r["k"])) == tuple(shape) and r["method"] == method and r["step"] == step:
            return r
    raise TableError(f"ladder.csv has no row of {step} at {plot_results.shape_name(shape)} under {method}: run "
                     f"hgemm_bench with that shape (tools/run_benchmark.sh), or set steps.json's payoff to a shape "
                     f"and method every ladder step ran")


def methods(payoff, rows):
    """The named method, then the other one where the run timed it."""
    named = payoff[1]
    return [named] + [m for m in SHOWN if m != named and any(r["method"] == m for r in rows)]


def tflops(r):
    """A row's TFLOP/s, or None where its kernel failed verification."""
    return float(r["tflops"]) if r["verified"] == "1" and float(r["median_ms"]) > 0.0 else None


def check_dips(entries, payoff, rows):
    """TableError if a step slower than the ladder step before it (under a shown method) does not say so."""
    shape = payoff[0]
    ladder = [e for e in entries if e["ladder"]]
    for prev, e in zip(ladder, ladder[1:]):
        for m in methods(payoff, rows):
            mine, before = tflops(timed(rows, shape, m, e["name"])), tflops(timed(rows, shape, m, prev["name"]))
            if mine is not None and before is not None and mine < DIP * before and "slower" not in e["bought"]:
                raise TableError(f"{e['name']} runs at {mine:.1f} TFLOP/s against {before:.1f} for {prev['name']} "
                                 f"at {plot_results.shape_name(shape)} under {m}, but its \"bought\" in steps.json "
                                 f"does not say 'slower': say what the step loses there")


def pct_cell(r, mark=False):
    """A row's % of cuBLAS; with mark, &dagger; above 100% (plot_results.over_note says why)."""
    if tflops(r) is None:
        return "failed verification"
    pct = float(r["pct_cublas"])
    return f"{pct:.1f}%" + (" &dagger;" if mark and pct > 100.05 else "")


def payoff_table(entries, payoff, meta, rows, link, note=""):
    """Every step in order: its idea, what it bought, and at the payoff shape its TFLOP/s and % of cuBLAS under
    the named method and its % of cuBLAS under the other; a step the benchmark does not time says so.
    link(name, text) links a step the way the page does; note: plot_results.power_note's, for the footnote."""
    check_dips(entries, payoff, rows)
    shape, shown = payoff[0], methods(payoff, rows)
    named = shown[0]
    # Steps the benchmark does not time: those before the first timed one check the data path on one tile; a later
    # one is not in the benchmark yet.
    first = next((i for i, e in enumerate(entries) if e["ladder"]), len(entries))
    untimed = [plot_results.step_label(e["name"]) for e in entries[:first] if not e["ladder"]]
    not_yet = [plot_results.step_label(e["name"]) for e in entries[first:] if not e["ladder"]]
    lines = [
        f"Each step's idea and what it bought, with its speed at {plot_results.shape_name(shape)} under the "
        f"**{named}** timing method" + (f" (and its % of cuBLAS under **{shown[1]}**)" if len(shown) > 1 else "") +
        f": `hgemm_bench` on one {meta['gpu']} on {meta['date_utc'][:10]}, every kernel verified, then timed "
        f"interleaved with cuBLAS{plot_results.order_text(meta)}{plot_results.runs_clause(meta)} "
        f"({plot_results.method_text(meta)}); % of cuBLAS compares with cuBLAS timed the "
        f"same way. A step slower than the one before says so in its clause. "
        + (f"Not timed: {' and '.join(untimed)}, whose kernels compute one output tile, a check of the data path "
           "rather than a GEMM to time (steps.json's ladder); they are shown for the idea they add. " if untimed
           else "") +
        (f"Not in these runs: {' and '.join(not_yet)}, not a ladder step (steps.json's ladder), so these runs do not time it. " if not_yet else "") +
        "Generated by `tools/payoff_tables.py` from `steps.json` and `docs/results/ladder.csv`.",
        "",
        f"| step | the idea | what it bought | TFLOP/s, {named} | % of cuBLAS, {named} | "
        + "".join(f"% of cuBLAS, {m} | " for m in shown[1:]),
        "|---|---|---|---:|---:|" + "---:|" * (len(shown) - 1),
    ]
    over = False
    for i, e in enumerate(entries):
        cells = ["not timed" if i < first else "not in these runs"] + [""] * len(shown)
        if e["ladder"]:
            r = [timed(rows, shape, m, e["name"]) for m in shown]
            cells = [f"{tflops(r[0]):.1f}" if tflops(r[0]) is not None else "failed verification"]
            cells += [pct_cell(x, mark=True) for x in r]
            over = over or any(tflops(x) is not None and float(x["pct_cublas"]) > 100.05 for x in r)
        lines.append(f"| {link(e['name'], plot_results.step_label(e['name']))} | {e['what']} | {e['bought']} | "
                     + " | ".join(cells) + " |")
    if over:
        lines += ["", plot_results.over_note(note)]
    return "\n".join(line.rstrip() for line in lines)


def group_table(entries, payoff, rows, first, last, link, where):
    """The steps first to last (names) of the registry: per step its scope, what it reuses, its contract, what it
    bought with its % of cuBLAS at the payoff shape under the named method, and what it leaves unsolved.
    link(name, text) links a step; where links to the payoff table."""
    names = [e["name"] for e in entries]
    for n in (first, last):
        if n not in names:
            raise TableError(f"{n} is not a step of steps.json ({', '.join(names)})")
    i, j = names.index(first), names.index(last)
    if j < i:
        raise TableError(f"a group runs from its first step to its last: {first} comes after {last}")
    check_dips(entries, payoff, rows)
    shape, named = payoff[0], payoff[1]
    group = entries[i:j + 1]
    labels = [plot_results.step_label(e["name"]) for e in group]
    labels = " and ".join([", ".join(labels[:-1]), labels[-1]] if len(labels) > 1 else labels)
    lines = [
        f"{labels[0].upper() + labels[1:]} in one table: what {'it' if len(group) == 1 else 'each'} computes, "
        f"what it keeps of the step before, the contract it adds, what it "
        f"bought (with its % of cuBLAS at {plot_results.shape_name(shape)} under the {named} timing method, as in "
        f"{where}) and what it leaves unsolved. Generated by `tools/payoff_tables.py` from `steps.json` and "
        f"`docs/results/ladder.csv`.",
        "",
        "| step | scope | reuses | the new contract | what it bought | still unsolved |",
        "|---|---|---|---|---|---|",
    ]
    for k, e in enumerate(group, start=i):
        if e["rule"] not in SCOPE:
            raise TableError(f"{e['name']}: no scope for its shape rule {e['rule']}: add it to SCOPE in "
                             f"tools/payoff_tables.py")
        prev = entries[k - 1] if k > 0 else None
        reuses = (f"the kernel of {link(prev['name'], plot_results.step_label(prev['name']))} ({prev['label']}) and "
                  f"its contracts" if prev else "nothing: the first step")
        bought = e["bought"]
        if e["ladder"]:
            r = timed(rows, shape, named, e["name"])
            bought += f" ({pct_cell(r)} of cuBLAS)" if tflops(r) is not None else " (failed verification)"
        lines.append(f"| {link(e['name'], plot_results.step_label(e['name']))} | {SCOPE[e['rule']]} | {reuses} | "
                     f"{e['contract']} | {bought} | {e['unsolved']} |")
    return "\n".join(line.rstrip() for line in lines)
