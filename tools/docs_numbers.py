#!/usr/bin/env python3
"""Tie every measured number in the project's Markdown to the data row it comes from.

    tools/docs_numbers.py [--check] [FILES...]   one line per problem (PATH:LINE: message), exit 1 if any;
                                                 else a one-line summary and exit 0
    tools/docs_numbers.py --write [FILES...]     rewrite every tied number to its row's value (the rest of
                                                 each file byte-identical), print what changed; still report
                                                 dangling ties and untied figures (exit 1 if any)
    tools/docs_numbers.py --list-untied [FILES...]
                                                 print only the measured figures with no tie (exit 0): the
                                                 list for a tying sweep
    tools/docs_numbers.py --strip FILE           print FILE without its ties and untied notes: the Doxygen
                                                 input filter of the docs' Markdown (docs/Doxyfile.in)
    --results DIR   the CSV directory (default docs/results under the repository root)
    --root DIR      the repository root that the default FILES and --results are relative to (default: the
                    checkout holding this script)

FILES default to README.md, step*/README.md and docs/*.md under the root. A number is fine when it sits in a
generated region (the lines between <!-- NAME:begin ... --> and <!-- NAME:end -->, which tools/pages.py
rewrites from the data), in code (fenced blocks, \\code ... \\endcode, inline `spans`, Doxygen
\\snippet / \\include / \\dontinclude / \\skip / \\until / \\line lines), in an HTML comment, or when it
carries a tie, an HTML comment right after it, readable in plain Markdown and invisible when rendered:

    689.2 TFLOP/s<!-- tie: ladder.csv m=8192 n=8192 k=8192 step=step5_pipeline method=burst col=tflops -->

    <!-- tie: FILE key=value ... col=COLUMN [fmt=FORMAT] -->

FILE is a CSV under the results directory. Every key=value but col and fmt selects the rows whose column key
equals value (both stripped; a value with spaces is quoted: what="2D grid, thread copies"); exactly one row must
match. The tied number must equal format(float(row[COLUMN]), FORMAT); FORMAT defaults to the prose's own
precision (689.2 -> .1f, 103 -> .0f, 1,979 -> ,.0f). A cell's leading number is its value ("1965 MHz" -> 1965).
The number a tie belongs to is the last number before the <!-- on its line, with only a unit, %, x or blanks
between them. A measured figure (a number followed by a time, rate, clock or power unit or %, or a speedup
such as 1.3x) needs a tie, unless its line carries <!-- untied: REASON --> (a vendor datasheet figure, a
setting) or it is in the paragraph or table right below a line holding only such a comment.
Python standard library only.
"""
import argparse
import bisect
import csv
import pathlib
import re
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# --- What is scanned and what is skipped: every pattern in one place, to be tuned ------------------------------
# A number: digits with optional decimals, or thousands in groups of three (1,979), with an optional sign that
# is not glued to a word (step-5 is the 5, not -5). Not part of a word (sm90, H200), of a dotted version
# (580.159.04) or after a comma without a blank (3,4).
NUMBER = r"(?:(?<![\w.])[-+\u2212])?(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\.\d|,\d{3})"
# Between a number and its unit: nothing, one blank (a no-break space or &nbsp; too), or a line break with its
# indentation (a figure wrapped across two lines of a paragraph).
GAP = r"(?:[ \t\u00a0\u202f\u2009]|&nbsp;|&thinsp;|&#160;|&#8239;)*(?:\n[ \t]*)?"
# The units of measured figures, the longest first. Not KiB, MiB, bytes, B, FLOP (sizes and counts).
UNITS = [r"TFLOP/s", r"GFLOP/s", r"TB/s", r"GB/s", r"MHz", r"GHz", r"ms", r"us", r"\u00b5s", r"\u03bcs",
         r"&micro;s", r"&mu;s", r"ns", r"W"]
UNIT = r"(?:%s)(?![\w/])" % "|".join(UNITS)
PERCENT = r"%"  # 28.8%, 102.9% of cuBLAS, 61.8% of peak
# A speedup: 1.3x, 1.3×, 1.3 ×, 1.3&times;. The x of a shape (4096 x 4096, 4096x4096, 128 × 64, 128 × BK) is
# followed by a number or a capital dimension and is no speedup; a spaced letter x is always a shape, so the
# letter x must touch the number.
TIMES = r"(?:x|(?:[ \u00a0]?(?:\u00d7|&times;)))(?!\s*(?:\d|[A-Z]\b|[A-Z]{2}))(?!\w)"
FIGURE_TAIL = r"(?:%s(?:%s|%s)|%s)" % (GAP, UNIT, PERCENT, TIMES)
FIGURE_RE = re.compile(r"(?P<num>%s)(?P<unit>%s)" % (NUMBER, FIGURE_TAIL))
# The first numbers of a range or pair whose last one is a figure (558.4 to 611.4 TFLOP/s, 3 to 6%, 1230 and
# 1980 MHz, 686-695 W) are measured too. Not a shape's last side (16384 x 4096 x 1024 and 3 to 11%: the 1024).
RANGE_JOIN = r"(?:\s+(?:to|and|or)\s+|[ \t]*[-\u2013\u2014][ \t]*)"
RANGE_START_RE = re.compile(r"(?<![x\u00d7] )(?<![x\u00d7])(?<!&times;)(?P<num>%s)(?=(?P<rest>(?:%s%s)+%s))"
                            % (NUMBER, RANGE_JOIN, NUMBER, FIGURE_TAIL))
# Numbers that stand before a unit but measure nothing, overwritten with "_" before the search (so that neither
# they nor a number before them reads as a figure): an exponent (| 4096<sup>3</sup> TFLOP/s |), a step's number
# (| step 6 TFLOP/s |). Only the number right after "step": in "step 9 and 94.9%" the 94.9 is measured.
NOT_MEASURED_RE = re.compile(r"<sup>[^<]*</sup>|\b[Ss]teps?\s+\d+\b(?!\.\d)")
# What may stand between a tied number and its <!-- tie: ... -->: a unit, %, an x, blanks.
TIE_TAIL = r"(?:[ \t\u00a0]|&nbsp;)*(?:%s|%%|x|\u00d7|&times;)?(?:[ \t\u00a0]|&nbsp;)*$" % UNIT
TIED_NUMBER_RE = re.compile(r"(?P<num>%s)%s" % (NUMBER, TIE_TAIL))

TIE_RE = re.compile(r"<!--\s*tie:(?P<body>.*?)-->")
UNTIED_RE = re.compile(r"<!--\s*untied:(?P<reason>.*?)-->")
UNTIED_ALONE_RE = re.compile(r"^\s*<!--\s*untied:.*?-->\s*$")
COMMENT_OPEN, COMMENT_CLOSE = "<!--", "-->"
REGION_BEGIN_RE = re.compile(r"<!--\s*(?P<name>[A-Za-z0-9_.-]+):begin\b.*?-->")
REGION_END = r"<!--\s*%s:end\s*-->"
FENCE_RE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")
DOXY_BLOCKS = {"code": "endcode", "verbatim": "endverbatim", "dot": "enddot", "msc": "endmsc",
               "htmlonly": "endhtmlonly", "latexonly": "endlatexonly", "f[": "f]"}
DOXY_BLOCK_RE = re.compile(r"^\s*[\\@](?P<cmd>code|verbatim|dot|msc|htmlonly|latexonly|f\[)(?![a-z])")
# Doxygen lines that name code, not prose: \snippet file label, \skip pattern, \until pattern, ...
DOXY_LINE_RE = re.compile(r"^\s*[\\@](?:snippet|snippetlineno|include|includelineno|dontinclude|skip|skipline"
                          r"|until|line|image|htmlinclude|verbinclude)\b")
CODE_SPAN_RE = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`)")
HTML_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")  # <sup>, <img width="80%">: the tag only
LINK_TARGET_RE = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")  # [text](target "title"): the target only


def blank(text, fill=" "):
    """text with every character but a line break turned into fill (columns and line numbers stay put)."""
    return "".join(c if c == "\n" else fill for c in text)


def mask(text, pattern, fill=" "):
    """text with every match of pattern blanked (overwritten with fill)."""
    return pattern.sub(lambda m: blank(m.group(0), fill), text)


def mask_code_spans(line):
    """The line with its inline code spans (`...`, ``...``) blanked."""
    return mask(line, CODE_SPAN_RE)


def mask_comments(line, in_comment):
    """(line with its HTML comments blanked, whether a comment is still open at its end)."""
    out, i = [], 0
    while i < len(line):
        if in_comment:
            j = line.find(COMMENT_CLOSE, i)
            end = len(line) if j < 0 else j + len(COMMENT_CLOSE)
            out.append(blank(line[i:end]))
            in_comment, i = j < 0, end
        else:
            j = line.find(COMMENT_OPEN, i)
            if j < 0:
                out.append(line[i:])
                break
            out.append(line[i:j])
            in_comment, i = True, j + len(COMMENT_OPEN)
            out.append(blank(COMMENT_OPEN))
    return "".join(out), in_comment


# --- Reading a page ----------------------------------------------------------------------------------------------
class Page:
    """One Markdown file: its lines, the text that is checked (the rest blanked), its ties and its problems."""

    def __init__(self, path, shown):
        self.path = path
        self.shown = shown  # the name printed in messages
        with open(path, encoding="utf-8", newline="") as f:
            self.lines = f.read().splitlines(keepends=True)
        self.ties = []  # Tie objects
        self.problems = []  # (line number, message)
        self.checked = []  # per line: the prose that may hold measured figures, the rest blanked
        self.scan()

    def scan(self):
        """Sorts every line into skipped (region, code, Doxygen command, opt-out) or checked, finds the ties."""
        region = region_line = None
        fence = doxy_end = None
        in_comment = untied_block = False
        for no, line in enumerate(self.lines, 1):
            body = line.rstrip("\r\n")
            if region:
                if re.search(REGION_END % re.escape(region), body):
                    region = None
                self.checked.append(blank(line))
                continue
            if fence:
                m = FENCE_RE.match(body)
                if m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence) \
                        and not body.strip().strip(fence[0]):
                    fence = None
                self.checked.append(blank(line))
                continue
            if doxy_end:
                if re.search(r"[\\@]%s(?![a-z])" % re.escape(doxy_end), body):
                    doxy_end = None
                self.checked.append(blank(line))
                continue
            if not in_comment:
                m = REGION_BEGIN_RE.search(mask_code_spans(body))
                if m:
                    region, region_line = m.group("name"), no
                    if re.search(REGION_END % re.escape(region), body[m.end():]):
                        region = None  # begin and end on one line
                    self.checked.append(blank(line))
                    continue
                m = FENCE_RE.match(body)
                if m:
                    fence = m.group("fence")
                    self.checked.append(blank(line))
                    continue
                m = DOXY_BLOCK_RE.match(body)
                if m:
                    doxy_end = DOXY_BLOCKS[m.group("cmd")]
                    if re.search(r"[\\@]%s(?![a-z])" % re.escape(doxy_end), body[m.end():]):
                        doxy_end = None
                    self.checked.append(blank(line))
                    continue
                if DOXY_LINE_RE.match(body):
                    self.checked.append(blank(line))
                    continue
            if not body.strip():
                untied_block = False
            code_free = mask_code_spans(line)
            if not in_comment:
                self.find_ties(no, code_free)
            for m in UNTIED_RE.finditer(code_free):
                if not m.group("reason").strip():
                    self.problems.append((no, "untied opt-out without a reason: write <!-- untied: REASON -->"))
            opted_out = untied_block or bool(UNTIED_RE.search(code_free))
            if UNTIED_ALONE_RE.match(code_free) and not in_comment:
                untied_block = True  # the paragraph or table below
            text, in_comment = mask_comments(code_free, in_comment)
            if opted_out:
                self.checked.append(blank(line))
                continue
            self.checked.append(mask(mask(mask(text, NOT_MEASURED_RE, "_"), HTML_TAG_RE), LINK_TARGET_RE))
        if region:
            self.problems.append((region_line, "<!-- %s:begin --> without <!-- %s:end -->" % (region, region)))

    def find_ties(self, no, code_free):
        """Records the ties of line `no` (its code spans already blanked) and the number each belongs to."""
        for m in TIE_RE.finditer(code_free):
            before = code_free[:m.start()]
            n = TIED_NUMBER_RE.search(before)
            tie = Tie(no, m.group("body"))
            if not n:
                self.problems.append((no, "a tie with no number right before it (only a unit, %%, x or blanks "
                                          "may stand between them): <!--%s-->" % m.group("body")))
                continue
            tie.start, tie.end, tie.number = n.start("num"), n.end("num"), n.group("num")
            self.ties.append(tie)

    def untied_figures(self):
        """[(line number, figure text)] of every measured figure in the checked text that carries no tie."""
        doc = "".join(self.checked)
        starts, pos = [], 0
        for text in self.checked:
            starts.append(pos)
            pos += len(text)
        tied = {starts[tie.line - 1] + tie.start for tie in self.ties}
        found = {}
        for m in FIGURE_RE.finditer(doc):
            found[m.start("num")] = m.group(0)
        for m in RANGE_START_RE.finditer(doc):
            found.setdefault(m.start("num"), "%s (of %s%s)" % (m.group("num"), m.group("num"), m.group("rest")))
        out = []
        for at in sorted(found):
            if at not in tied:
                out.append((bisect.bisect_right(starts, at), re.sub(r"\s+", " ", found[at])))
        return out


class Tie:
    """One <!-- tie: FILE key=value ... col=COLUMN [fmt=FORMAT] --> and the number it stands after."""

    def __init__(self, line, body):
        self.line, self.body = line, body.strip()
        self.start = self.end = None
        self.number = None

    def parse(self):
        """(file, [(key, value)], column, fmt or None), or raises ValueError naming what is wrong."""
        try:
            words = shlex.split(self.body)
        except ValueError as e:
            raise ValueError("malformed tie (%s): <!-- tie: %s -->" % (e, self.body))
        if not words or "=" in words[0]:
            raise ValueError("malformed tie (no CSV file first): <!-- tie: %s -->" % self.body)
        selectors, col, fmt = [], None, None
        for w in words[1:]:
            key, eq, value = w.partition("=")
            if not eq or not key:
                raise ValueError("malformed tie ('%s' is not key=value): <!-- tie: %s -->" % (w, self.body))
            if key == "col":
                col = value
            elif key == "fmt":
                fmt = value
            else:
                selectors.append((key.strip(), value.strip()))
        if not col:
            raise ValueError("malformed tie (no col=COLUMN): <!-- tie: %s -->" % self.body)
        return words[0], selectors, col, fmt


# --- The data ----------------------------------------------------------------------------------------------------
class Results:
    """The CSV files of the results directory, read once each."""

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        self.tables = {}

    def table(self, name):
        """(header, [(CSV line number, row dict)]) of DIR/name, or None when there is no such file."""
        if name not in self.tables:
            path = self.directory / name
            if not path.is_file():
                self.tables[name] = None
            else:
                with open(path, encoding="utf-8", newline="") as f:
                    reader = csv.reader(f)
                    header = [h.strip() for h in next(reader, [])]
                    rows = []
                    for row in reader:
                        if any(cell.strip() for cell in row):
                            rows.append((reader.line_num, {h: (row[i].strip() if i < len(row) else "")
                                                           for i, h in enumerate(header)}))
                self.tables[name] = (header, rows)
        return self.tables[name]


def leading_number(cell):
    """The float a CSV cell starts with ("611.4" -> 611.4, "1965 MHz" -> 1965.0), or None."""
    m = re.match(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)", cell)
    return float(m.group(1)) if m else None


def prose_format(number):
    """The format spec that writes a value with the prose number's precision: 689.2 -> .1f, 1,979 -> ,.0f."""
    plain = number.lstrip("+-\u2212")
    decimals = len(plain.partition(".")[2])
    return "%s%s.%df" % ("+" if number.startswith("+") else "", "," if "," in plain else "", decimals)


def formatted(value, fmt, number):
    """value written by fmt (or the prose number's own precision) as it would stand in the prose."""
    text = format(value, fmt or prose_format(number))
    if (fmt or "").endswith("%"):
        text = text[:-1]  # fmt=.1% writes a fraction as a percentage; the % is the prose's unit
    if number.startswith("\u2212"):
        text = text.replace("-", "\u2212", 1)  # keep the page's minus sign
    return text


def resolve(tie, results):
    """(expected text, where: a description of the row) for a tie, or raises ValueError (a dangling tie)."""
    name, selectors, col, fmt = tie.parse()
    table = results.table(name)
    if table is None:
        raise ValueError("dangling tie: no file %s" % (results.directory / name))
    header, rows = table
    for key in [k for k, _ in selectors] + [col]:
        if key not in header:
            raise ValueError("dangling tie: %s has no column '%s' (columns: %s)" % (name, key, ", ".join(header)))
    wanted = " ".join("%s=%s" % kv for kv in selectors)
    matches = [(line, row) for line, row in rows if all(row[k] == v for k, v in selectors)]
    if not matches:
        raise ValueError("dangling tie: no row of %s has %s" % (name, wanted or "(no selector)"))
    if len(matches) > 1:
        raise ValueError("dangling tie: %d rows of %s (lines %s) have %s; exactly one must"
                         % (len(matches), name, ", ".join(str(line) for line, _ in matches), wanted or "(no selector)"))
    line, row = matches[0]
    value = leading_number(row[col])
    where = "%s line %d%s has %s=%s" % (name, line, " (%s)" % wanted if wanted else "", col, row[col])
    if value is None:
        raise ValueError("dangling tie: %s is not a number" % where)
    try:
        return formatted(value, fmt, tie.number), where
    except ValueError as e:
        raise ValueError("malformed tie (fmt=%s: %s): <!-- tie: %s -->" % (fmt, e, tie.body))


# --- Checking and rewriting --------------------------------------------------------------------------------------
def same_number(a, b):
    """Whether two numbers read the same (the minus sign's spelling aside)."""
    return a.replace("\u2212", "-") == b.replace("\u2212", "-")


def check_page(page, results, write):
    """(problems, changes) of one page: [(line, message)] each; with write, the wrong tied numbers replaced in
    page.lines (the caller saves them)."""
    problems, changes, rewrites = list(page.problems), [], []
    for tie in page.ties:
        try:
            expected, where = resolve(tie, results)
        except ValueError as e:
            problems.append((tie.line, str(e)))
            continue
        if same_number(tie.number, expected):
            continue
        if write:
            rewrites.append((tie, expected))
            changes.append((tie.line, "%s -> %s: %s" % (tie.number, expected, where)))
        else:
            problems.append((tie.line, "%s should be %s: %s" % (tie.number, expected, where)))
    for tie, expected in sorted(rewrites, key=lambda r: (r[0].line, -r[0].start)):  # right to left in a line
        line = page.lines[tie.line - 1]
        page.lines[tie.line - 1] = line[:tie.start] + expected + line[tie.end:]
    for no, figure in page.untied_figures():
        problems.append((no, "untied measured figure '%s': add <!-- tie: FILE key=value ... col=COLUMN --> "
                             "right after it, or <!-- untied: REASON -->" % figure))
    problems.sort(key=lambda p: p[0])
    return problems, changes


def default_files(root):
    """README.md, step*/README.md and docs/*.md under root, those that exist."""
    files = [root / "README.md"] + sorted(root.glob("step*/README.md")) + sorted(root.glob("docs/*.md"))
    return [f for f in files if f.is_file()]


def shown_name(path, root):
    """path relative to root when it is under it, else as given."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def strip_ties(text):
    """TEXT with every tie and untied note removed; a line that held only a note becomes empty (line numbers
    stay, so Doxygen's warnings still point at the source)."""
    out = []
    for line in text.splitlines(keepends=True):
        if UNTIED_ALONE_RE.match(line):
            out.append("\n" if line.endswith("\n") else "")
            continue
        out.append(UNTIED_RE.sub("", TIE_RE.sub("", line)))
    return "".join(out)


def main(argv=None):
    """The command line (see the module's docstring); returns the exit code."""
    parser = argparse.ArgumentParser(description="Check or rewrite the ties between the pages' numbers and "
                                                 "the data (docs/results/*.csv).")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="report wrong, dangling and missing ties (default)")
    mode.add_argument("--write", action="store_true", help="rewrite every tied number to its row's value")
    mode.add_argument("--list-untied", action="store_true", help="print only the measured figures with no tie")
    mode.add_argument("--strip", metavar="FILE", help="print FILE without its ties and untied notes (the docs' "
                                                      "Doxygen input filter: Doxygen drops the blank after an "
                                                      "HTML comment, which would glue a number to its unit)")
    parser.add_argument("--results", help="the CSV directory (default: ROOT/docs/results)")
    parser.add_argument("--root", help="the repository root (default: the checkout holding this script)")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md, step*/README.md, docs/*.md)")
    args = parser.parse_args(argv)
    if args.strip:
        sys.stdout.write(strip_ties(pathlib.Path(args.strip).read_text(encoding="utf-8")))
        return 0
    root = pathlib.Path(args.root) if args.root else ROOT
    results = Results(pathlib.Path(args.results) if args.results else root / "docs" / "results")
    files = [pathlib.Path(f) for f in args.files] or default_files(root)
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        sys.stderr.write("docs_numbers: no such file: %s\n" % ", ".join(missing))
        return 2
    pages = [Page(f, shown_name(f, root)) for f in files]
    if args.list_untied:
        for page in pages:
            for no, figure in page.untied_figures():
                print("%s:%d: %s" % (page.shown, no, figure))
        return 0
    total_problems = total_ties = total_changes = 0
    for page in pages:
        problems, changes = check_page(page, results, args.write)
        for no, message in changes:
            print("%s:%d: rewrote %s" % (page.shown, no, message))
        if changes:
            with open(page.path, "w", encoding="utf-8", newline="") as f:
                f.write("".join(page.lines))
        for no, message in problems:
            print("%s:%d: %s" % (page.shown, no, message))
        total_problems += len(problems)
        total_ties += len(page.ties)
        total_changes += len(changes)
    rewritten = ", %d numbers rewritten" % total_changes if args.write else ""
    print("docs_numbers: %d files, %d ties%s, %d problems" % (len(pages), total_ties, rewritten, total_problems))
    return 1 if total_problems else 0


if __name__ == "__main__":
    sys.exit(main())
