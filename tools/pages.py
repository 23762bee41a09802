#!/usr/bin/env python3
"""Every generated region of the pages, and the benchmark chart, from one table of producers.

    tools/pages.py --check --facts-bin BUILD/hg_step_facts [--results DIR]
        print each region (file, line, kind) and file that differs from what its producer gives; exit 1 if any
    tools/pages.py --write --facts-bin BUILD/hg_step_facts [--results DIR]
        rewrite those (everything outside the regions stays byte-identical)

`cmake --build build --target regenerate` runs --write with hg_step_facts built, after the step diffs and
before the number ties (tools/cmake/regenerate.cmake).

A region is a line holding only <!-- KIND:begin [ARGS] -->, the generated lines, and a line holding only
<!-- KIND:end -->, outside code (fences, Doxygen code blocks, code spans: read as tools/docs_numbers.py reads
them, which skips the regions' numbers). The pages are README.md, step*/README.md and docs/*.md; which of them
hold which regions is read from their markers. The kinds (PRODUCERS below):

    contracts                the ladder of contracts, from steps.json (tools/registry.py)
    facts [TABLE]            the steps in numbers: hg_step_facts's output as printed (tools/step_facts.cu);
                             with TABLE (tile_choice, tile_choice_sweep: step 11's heuristic), `hg_step_facts
                             TABLE`'s; a page with such a region needs --facts-bin
    results                  the benchmark's table, from DIR/ladder.csv (tools/plot_results.py)
    ladder STEP [OTHER ...]  STEP against OTHER (default: the ladder step before it) and cuBLAS, per shape and
                             timing method, from DIR/ladder.csv
    profile [STEP]           the Nsight Compute table: every row, or STEP, the step before it and cuBLAS, from
                             DIR/profile.csv
    sweep steps              the sweep of real layer shapes per step and timing method, from DIR/sweep_steps.csv
                             and the runs' DIR/sweep_runs/*.json (tools/sweep_tables.py)
    sweep shapes KERNEL      KERNEL (a step, or a variant such as step10_stream_k+split) at every shape of the
                             sweep against the step before it, from DIR/sweep.csv and DIR/sweep_runs/*.json
    sweep knobs              the candidates of step 10's split thresholds and the choice, from DIR/sk_knobs.csv
    sweep tiles              step 11's own tile and every tile forced, per shape and method, from DIR/sweep.csv
    sweep price              the part prices weighed by tools/choose_tile_price.py, from DIR/tile_price.csv
                             (each sweep kind takes dir=SUB: the files from DIR/SUB instead, another sweep
                             summarized there, such as sweep_forced, the runs with the split forced)
    payoff                   every step's idea, what it bought and its speed at steps.json's payoff shape and
                             timing method, from steps.json and DIR/ladder.csv (tools/payoff_tables.py)
    group FIRST [LAST]       the steps FIRST to LAST (default FIRST alone): scope, what each reuses, its contract,
                             what it bought at the payoff shape, what it leaves unsolved, from the same sources

plus the chart DIR/ladder.svg, from DIR/ladder.csv. Pages of docs/ (Doxygen's) link with \\ref; the others
(READMEs) with Markdown links relative to the page. DIR defaults to docs/results. Exit 2 on a malformed page
(a begin without its end, an unknown kind, bad arguments), naming the file and line.
Python standard library only.
"""
import argparse
import functools
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# The Markdown structure every page tool reads the same way: region markers, fences, code spans, Doxygen blocks.
from docs_numbers import (DOXY_BLOCK_RE, DOXY_BLOCKS, FENCE_RE, REGION_BEGIN_RE, REGION_END,  # noqa: E402
                          mask_code_spans)
import payoff_tables  # noqa: E402  (the payoff and group tables)
import plot_results  # noqa: E402  (the results, ladder and profile tables and the chart)
import registry  # noqa: E402  (steps.json: the ladder of contracts)
import sweep_tables  # noqa: E402  (the sweep's tables)

ROOT = pathlib.Path(__file__).resolve().parent.parent
ANY_END_RE = re.compile(REGION_END.replace("%s", r"(?P<name>[A-Za-z0-9_.-]+)"))


class PageError(Exception):
    """A page whose markers cannot be read, or a region its producer cannot fill; the message names the place."""


class Region:
    """One generated region of a page: its kind, its arguments, the 0-based lines of its two markers."""

    def __init__(self, kind, args, begin):
        self.kind, self.args, self.begin, self.end = kind, args, begin, None


def doxy_closed(end, text):
    """Whether text holds the Doxygen command that closes a block (\\endcode for \\code, ...)."""
    return re.search(r"[\\@]%s(?![a-z])" % re.escape(end), text) is not None


def find_regions(lines, shown):
    """The regions of a page (a list of its lines, ends kept), in order. A marker counts where docs_numbers.py
    counts one (not in a fence, a Doxygen code block or a code span) and must then stand alone on its line."""
    out, region, fence, doxy_end = [], None, None, None
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        at = f"{shown}:{i + 1}"
        if region is None and fence:
            m = FENCE_RE.match(body)
            if m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence) \
                    and not body.strip().strip(fence[0]):
                fence = None
            continue
        if region is None and doxy_end:
            doxy_end = None if doxy_closed(doxy_end, body) else doxy_end
            continue
        if region is not None:
            if REGION_BEGIN_RE.search(body):
                raise PageError(f"{at}: a region marker inside the {region.kind} region opened at line "
                                f"{region.begin + 1}: close that one first with <!-- {region.kind}:end -->")
            m = ANY_END_RE.search(body)
            if m:
                end = f"<!-- {region.kind}:end -->"
                if m.group("name") != region.kind:
                    raise PageError(f"{at}: {m.group(0)} inside the {region.kind} region opened at line "
                                    f"{region.begin + 1}: that region ends with {end}")
                if body.strip() != end:
                    raise PageError(f"{at}: put {end} on a line of its own")
                region.end = i
                out.append(region)
                region = None
            continue
        m = ANY_END_RE.search(mask_code_spans(body))
        if m:
            raise PageError(f"{at}: {m.group(0)} without its <!-- {m.group('name')}:begin --> before it")
        m = REGION_BEGIN_RE.search(mask_code_spans(body))
        if m:
            if m.group(0) != body.strip():
                raise PageError(f"{at}: put {m.group(0)} on a line of its own")
            kind = m.group("name")
            args = m.group(0)[m.end("name") - m.start() + len(":begin"):-len("-->")].split()
            region = Region(kind, args, i)
            continue
        m = FENCE_RE.match(body)
        if m:
            fence = m.group("fence")
            continue
        m = DOXY_BLOCK_RE.match(body)
        if m and not doxy_closed(DOXY_BLOCKS[m.group("cmd")], body[m.end():]):
            doxy_end = DOXY_BLOCKS[m.group("cmd")]
    if region is not None:
        raise PageError(f"{shown}:{region.begin + 1}: <!-- {region.kind}:begin --> without <!-- {region.kind}:end -->: "
                        f"add the end marker on a line of its own after the generated lines")
    return out


class Sources:
    """What the producers read, each loaded on first use: the benchmark run, the profile, hg_step_facts's output."""

    def __init__(self, results_dir, facts_bin):
        self.results_dir, self.facts_bin = results_dir, facts_bin

    @functools.cached_property
    def ladder(self):
        """(meta, rows, shapes) of DIR/ladder.csv and .json."""
        if not (self.results_dir / "ladder.csv").exists():
            raise PageError(f"no ladder.csv in {self.results_dir}: give --results DIR, the directory "
                            f"tools/run_benchmark.sh wrote")
        return plot_results.load(self.results_dir)

    @functools.cached_property
    def profile(self):
        meta, rows = plot_results.load_profile(self.results_dir)
        if not rows:
            raise PageError(f"a profile region needs {self.results_dir / 'profile.csv'}, which does not exist: "
                            f"run tools/profile_steps.py, or remove the region")
        return meta, rows

    @functools.lru_cache(maxsize=None)
    def facts(self, table=None):
        """hg_step_facts's output: the steps' table, or with `table` that table's."""
        if self.facts_bin is None:
            raise PageError("a facts region needs --facts-bin BUILD/hg_step_facts (cmake --build BUILD "
                            "--target hg_step_facts builds it; the target regenerate does both)")
        try:
            run = subprocess.run([str(self.facts_bin), *([table] if table else [])], capture_output=True, text=True)
        except OSError as e:
            raise PageError(f"--facts-bin {self.facts_bin}: {e.strerror}: build it with cmake --build BUILD "
                            f"--target hg_step_facts") from None
        if run.returncode != 0:
            raise PageError(f"{self.facts_bin} exited {run.returncode}: {run.stderr.strip()}")
        return run.stdout


class Page:
    """Where a region sits: the producers' links depend on it."""

    def __init__(self, root, path):
        self.rel = path.relative_to(root)
        # Doxygen reads docs/*.md except docs/README.md (docs/Doxyfile.in); the rest are plain Markdown.
        self.doxygen = self.rel.parent == pathlib.Path("docs") and self.rel.name != "README.md"
        self.to_root = "../" * (len(self.rel.parts) - 1)  # Markdown links from the page to the root


def no_args(region):
    if region.args:
        raise PageError(f"a {region.kind} region takes no arguments, got {' '.join(region.args)}")


def ladder_step(name):
    if name not in plot_results.LADDER:
        raise PageError(f"{name} is not a ladder step of steps.json ({', '.join(plot_results.LADDER)})")
    return name


def contracts(src, region, page):
    no_args(region)
    return registry.contracts_table("doxygen" if page.doxygen else "markdown", page.to_root)


def facts(src, region, page):
    if len(region.args) > 1:
        raise PageError(f"a facts region names at most one table (<!-- facts:begin [TABLE] -->), got "
                        f"'{' '.join(region.args)}'")
    return src.facts(region.args[0] if region.args else None)


def results(src, region, page):
    no_args(region)
    return plot_results.table(*src.ladder, plot_results.power_note(src.results_dir))


def ladder(src, region, page):
    if not region.args:
        raise PageError("a ladder region names its step: <!-- ladder:begin STEP [OTHER ...] -->")
    step, *others = [ladder_step(n) for n in region.args]
    i = plot_results.LADDER.index(step)
    if not others and i > 0:
        others = [plot_results.LADDER[i - 1]]
    where = ('\\ref main_results "the main page"' if page.doxygen
             else f"[the README's results]({page.to_root}README.md#results)")
    return plot_results.step_table(*src.ladder, step, others, where)


def profile(src, region, page):
    if len(region.args) > 1:
        raise PageError("a profile region names at most one step")
    step = ladder_step(region.args[0]) if region.args else None
    return plot_results.profile_table(*src.profile, step)


SWEEP_USAGE = ("<!-- sweep:begin steps -->, <!-- sweep:begin shapes KERNEL -->, <!-- sweep:begin knobs -->, "
               "<!-- sweep:begin tiles --> or <!-- sweep:begin price -->, each with an optional dir=SUB last")
SWEEP_DIR_RE = re.compile(r"dir=(?P<sub>.*)")
SUB_RE = re.compile(r"[A-Za-z0-9_-]+")  # one folder right below the results directory


def sweep(src, region, page):
    args = list(region.args)
    sub = ""
    m = SWEEP_DIR_RE.fullmatch(args[-1]) if args else None
    if m:
        sub = m.group("sub")
        args.pop()
        if not SUB_RE.fullmatch(sub):
            raise PageError(f"dir={sub}: name one folder of the results directory (letters, digits, _ and -), "
                            f"such as dir=sweep_forced")
        if not (src.results_dir / sub).is_dir():
            raise PageError(f"dir={sub}: {src.results_dir / sub} is not a folder: summarize that sweep's runs into "
                            f"it (tools/sweep_summary.py RUN.csv... --out docs/results/{sub}) or fix the name")
    table, *rest = args or [""]
    try:
        if table in ("steps", "knobs", "tiles", "price") and not rest:
            return {"steps": sweep_tables.steps_table, "knobs": sweep_tables.knobs_table,
                    "tiles": sweep_tables.tiles_table, "price": sweep_tables.price_table}[table](src.results_dir, sub)
        if table == "shapes" and len(rest) == 1:
            return sweep_tables.shapes_table(src.results_dir, rest[0], sub)
    except sweep_tables.TableError as e:
        raise PageError(str(e)) from None
    raise PageError(f"a sweep region is {SWEEP_USAGE}, got arguments '{' '.join(region.args)}'")


def step_link(page):
    """link(name, text) to a step, the way this page links."""
    return lambda name, text: registry.step_link(name, "doxygen" if page.doxygen else "markdown", page.to_root, text)


def payoff(src, region, page):
    no_args(region)
    try:
        return payoff_tables.payoff_table(registry.entries(), registry.payoff(), src.ladder[0], src.ladder[1],
                                          step_link(page), plot_results.power_note(src.results_dir))
    except payoff_tables.TableError as e:
        raise PageError(str(e)) from None


def group(src, region, page):
    if len(region.args) not in (1, 2):
        raise PageError(f"a group region is <!-- group:begin FIRST [LAST] -->, got arguments "
                        f"'{' '.join(region.args)}'")
    first, last = region.args[0], region.args[-1]
    where = ('\\ref main_payoff "the payoff table"' if page.doxygen
             else f"[the payoff table]({page.to_root}README.md#what-each-step-bought)")
    try:
        return payoff_tables.group_table(registry.entries(), registry.payoff(), src.ladder[1], first, last,
                                         step_link(page), where)
    except payoff_tables.TableError as e:
        raise PageError(str(e)) from None


# Region kind -> producer(sources, region, page) -> the region's lines, without the final newline.
PRODUCERS = {"contracts": contracts, "facts": facts, "results": results, "ladder": ladder, "profile": profile,
             "sweep": sweep, "payoff": payoff, "group": group}


def chart(src):
    """The file the results directory holds besides the CSVs: the chart."""
    return {src.results_dir / "ladder.svg": plot_results.svg(*src.ladder)}


def pages(root):
    """Every page that may hold regions."""
    return [root / "README.md", *sorted(root.glob("step*/README.md")), *sorted((root / "docs").glob("*.md"))]


def split_lines(text):
    """text's lines, each with its newline (only \\n ends a line, unlike str.splitlines)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def regenerate(text, page, src):
    """(the page's text with its regions regenerated, its regions, [(line, kind) of each one that changed])."""
    lines = split_lines(text)
    out, pos, stale = [], 0, []
    regions = find_regions(lines, page.rel)
    for region in regions:
        try:
            producer = PRODUCERS.get(region.kind)
            if producer is None:
                raise PageError(f"no producer for a {region.kind} region (kinds: {', '.join(PRODUCERS)})")
            body = producer(src, region, page).rstrip("\n") + "\n"
        except PageError as e:
            raise PageError(f"{page.rel}:{region.begin + 1}: {e}") from None
        if "".join(lines[region.begin + 1:region.end]) != body:
            stale.append((region.begin + 1, region.kind))
        out += lines[pos:region.begin + 1] + [body]
        pos = region.end
    out += lines[pos:]
    return "".join(out), regions, stale


def main(argv=None, root=ROOT):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 naming each stale region or file")
    mode.add_argument("--write", action="store_true", help="regenerate the stale regions and files")
    parser.add_argument("--facts-bin", type=pathlib.Path, help="the hg_step_facts binary (for facts regions)")
    parser.add_argument("--results", type=pathlib.Path, help="the benchmark's CSVs (default docs/results)")
    args = parser.parse_args(argv)
    results_dir = args.results.resolve() if args.results else root / "docs" / "results"
    src = Sources(results_dir, args.facts_bin)
    stale, writes, count, kinds = [], {}, 0, set()
    try:
        for path in pages(root):
            page = Page(root, path)
            text = path.read_text(encoding="utf-8")
            want, regions, changed = regenerate(text, page, src)
            count += len(regions)
            kinds.update(r.kind for r in regions)
            stale += [f"{page.rel}:{line}: the {kind} region is out of date" for line, kind in changed]
            if changed:
                writes[path] = want
        if (results_dir / "profile.csv").exists() and "profile" not in kinds:
            raise PageError(f"{results_dir / 'profile.csv'} exists but no page has a <!-- profile:begin --> region "
                            f"to show it: add one (docs/mainpage.md had it)")
        for path, want in chart(src).items():
            if not path.exists() or path.read_text(encoding="utf-8") != want:
                stale.append(f"{path.relative_to(root) if path.is_relative_to(root) else path}: the chart is out "
                             f"of date")
                writes[path] = want
    except PageError as e:
        print(f"pages.py: {e}", file=sys.stderr)
        return 2
    if args.check:
        for s in stale:
            print(s)
        if stale:
            print("run cmake --build build --target regenerate (or tools/pages.py --write) and commit the result")
            return 1
        print(f"pages.py: {count} generated regions and the chart match their sources")
        return 0
    for path, want in writes.items():
        path.write_text(want, encoding="utf-8")
        print(f"wrote {path.relative_to(root) if path.is_relative_to(root) else path}")
    print(f"pages.py: {count} generated regions and the chart current, {len(writes)} file(s) rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
