#!/usr/bin/env python3
"""Count the words of prose on each step page (docs/step*_*.md) and hold them to the lesson's budget.

    tools/page_words.py            one line per page: its words of prose and the budget; exit 1 if a page is over
    tools/page_words.py FILES...   the same for the pages named

Prose is what a reader reads as sentences: tables, fenced code and Doxygen code blocks, \\snippet, \\include and
\\htmlinclude lines, \\dontinclude listings, HTML comments (ties), generated regions (<!-- NAME:begin --> ...
<!-- NAME:end -->) and headings' anchors do not count. A word is a run of letters or digits (inline code counts
as one word). The lab notebook of a step (sweeps, variants, first versions, detailed profiles) lives on its
lab page, docs/lab_<step>.md, which has no budget.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUDGET = 2500  # words of prose per step page

FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
DOXY_BLOCK_BEGIN_RE = re.compile(r"^\s*[\\@](code|verbatim|dot|msc|htmlonly|latexonly|f\[)(?![a-z])")
DOXY_BLOCK_END = {"code": "endcode", "verbatim": "endverbatim", "dot": "enddot", "msc": "endmsc",
                  "htmlonly": "endhtmlonly", "latexonly": "endlatexonly", "f[": "f]"}
DOXY_LINE_RE = re.compile(r"^\s*[\\@](snippet|include|htmlinclude|dontinclude|skip|skipline|until|line|image|"
                          r"if|endif|else|subpage|page|section|subsection)\b")
REGION_BEGIN_RE = re.compile(r"<!--\s*([A-Za-z0-9_.-]+):begin\b")
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
INLINE_CODE_RE = re.compile(r"`[^`]*`")
WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")


def prose(text):
    """The lines of TEXT that count as prose, joined."""
    text = COMMENT_RE.sub(lambda m: "" if ":begin" not in m.group(0) and ":end" not in m.group(0) else m.group(0),
                          text)
    out, fence, block, region = [], None, None, None
    for line in text.splitlines():
        if region:
            if f"<!-- {region}:end" in line:
                region = None
            continue
        m = REGION_BEGIN_RE.search(line)
        if m:
            region = m.group(1)
            continue
        if fence:
            if line.strip().startswith(fence):
                fence = None
            continue
        if block:
            if re.match(r"^\s*[\\@]" + re.escape(DOXY_BLOCK_END[block]), line):
                block = None
            continue
        m = FENCE_RE.match(line)
        if m:
            fence = m.group(1)
            continue
        m = DOXY_BLOCK_BEGIN_RE.match(line)
        if m:
            block = m.group(1)
            continue
        if DOXY_LINE_RE.match(line) or line.lstrip().startswith("|"):
            continue
        line = re.sub(r"\{#[A-Za-z0-9_]+\}", "", line)
        out.append(INLINE_CODE_RE.sub(" code ", line))
    return "\n".join(out)


def words(path):
    return len(WORD_RE.findall(prose(pathlib.Path(path).read_text(encoding="utf-8"))))


def main(argv):
    pages = [pathlib.Path(a) for a in argv] or sorted((ROOT / "docs").glob("step*_*.md"))
    over = 0
    for page in pages:
        n = words(page)
        flag = "  OVER" if n > BUDGET else ""
        over += n > BUDGET
        print(f"{page.name}: {n} words of prose (budget {BUDGET}){flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
