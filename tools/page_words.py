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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# The Markdown structure the tie checker already reads: fences, Doxygen blocks and lines, generated regions.
from docs_numbers import (CODE_SPAN_RE, DOXY_BLOCK_RE, DOXY_BLOCKS, DOXY_LINE_RE, FENCE_RE,  # noqa: E402
                          REGION_BEGIN_RE, REGION_END)

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUDGET = 2000  # words of prose per step page

# Doxygen lines that structure the site rather than say anything (beyond the code lines docs_numbers skips).
STRUCTURE_LINE_RE = re.compile(r"^\s*[\\@](?:if|endif|else|subpage|page|section|subsection)\b")
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")


def prose(text):
    """The lines of TEXT that count as prose, joined (inline code as one word)."""
    out, fence, doxy_end, region = [], None, None, None
    for line in text.splitlines():
        if region:
            region = None if re.search(REGION_END % re.escape(region), line) else region
        elif fence:
            fence = None if line.strip().startswith(fence) else fence
        elif doxy_end:
            doxy_end = None if re.search(r"[\\@]%s(?![a-z])" % re.escape(doxy_end), line) else doxy_end
        elif REGION_BEGIN_RE.search(line):
            region = REGION_BEGIN_RE.search(line).group("name")
        elif FENCE_RE.match(line):
            fence = FENCE_RE.match(line).group("fence")
        elif DOXY_BLOCK_RE.match(line):
            doxy_end = DOXY_BLOCKS[DOXY_BLOCK_RE.match(line).group("cmd")]
        elif not (DOXY_LINE_RE.match(line) or STRUCTURE_LINE_RE.match(line) or line.lstrip().startswith("|")):
            out.append(CODE_SPAN_RE.sub(" code ", re.sub(r"\{#[A-Za-z0-9_]+\}", "", line)))
    return COMMENT_RE.sub("", "\n".join(out))


def words(path):
    return len(WORD_RE.findall(prose(pathlib.Path(path).read_text(encoding="utf-8"))))


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    pages = [pathlib.Path(a) for a in argv] or sorted((ROOT / "docs").glob("step*_*.md"))
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        print(f"page_words: no such page: {', '.join(missing)}", file=sys.stderr)
        return 2
    over = 0
    for page in pages:
        n = words(page)
        flag = "  OVER" if n > BUDGET else ""
        over += n > BUDGET
        print(f"{page.name}: {n} words of prose (budget {BUDGET}){flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
