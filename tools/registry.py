"""The step registry, steps.json at the root of the repository, for the Python tools: the steps in order, the
ones the benchmark times, their chart colours, and the ladder of contracts (`--write` regenerates it in the pages
that show it; without arguments the registry and those pages are checked). CMake reads the same file
(CMakeLists.txt)."""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def entries():
    """Every step's entry, in the ladder's order."""
    return json.loads((ROOT / "steps.json").read_text())["steps"]


def steps():
    """Every step's name (its folder), in order."""
    return [e["name"] for e in entries()]


def ladder():
    """The steps hgemm_bench times (and the profile and the chart show), in order."""
    return [e["name"] for e in entries() if e["ladder"]]


def colors():
    """The chart colour of each ladder step, by name."""
    return {e["name"]: e["color"] for e in entries() if e["ladder"]}


def check():
    """Problems of the registry against the repository: a step folder missing from it or an entry without its
    folder, a namespace that is not step<N>, repeated depths, a ladder step without a colour."""
    problems = []
    names = steps()
    folders = sorted(p.name for p in ROOT.glob("step*_*") if p.is_dir() and (p / "hgemm_sm90.cuh").exists())
    for f in folders:
        if f not in names:
            problems.append(f"{f}/ has no entry in steps.json")
    for i, e in enumerate(entries()):
        if not (ROOT / e["name"] / "hgemm_sm90.cuh").exists() or not (ROOT / e["name"] / "hgemm_sm100.cuh").exists():
            problems.append(f"{e['name']}: no such step folder with both kernels")
        if e["namespace"] != f"step{i + 1}" or not e["name"].startswith(f"step{i + 1}_"):
            problems.append(f"{e['name']}: entry {i + 1} must be step{i + 1}_..., namespace step{i + 1}")
        if len(set(e["depths"])) != len(e["depths"]):
            problems.append(f"{e['name']}: repeated ring depths {e['depths']}")
        if e["ladder"] and "color" not in e:
            problems.append(f"{e['name']}: a ladder step needs a chart colour")
    return problems


# The ladder of contracts, written once (each entry's adds and contract) and generated into the pages that show it,
# between these markers: README.md links each step to its folder, the Doxygen pages to its page.
CONTRACTS_BEGIN, CONTRACTS_END = "<!-- contracts:begin -->", "<!-- contracts:end -->"
CONTRACT_PAGES = {"README.md": "markdown", "docs/mainpage.md": "doxygen", "docs/step9_multi_consumer.md": "doxygen",
                  "docs/step10_stream_k.md": "doxygen"}


def contracts_table(style):
    """The ladder of contracts as a Markdown table, step links in the page's style."""
    lines = ["| step | what it adds | the contract it adds |", "|---|---|---|"]
    for i, e in enumerate(entries()):
        name = e["name"]
        link = f"[{name}]({name}/README.md)" if style == "markdown" else f'{i + 1}. \\ref {name} "{name}"'
        lines.append(f"| {link} | {e['adds']} | {e['contract']} |")
    return "\n".join(lines)


def contract_pages():
    """{path: the page with its contracts region regenerated} for every page that has the markers."""
    out = {}
    for rel, style in CONTRACT_PAGES.items():
        path = ROOT / rel
        text = path.read_text()
        if CONTRACTS_BEGIN not in text:
            continue
        head, rest = text.split(CONTRACTS_BEGIN, 1)
        if CONTRACTS_END not in rest:
            raise SystemExit(f"{rel}: {CONTRACTS_BEGIN} without {CONTRACTS_END}")
        tail = rest.split(CONTRACTS_END, 1)[1]
        out[path] = f"{head}{CONTRACTS_BEGIN}\n{contracts_table(style)}\n{CONTRACTS_END}{tail}"
    return out


if __name__ == "__main__":
    import sys
    write = "--write" in sys.argv[1:]
    found = check()
    for path, want in contract_pages().items():
        if path.read_text() != want:
            if write:
                path.write_text(want)
                print(f"wrote the ladder of contracts into {path.relative_to(ROOT)}")
            else:
                found.append(f"the ladder of contracts in {path.relative_to(ROOT)} is out of date: run tools/registry.py --write")
    for p in found:
        print(f"steps.json: {p}")
    if not found:
        print(f"steps.json: {len(entries())} steps, {len(ladder())} timed by the benchmark, consistent")
    sys.exit(1 if found else 0)
