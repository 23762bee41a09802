"""The step registry, steps.json at the root of the repository, for the Python tools: the steps in order, the
ones the benchmark times, their chart colours, and the ladder of contracts (tools/pages.py puts it into the
pages' contracts regions). Run as a script, it checks the registry against the step folders (CTest
registry/consistent). CMake reads the same file (CMakeLists.txt)."""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The fields of a step's entry (steps.json's "about" says what each means); a ladder step also has a colour.
FIELDS = ["name", "namespace", "adds", "contract", "what", "label", "bought", "unsolved", "shape", "rule", "breaks",
          "knobs", "tolerated_sm90", "depths", "ptx", "tmem_cols", "ladder"]
OPTIONAL_FIELDS = ["color"]
TIMING_METHODS = ["burst", "sustained"]  # hgemm_bench's, the column method of ladder.csv
KNOBS = ["stream_k", "tile"]  # run-time knobs a step's prepare_variant can take (tools/cmake/steps.cmake)


def shape_rules():
    """The enumerators of hg::ShapeRule (common/harness/cli.hpp): the values an entry's rule may take."""
    import re
    text = (ROOT / "common" / "harness" / "cli.hpp").read_text()
    body = re.search(r"enum class ShapeRule \{(.*?)\};", text, re.S).group(1)
    return re.findall(r"^\s*(k\w+),", body, re.M)


def registry():
    return json.loads((ROOT / "steps.json").read_text())


def entries():
    """Every step's entry, in the ladder's order."""
    return registry()["steps"]


def payoff():
    """The benchmark shape (m, n, k) and timing method that the payoff and group tables quote."""
    p = registry().get("payoff", {})
    return tuple(p.get("shape", ())), p.get("method")


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
    folder, a namespace that is not step<N>, a rule that is no hg::ShapeRule, an unknown knob, repeated depths, a
    ladder step without a colour or with another's, PTX listed as introduced by two steps, a step folder whose texts
    name the step it was copied from, and a last step's page without the ladder of contracts."""
    problems = []
    names = steps()
    shape, method = payoff()
    if len(shape) != 3 or not all(isinstance(x, int) and x > 0 for x in shape) or method not in TIMING_METHODS:
        problems.append(f"payoff must be {{\"shape\": [M, N, K], \"method\": one of {', '.join(TIMING_METHODS)}}}, "
                        f"got shape {list(shape)} and method {method}")
    rules = shape_rules()
    folders = sorted(p.name for p in ROOT.glob("step*_*") if p.is_dir() and (p / "hgemm_sm90.cuh").exists())
    for f in folders:
        if f not in names:
            problems.append(f"{f}/ has no entry in steps.json")
    for i, e in enumerate(entries()):
        if not (ROOT / e["name"] / "hgemm_sm90.cuh").exists() or not (ROOT / e["name"] / "hgemm_sm100.cuh").exists():
            problems.append(f"{e['name']}: no such step folder with both kernels")
        if e["namespace"] != f"step{i + 1}" or not e["name"].startswith(f"step{i + 1}_"):
            problems.append(f"{e['name']}: entry {i + 1} must be step{i + 1}_..., namespace step{i + 1}")
        if e.get("rule") not in rules:
            problems.append(f"{e['name']}: rule {e.get('rule')} is not a shape rule "
                            f"(hg::ShapeRule: {', '.join(rules)})")
        unknown_knobs = [k for k in e.get("knobs", []) if k not in KNOBS]
        if unknown_knobs:
            problems.append(f"{e['name']}: unknown knobs {', '.join(unknown_knobs)} (the knobs: {', '.join(KNOBS)})")
        if len(set(e["depths"])) != len(e["depths"]):
            problems.append(f"{e['name']}: repeated ring depths {e['depths']}")
        missing = [f for f in FIELDS if f not in e]
        unknown = [f for f in e if f not in FIELDS + OPTIONAL_FIELDS]
        if missing or unknown:
            problems.append(f"{e['name']}: " + "; ".join(
                ([f"no field {', '.join(missing)}"] if missing else []) +
                ([f"unknown field {', '.join(unknown)} (known: {', '.join(FIELDS + OPTIONAL_FIELDS)}; a new one "
                  "goes into registry.FIELDS and steps.json's about)"] if unknown else [])))
        if e["ladder"] and "color" not in e:
            problems.append(f"{e['name']}: a ladder step needs a chart colour")
        problems += own_texts(e["name"])
    seen_ptx, seen_colors = {}, {}
    for e in entries():
        for token in e["ptx"]:  # what a step introduces: no earlier step may hold it (the PTX tests forbid it there)
            if token in seen_ptx:
                problems.append(f"{e['name']}: its ptx '{token}' is already introduced by {seen_ptx[token]}: list "
                                "only the PTX this step adds")
            seen_ptx.setdefault(token, e["name"])
        if e["ladder"] and "color" in e:
            if e["color"] in seen_colors:
                problems.append(f"{e['name']}: chart colour {e['color']} is {seen_colors[e['color']]}'s already")
            seen_colors.setdefault(e["color"], e["name"])
    last_page = ROOT / "docs" / f"{names[-1]}.md"
    if last_page.exists() and "<!-- contracts:begin -->" not in last_page.read_text():
        problems.append(f"{names[-1]}: docs/{names[-1]}.md, the last step's page, has no <!-- contracts:begin --> "
                        "region: the last page shows the whole ladder of contracts")
    return problems


def own_texts(name):
    """A copied step folder still speaking of the step it was copied from: each kernel banner names its own file in
    its first lines, and a ladder region in the step's README is the step's own."""
    import re
    problems = []
    for kernel in ("hgemm_sm90.cuh", "hgemm_sm100.cuh"):
        path = ROOT / name / kernel
        if path.exists() and f"{name}/{kernel}" not in "".join(path.read_text().splitlines(True)[:4]):
            problems.append(f"{name}/{kernel}: its banner's first lines do not name {name}/{kernel}")
    readme = ROOT / name / "README.md"
    if readme.exists():
        for other in re.findall(r"<!-- ladder:begin (\S+)", readme.read_text()):  # its own step first
            if other != name:
                problems.append(f"{name}/README.md: its ladder region is {other}'s, not its own")
    return problems


def step_link(name, style, to_root="", text=None):
    """A link to a step: in the "doxygen" style to its page, in the "markdown" style to its folder's README,
    relative to the page (to_root: "../" from a step's folder); its text is the step's name unless given."""
    text = text or name
    return f"[{text}]({to_root}{name}/README.md)" if style == "markdown" else f'\\ref {name} "{text}"'


def contracts_table(style, to_root=""):
    """The ladder of contracts (each entry's adds and contract) as a Markdown table, each step linked (step_link)."""
    lines = ["| step | what it adds | the contract it adds |", "|---|---|---|"]
    for i, e in enumerate(entries()):
        link = step_link(e["name"], style, to_root)
        number = "" if style == "markdown" else f"{i + 1}. "
        lines.append(f"| {number}{link} | {e['adds']} | {e['contract']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    found = check()
    for p in found:
        print(f"steps.json: {p}")
    if not found:
        print(f"steps.json: {len(entries())} steps, {len(ladder())} timed by the benchmark, consistent")
    sys.exit(1 if found else 0)
