#!/usr/bin/env python3
"""Tie every measured number in the project's Markdown to the data row it comes from, and check the claims
that the prose makes about the data (counts, comparisons, quantifiers, timing methods).

    tools/docs_numbers.py [--check] [FILES...]   one line per problem (PATH:LINE: message), exit 1 if any;
                                                 else a one-line summary and exit 0
    tools/docs_numbers.py --write [FILES...]     rewrite every tied number to its row's value (the rest of
                                                 each file byte-identical), print what changed; still report
                                                 dangling ties and untied figures (exit 1 if any)
    tools/docs_numbers.py --list-untied [FILES...]
                                                 print only the measured figures with no tie (exit 0): the
                                                 list for a tying sweep
    tools/docs_numbers.py --strip FILE           print FILE without its ties, claims and untied notes: the Doxygen
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

    <!-- tie: FILE key=value ... col=COLUMN [fmt=FORMAT] [as=us] -->

FILE is a CSV under the results directory. Every key=value but col, fmt and as selects the rows whose column key
equals value (both stripped; a value with spaces is quoted: what="2D grid, thread copies"); exactly one row must
match. The tied number must equal format(float(row[COLUMN]), FORMAT); FORMAT defaults to the prose's own
precision (689.2 -> .1f, 103 -> .0f, 1,979 -> ,.0f). A cell's leading number is its value ("1965 MHz" -> 1965).
as=us reads a rate in TFLOP/s as the microseconds of one GEMM of the row's m, n and k (2 m n k FLOP at that
rate), for a time the prose derives from a rate: 335.0 TFLOP/s at 512 x 1600 x 6400 is 31.3 us.
The number a tie belongs to is the last number before the <!-- on its line, with only a unit, %, x or blanks
between them. A measured figure (a number followed by a time, rate, clock or power unit or %, or a speedup
such as 1.3x) needs a tie, unless its line carries <!-- untied: REASON --> (a vendor datasheet figure, a
setting) or it is in the paragraph or table right below a line holding only such a comment.

A claim is the same kind of comment right after the words it checks, on their line; --check evaluates it
against the rows (--write does not change it):

    step 9 is ahead of step 8 at every shape under both methods<!-- claim: ladder.csv col=pct_cublas
        method=both all: step=step9_multi_consumer > step=step8_cluster by=m,n,k -->   (one line on the page)
    step 10 reaches cuBLAS at three of six under sustained<!-- claim: ladder.csv col=pct_cublas
        method=sustained 3/6: step=step10_stream_k >= 100 by=m,n,k -->
    the sweep times step 10 in 31 rows under burst<!-- claim: sweep.csv method=burst step=step10_stream_k
        count=31 -->
    237 lines<!-- claim: step10_stream_k/from_previous.diff re='sm_100a.*\\n# (\\d+) lines' count=237 -->

    <!-- claim: FILE [key=value ...] col=COLUMN [method=METHOD] QUANTIFIER: A OP B [by=KEYS] [margin=X[%]] -->
    <!-- claim: FILE [key=value ...] col=COLUMN [method=METHOD] pct: A OP B -->
    <!-- claim: FILE [key=value ...] [method=METHOD] [col=COLUMN | by=KEYS] count=N -->
    <!-- claim: PATH re=REGEX count=N -->

The key=value words before the colon select the rows of FILE (a CSV under the results directory, as for a tie);
col, method, by, margin, count and re are the claim's own words wherever they stand. A comparison matches the
rows of side A (key=value words) with those of side B (key=value words, or a number) that have the same values
in the by= columns (m,n,k: one pair per shape; no by=, one pair), exactly one row per side and pair, and
compares their COLUMN with OP: > >= < <= == or ~ (level: within the margin). margin=X (an amount) or margin=X%
(of B) widens the gap: A > B margin=1% holds where A exceeds B by more than 1% of B. The QUANTIFIER says at how
many pairs it holds: all, none, N (exactly), N+ (at least), each with an optional /M (of exactly M pairs):
"four of six" is 4/6:. pct: A > B (or A < B) is one pair whose relative gap, 100 |A - B| / B, is the number
right before the claim at the prose's precision ("5% ahead"), A on the named side of B. count=N counts the
selected rows (by=KEYS: their distinct KEYS), or reads the one selected row's COLUMN (col=), or with re= reads
PATH (a text file under the repository root: a diff, a generated file), where REGEX (Python, multi-line; quote
it with '...') must match exactly once, its first group (or the match) being the number.
A file with a method column (the timing method: burst, sustained) needs method= in every comparison and pct:,
since a comparison may hold under one method only: method=burst or method=sustained (the prose names it), or
method=both, which evaluates the claim under each method of the file separately and holds only if it holds
under each. A count may name a method too (a filter). The counts a claim states (N, M, count=N) must stand
in the words before it on its line, in digits or (up to twenty) in words. A number right before a pct: claim,
or before a comparison with a margin (then it is the margin), counts as tied. Claims in code, comments and
generated regions are not read, like ties; a false claim, a dangling one (no file, no column, no row, two rows
for one side of a pair, pairs on one side only) and a malformed one are problems (PATH:LINE: message).
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

# The word "step" or "steps" right before a number: the number names a step (see NOT_MEASURED_RE).
STEP_BEFORE_RE = re.compile(r"\b[Ss]teps?\s+$")
TIE_RE = re.compile(r"<!--\s*tie:(?P<body>.*?)-->")
CLAIM_RE = re.compile(r"<!--\s*claim:(?P<body>.*?)-->")
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
        self.claims = []  # Claim objects
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
        """Records the ties and claims of line `no` (its code spans already blanked) and the number each tie
        belongs to; a claim keeps the words before it (back to the comment before it) and the number right
        before it, if any."""
        for m in CLAIM_RE.finditer(code_free):
            before = code_free[:m.start()]
            after = before.rfind(COMMENT_CLOSE)
            claim = Claim(no, m.group("body"), before[after + len(COMMENT_CLOSE):] if after >= 0 else before)
            n = TIED_NUMBER_RE.search(before)
            if n and not STEP_BEFORE_RE.search(before[:n.start("num")]):  # "level with step 5": a name, no figure
                claim.start, claim.end, claim.number = n.start("num"), n.end("num"), n.group("num")
            self.claims.append(claim)
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
        tied |= {starts[claim.line - 1] + claim.start for claim in self.claims if claim.ties_number()}
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
    """One <!-- tie: FILE key=value ... col=COLUMN [fmt=FORMAT] [as=us] --> and the number it stands after."""

    def __init__(self, line, body):
        self.line, self.body = line, body.strip()
        self.start = self.end = None
        self.number = None

    def parse(self):
        """(file, [(key, value)], column, fmt or None, as or None), or raises ValueError naming what is wrong."""
        try:
            words = shlex.split(self.body)
        except ValueError as e:
            raise ValueError("malformed tie (%s): <!-- tie: %s -->" % (e, self.body))
        if not words or "=" in words[0]:
            raise ValueError("malformed tie (no CSV file first): <!-- tie: %s -->" % self.body)
        selectors, col, fmt, read_as = [], None, None, None
        for w in words[1:]:
            key, eq, value = w.partition("=")
            if not eq or not key:
                raise ValueError("malformed tie ('%s' is not key=value): <!-- tie: %s -->" % (w, self.body))
            if key == "col":
                col = value
            elif key == "fmt":
                fmt = value
            elif key == "as":
                if value not in AS_READINGS:
                    raise ValueError("malformed tie (as=%s: known are %s): <!-- tie: %s -->"
                                     % (value, ", ".join(AS_READINGS), self.body))
                read_as = value
            else:
                selectors.append((key.strip(), value.strip()))
        if not col:
            raise ValueError("malformed tie (no col=COLUMN): <!-- tie: %s -->" % self.body)
        return words[0], selectors, col, fmt, read_as


# A tie's as=: a column read as another quantity, from the row's own cells. us: a rate in TFLOP/s as the
# microseconds of one GEMM of the row's shape, 2 m n k FLOP (1 TFLOP/s is 1e6 FLOP per microsecond).
AS_READINGS = {"us": (("m", "n", "k"), lambda rate, m, n, k: 2.0 * m * n * k / (rate * 1e6))}


# --- The data ----------------------------------------------------------------------------------------------------
class Results:
    """The CSV files of the results directory, read once each."""

    def __init__(self, directory, root=ROOT):
        self.directory = pathlib.Path(directory)
        self.root = pathlib.Path(root)  # where a claim's re= file is
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
    name, selectors, col, fmt, read_as = tie.parse()
    table = results.table(name)
    if table is None:
        raise ValueError("dangling tie: no file %s" % (results.directory / name))
    header, rows = table
    needs = list(AS_READINGS[read_as][0]) if read_as else []
    for key in [k for k, _ in selectors] + [col] + needs:
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
    if read_as:
        if "tflops" not in col:
            raise ValueError("malformed tie (as=%s reads a TFLOP/s column, not %s): <!-- tie: %s -->"
                             % (read_as, col, tie.body))
        shape = [leading_number(row[k]) for k in needs]
        if value <= 0 or None in shape:
            raise ValueError("dangling tie: as=%s needs a positive %s and numbers in %s"
                             % (read_as, col, ", ".join(needs)))
        value = AS_READINGS[read_as][1](value, *shape)
        where += " (as=%s: %s)" % (read_as, format(value, ".6g"))
    try:
        return formatted(value, fmt, tie.number), where
    except ValueError as e:
        raise ValueError("malformed tie (fmt=%s: %s): <!-- tie: %s -->" % (fmt, e, tie.body))


# --- Claims ------------------------------------------------------------------------------------------------------
METHOD = "method"  # the column of the timing method: a comparison over a file that has it must name its method
BOTH = "both"  # method=both: the claim holds under each method of the file, evaluated separately
CLAIM_KEYS = ("col", METHOD, "by", "margin", "count", "re")  # the claim's own words, never a row selector
OPS = {  # (a, b, margin) -> holds; eps absorbs the float error of a margin computed from a percentage
    ">": lambda a, b, m, eps: a - b > m + eps,
    ">=": lambda a, b, m, eps: a - b >= m - eps,
    "<": lambda a, b, m, eps: b - a > m + eps,
    "<=": lambda a, b, m, eps: b - a >= m - eps,
    "==": lambda a, b, m, eps: abs(a - b) <= eps,
    "~": lambda a, b, m, eps: abs(a - b) <= m + eps,
}
QUANTIFIER_RE = re.compile(r"^(?P<q>all|none|\d+\+?)(?:/(?P<of>\d+))?:$")
MARGIN_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<pct>%?)$")
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
SHOWN_PAIRS = 6  # the pairs a false claim lists, at most


class Claim:
    """One <!-- claim: ... --> (the module's docstring), the words before it on its line, and the number right
    before it if any."""

    def __init__(self, line, body, prose):
        self.line, self.body, self.prose = line, body.strip(), prose
        self.start = self.end = self.number = None
        self.parsed = None

    def malformed(self, why):
        return ValueError("malformed claim (%s): <!-- claim: %s -->" % (why, self.body))

    def parse(self):
        """The claim's parts as a dict (parsed once), or raises ValueError naming what is wrong."""
        if self.parsed is None:
            self.parsed = self._parse()
        return self.parsed

    def _parse(self):
        try:
            words = shlex.split(self.body)
        except ValueError as e:
            raise self.malformed(e)
        if not words or "=" in words[0] or words[0].endswith(":"):
            raise self.malformed("no file first")
        c = {"file": words[0], "method": None, "col": None, "by": [], "margin": None, "count": None, "re": None,
             "kind": None, "filters": [], "a": [], "op": None, "b": [], "quantifier": None, "of": None}
        rest = []
        for w in words[1:]:
            key, eq, value = w.partition("=")
            if eq and key in CLAIM_KEYS:
                if not value:
                    raise self.malformed("%s= without a value" % key)
                c[key] = value
            else:
                rest.append(w)
        c["by"] = [k.strip() for k in c["by"].split(",")] if c["by"] else []
        if c["count"] is not None:
            return self._parse_count(c, rest)
        if c["re"] is not None:
            raise self.malformed("re= reads a count: it needs count=N")
        colons = [i for i, w in enumerate(rest) if w.endswith(":")]
        if len(colons) != 1:
            raise self.malformed("no count=N and no single QUANTIFIER: (all:, none:, N:, N+:, with /M, or pct:)")
        at = colons[0]
        head = rest[at][:-1]
        c["filters"] = self._selectors(rest[:at])
        if not c["col"]:
            raise self.malformed("no col=COLUMN")
        ops = [i for i, w in enumerate(rest) if w in OPS]
        if len(ops) != 1 or ops[0] < at:
            raise self.malformed("no single comparison (%s) between the two sides after the colon"
                                 % " ".join(OPS))
        c["op"] = rest[ops[0]]
        c["a"] = self._selectors(rest[at + 1:ops[0]])
        b = rest[ops[0] + 1:]
        constant = float(b[0]) if len(b) == 1 and re.match(r"^[-+]?\d+(?:\.\d+)?$", b[0]) else None
        c["b"] = Value(constant, b[0]) if constant is not None else self._selectors(b)
        if not c["a"] or c["b"] == []:
            raise self.malformed("a side with no key=value")
        if c["margin"] is not None:
            m = MARGIN_RE.match(c["margin"])
            if not m:
                raise self.malformed("margin=%s is not a number or a percentage" % c["margin"])
            c["margin"] = (float(m.group("num")), bool(m.group("pct")), m.group("num"))
        if head == "pct":
            c["kind"] = "pct"
            if c["op"] not in ("<", ">") or c["by"] or c["margin"]:
                raise self.malformed("pct: takes one pair, A > B or A < B, without by= or margin=")
            if self.number is None:
                raise self.malformed("pct: with no number right before it")
            return c
        m = QUANTIFIER_RE.match(rest[at])
        if not m:
            raise self.malformed("'%s' is no quantifier (all:, none:, N:, N+:, each with an optional /M)"
                                 % rest[at])
        c["kind"], c["quantifier"] = "compare", m.group("q")
        c["of"] = int(m.group("of")) if m.group("of") else None
        if c["op"] == "~" and not c["margin"]:
            raise self.malformed("~ needs margin=X or margin=X%")
        if c["op"] == "==" and c["margin"]:
            raise self.malformed("== takes no margin; 'within' is ~ with margin=")
        return c

    def _parse_count(self, c, rest):
        c["kind"] = "count"
        if not re.match(r"^\d+$", c["count"]):
            raise self.malformed("count=%s is not a whole number" % c["count"])
        c["count"] = int(c["count"])
        if c["margin"] is not None:
            raise self.malformed("margin= belongs to a comparison, not to count=N")
        if any(w.endswith(":") or w in OPS for w in rest):
            raise self.malformed("count=N with a quantifier or a comparison")
        c["filters"] = self._selectors(rest)
        if c["re"] is not None:
            if c["filters"] or c["col"] or c["by"] or c["method"]:
                raise self.malformed("re= reads a file: no selector, col=, by= or method= with it")
            try:
                c["re"] = re.compile(c["re"], re.MULTILINE)
            except re.error as e:
                raise self.malformed("re=: %s" % e)
        if c["col"] and c["by"]:
            raise self.malformed("count=N reads one row's col= or counts rows by= keys, not both")
        return c

    def _selectors(self, words):
        out = []
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or not key.strip():
                raise self.malformed("'%s' is not key=value" % w)
            out.append((key.strip(), value.strip()))
        return out

    def ties_number(self):
        """Whether the number right before the claim is the claim's own (a pct: value or the margin): it is tied."""
        try:
            c = self.parse()
        except ValueError:
            return False
        return self.number is not None and (c["kind"] == "pct" or c["margin"] is not None)

    def stated_counts(self):
        """The counts the claim states, which the words before it must say."""
        c = self.parse()
        if c["kind"] == "count":
            return [c["count"]]
        counts = [int(c["quantifier"].rstrip("+"))] if c["quantifier"] not in (None, "all", "none") else []
        return counts + ([c["of"]] if c["of"] is not None else [])


def says_count(prose, n):
    """Whether prose holds n in digits (8, 1,024) or, up to twenty, in words (eight)."""
    if any(float(m.group(0).replace(",", "").replace("\u2212", "-")) == n for m in re.finditer(NUMBER, prose)):
        return True
    return n < len(NUMBER_WORDS) and re.search(r"\b%s\b" % NUMBER_WORDS[n], prose, re.IGNORECASE) is not None


def selected(rows, selectors):
    """The (line, row) pairs whose columns equal every selector's value."""
    return [(line, row) for line, row in rows if all(row[k] == v for k, v in selectors)]


def words_of(selectors):
    """Selectors as the claim writes them: step=step9_multi_consumer m=8192."""
    return " ".join("%s=%s" % kv for kv in selectors)


def key_label(by, key):
    """A pair's key as the prose writes it: 4096x4096x4096 for numbers, else key=value."""
    if all(re.match(r"^\d+$", v) for v in key):
        return "x".join(key)
    return " ".join("%s=%s" % kv for kv in zip(by, key))


def claim_table(c, results):
    """(header, rows) of the claim's CSV with its filters applied, or raises ValueError (a dangling claim)."""
    table = results.table(c["file"])
    if table is None:
        raise ValueError("dangling claim: no file %s" % (results.directory / c["file"]))
    header, rows = table
    sides = [c["a"], c["b"]] if c["kind"] != "count" else []
    keys = [k for sel in [c["filters"]] + [s for s in sides if isinstance(s, list)] for k, _ in sel]
    for key in keys + c["by"] + ([c["col"]] if c["col"] else []):
        if key not in header:
            raise ValueError("dangling claim: %s has no column '%s' (columns: %s)"
                             % (c["file"], key, ", ".join(header)))
    return header, selected(rows, c["filters"])


def method_runs(c, header, rows):
    """[(method or None, rows)]: the rows under each method the claim is evaluated under."""
    if c["method"] is None:
        if METHOD in header and c["kind"] != "count":
            methods = sorted({row[METHOD] for _, row in rows})
            raise ValueError("claim without a method: %s has a %s column (%s); name the method in the prose and "
                             "say method=METHOD, or method=%s where it holds under each"
                             % (c["file"], METHOD, ", ".join(methods), BOTH))
        return [(None, rows)]
    if METHOD not in header:
        raise ValueError("dangling claim: %s has no %s column; drop method=%s" % (c["file"], METHOD, c["method"]))
    methods = []
    for _, row in rows:
        if row[METHOD] not in methods:
            methods.append(row[METHOD])
    if c["method"] == BOTH:
        if len(methods) < 2:
            raise ValueError("dangling claim: method=%s but the rows of %s%s have only %s"
                             % (BOTH, c["file"], " with " + words_of(c["filters"]) if c["filters"] else "",
                                ", ".join(methods) or "no method"))
        return [(m, [(line, row) for line, row in rows if row[METHOD] == m]) for m in methods]
    if c["method"] not in methods:
        raise ValueError("dangling claim: no row of %s%s has method=%s (methods: %s)"
                         % (c["file"], " with " + words_of(c["filters"]) if c["filters"] else "", c["method"],
                            ", ".join(methods)))
    return [(c["method"], [(line, row) for line, row in rows if row[METHOD] == c["method"]])]


def value_of(c, line, row):
    """The number in the claim's column of one row, or raises ValueError."""
    value = leading_number(row[c["col"]])
    if value is None:
        raise ValueError("dangling claim: %s line %d has %s=%s, not a number" % (c["file"], line, c["col"],
                                                                                  row[c["col"]]))
    return Value(value, row[c["col"]])


def side_values(c, side, rows, where):
    """{key: (value, line)} of one side: its rows grouped by the by= keys, exactly one row each."""
    groups = {}
    for line, row in selected(rows, side):
        groups.setdefault(tuple(row[k] for k in c["by"]), []).append((line, row))
    if not groups:
        raise ValueError("dangling claim: no row of %s has %s%s" % (c["file"], words_of(c["filters"] + side), where))
    out = {}
    for key, matches in groups.items():
        if len(matches) > 1:
            raise ValueError("dangling claim: %d rows of %s (lines %s) have %s%s%s; each side needs one row per "
                             "pair: add a selector or a key to by="
                             % (len(matches), c["file"], ", ".join(str(line) for line, _ in matches),
                                words_of(c["filters"] + side), " at " + key_label(c["by"], key) if key else "",
                                where))
        out[key] = (value_of(c, *matches[0]), matches[0][0])
    return out


def claim_pairs(c, rows, where):
    """[(key, a, b)] of the claim's two sides under one method, matched by the by= keys."""
    a = side_values(c, c["a"], rows, where)
    if not isinstance(c["b"], list):
        return [(key, value, c["b"]) for key, (value, _) in a.items()]
    b = side_values(c, c["b"], rows, where)
    if set(a) != set(b):
        lone = sorted(set(a) ^ set(b))
        raise ValueError("dangling claim: %s has no %s row at %s%s" % (
            c["file"], words_of(c["b"] if lone[0] in a else c["a"]), key_label(c["by"], lone[0]), where))
    return [(key, a[key][0], b[key][0]) for key in a]  # in the file's order


class Value(float):
    """A number read from a cell or a claim, with its text as written there (messages quote the data)."""

    def __new__(cls, value, text):
        self = super().__new__(cls, value)
        self.text = text
        return self


def fmt_value(value):
    """A value as its cell or claim wrote it."""
    return getattr(value, "text", format(value, "g"))


def claimed_method(c):
    """" under burst", " under both methods" or "" (no method column): the method a claim names."""
    return " under %s methods" % BOTH if c["method"] == BOTH else " under %s" % c["method"] if c["method"] else ""


def under(method):
    """" under burst": one method a claim is evaluated under, or "" where the file has no method column."""
    return " under %s" % method if method else ""


def claim_text(c):
    """What a claim says, in words, for its messages."""
    b = words_of(c["b"]) if isinstance(c["b"], list) else fmt_value(c["b"])
    extra = [c["col"]] + ([words_of(c["filters"])] if c["filters"] else [])
    if c["margin"]:
        extra.append("margin %s%s" % (c["margin"][2], "%" if c["margin"][1] else ""))
    text = "%s %s %s (%s)" % (words_of(c["a"]), c["op"], b, ", ".join(extra))
    if c["kind"] == "compare":
        q, of = c["quantifier"], " of %d" % c["of"] if c["of"] is not None else ""
        text += {"all": " at all%s" % (" %d" % c["of"] if c["of"] is not None else ""),
                 "none": " at none" + of}.get(q, " at %s %s%s" % ("least" if q.endswith("+") else "exactly",
                                                                   q.rstrip("+"), of))
        text += " (%s)" % ",".join(c["by"]) if c["by"] else ""
    return text + claimed_method(c)


def quantifier_holds(c, held, total):
    q = c["quantifier"]
    if q == "all":
        return held == total
    if q == "none":
        return held == 0
    n = int(q.rstrip("+"))
    return held >= n if q.endswith("+") else held == n


def check_compare(c, runs):
    """The problems of a comparison over its runs [(method, rows)]: [] when it holds under each."""
    failures = []
    for method, rows in runs:
        where = under(method)
        pairs = claim_pairs(c, rows, where)
        results = []
        for key, a, b in pairs:
            m = 0.0
            if c["margin"]:
                m = c["margin"][0] * (abs(b) / 100 if c["margin"][1] else 1)
            results.append((key, a, b, OPS[c["op"]](a, b, m, 1e-9 * max(abs(a), abs(b), 1))))
        held = sum(1 for r in results if r[3])
        if c["of"] is not None and len(results) != c["of"]:
            failures.append("%s there are %d pairs, not %d" % (where.strip() or "in the rows", len(results),
                                                                 c["of"]))
            continue
        if quantifier_holds(c, held, len(results)):
            continue
        want_more = c["quantifier"] == "all" or (c["quantifier"] != "none" and held < int(c["quantifier"].rstrip("+")))
        shown = [r for r in results if r[3] != want_more]
        listed = ", ".join("%s (%s vs %s)" % (key_label(c["by"], k) if k else "the pair", fmt_value(a), fmt_value(b))
                           for k, a, b, _ in shown[:SHOWN_PAIRS])
        if len(shown) > SHOWN_PAIRS:
            listed += " and %d more" % (len(shown) - SHOWN_PAIRS)
        failures.append("%sit holds at %d of %d, %s at %s" % (where.lstrip() + " " if where else "", held,
                                                             len(results), "not" if want_more else "but", listed))
    return ["claim does not hold: claims %s; %s" % (claim_text(c), "; ".join(failures))] if failures else []


def check_pct(claim, c, runs):
    """The problems of a pct: claim: the number before it is 100 (A - B) / B (A > B) or 100 (B - A) / B (A < B)."""
    failures = []
    for method, rows in runs:
        where = under(method)
        (key, a, b), = claim_pairs(c, rows, where)
        if not OPS[c["op"]](a, b, 0.0, 0.0) or b == 0:
            failures.append("%s%s vs %s is not %s" % (where.lstrip() + " " if where else "", fmt_value(a),
                                                     fmt_value(b), "above" if c["op"] == ">" else "below"))
            continue
        exact = 100 * abs(a - b) / abs(b)
        expected = formatted(exact, None, claim.number)
        if not same_number(expected, claim.number):
            failures.append("%s%s vs %s is %s%% (%.2f%%)" % (where.lstrip() + " " if where else "", fmt_value(a),
                                                            fmt_value(b), expected, exact))
    return ["claim does not hold: claims %s is %s%% %s %s (%s)%s; %s"
            % (words_of(c["a"]), claim.number, "above" if c["op"] == ">" else "below",
               words_of(c["b"]) if isinstance(c["b"], list) else fmt_value(c["b"]),
               ", ".join([c["col"]] + ([words_of(c["filters"])] if c["filters"] else [])),
               claimed_method(c),
               "; ".join(failures))] if failures else []


def check_count(c, results):
    """The problems of a count=N claim: rows counted, one row's value, or a number read from a file by re=."""
    n = c["count"]
    if c["re"] is not None:
        root = results.root.resolve()
        path = (root / c["file"]).resolve()
        if root not in path.parents or not path.is_file():
            raise ValueError("dangling claim: no file %s under %s" % (c["file"], root))
        text = path.read_text(encoding="utf-8", errors="replace")
        matches = list(c["re"].finditer(text))
        if len(matches) != 1:
            raise ValueError("dangling claim: re=%s matches %d times in %s; exactly once must"
                             % (c["re"].pattern, len(matches), c["file"]))
        m = matches[0]
        found = m.group(1) if m.re.groups else m.group(0)
        value = leading_number(found)
        if value is None:
            raise ValueError("dangling claim: re=%s reads '%s' in %s, not a number" % (c["re"].pattern, found,
                                                                                         c["file"]))
        line = text.count("\n", 0, m.start(1) if m.re.groups else m.start()) + 1
        return [] if value == n else ["claim does not hold: claims %d; %s line %d says %s"
                                      % (n, c["file"], line, found)]
    header, rows = claim_table(c, results)
    failures = []
    for method, run in method_runs(c, header, rows):
        where = under(method)
        what = words_of(c["filters"]) or "(no selector)"
        if c["col"]:
            if len(run) != 1:
                raise ValueError("dangling claim: %d rows of %s have %s%s; count=N with col= reads exactly one"
                                 % (len(run), c["file"], what, where))
            line, row = run[0]
            if value_of(c, line, row) != n:
                failures.append("%s line %d has %s=%s%s" % (c["file"], line, c["col"], row[c["col"]], where))
        else:
            found = len({tuple(row[k] for k in c["by"]) for _, row in run}) if c["by"] else len(run)
            if found != n:
                failures.append("%s has %d%s" % (c["file"], found, where))
    if not failures:
        return []
    counted = "of %s" % c["col"] if c["col"] else \
        "%s of %s with %s" % ("distinct " + ",".join(c["by"]) if c["by"] else "rows", c["file"],
                              words_of(c["filters"]) or "(no selector)")
    return ["claim does not hold: claims %d %s%s; %s" % (n, counted, claimed_method(c), "; ".join(failures))]


def check_claim(claim, results):
    """[message] of one claim: empty when it holds; raises ValueError when it is malformed or dangling."""
    c = claim.parse()
    problems = []
    for n in claim.stated_counts():
        if not says_count(claim.prose, n):
            problems.append("the claim states %d but the words before it on its line do not say it (write %d%s "
                            "before <!-- claim: %s -->)" % (n, n, " or %s" % NUMBER_WORDS[n]
                                                             if n < len(NUMBER_WORDS) else "", claim.body))
    if c["kind"] == "count":
        return problems + check_count(c, results)
    if c["margin"] and claim.number is not None and float(claim.number.replace(",", "")) != c["margin"][0]:
        problems.append("the prose's %s before the claim is not its margin=%s%s"
                        % (claim.number, c["margin"][2], "%" if c["margin"][1] else ""))
    header, rows = claim_table(c, results)
    runs = method_runs(c, header, rows)
    return problems + (check_pct(claim, c, runs) if c["kind"] == "pct" else check_compare(c, runs))


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
    for claim in page.claims:
        try:
            problems.extend((claim.line, message) for message in check_claim(claim, results))
        except ValueError as e:
            problems.append((claim.line, str(e)))
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
    """TEXT with every tie, claim and untied note removed; a line that held only a note becomes empty (line numbers
    stay, so Doxygen's warnings still point at the source)."""
    out = []
    for line in text.splitlines(keepends=True):
        if UNTIED_ALONE_RE.match(line):
            out.append("\n" if line.endswith("\n") else "")
            continue
        out.append(UNTIED_RE.sub("", CLAIM_RE.sub("", TIE_RE.sub("", line))))
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
        if not pathlib.Path(args.strip).is_file():
            print(f"docs_numbers: --strip: no such file {args.strip}", file=sys.stderr)
            return 2
        sys.stdout.write(strip_ties(pathlib.Path(args.strip).read_text(encoding="utf-8")))
        return 0
    root = pathlib.Path(args.root) if args.root else ROOT
    results = Results(pathlib.Path(args.results) if args.results else root / "docs" / "results", root)
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
    total_problems = total_ties = total_claims = total_changes = 0
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
        total_claims += len(page.claims)
        total_changes += len(changes)
    rewritten = ", %d numbers rewritten" % total_changes if args.write else ""
    print("docs_numbers: %d files, %d ties, %d claims%s, %d problems"
          % (len(pages), total_ties, total_claims, rewritten, total_problems))
    return 1 if total_problems else 0


if __name__ == "__main__":
    sys.exit(main())
