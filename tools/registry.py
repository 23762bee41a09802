"""The step registry, steps.json at the root of the repository, for the Python tools: the steps in order, the
ones the benchmark times, their chart colours, and the ladder of contracts (tools/pages.py puts it into the
pages' contracts regions). Run as a script, it checks the registry against the step folders (CTest
registry/consistent). CMake reads the same file (CMakeLists.txt)."""
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


def contracts_table(style, to_root=""):
    """The ladder of contracts (each entry's adds and contract) as a Markdown table: in the "doxygen" style a step
    links to its page, in the "markdown" style to its folder's README, relative to the page (to_root: "../" from
    a step's folder)."""
    lines = ["| step | what it adds | the contract it adds |", "|---|---|---|"]
    for i, e in enumerate(entries()):
        name = e["name"]
        link = f"[{name}]({to_root}{name}/README.md)" if style == "markdown" else f'{i + 1}. \\ref {name} "{name}"'
        lines.append(f"| {link} | {e['adds']} | {e['contract']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    found = check()
    for p in found:
        print(f"steps.json: {p}")
    if not found:
        print(f"steps.json: {len(entries())} steps, {len(ladder())} timed by the benchmark, consistent")
    sys.exit(1 if found else 0)
