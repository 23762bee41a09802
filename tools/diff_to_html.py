#!/usr/bin/env python3
"""Render a step's from_previous.diff (a unified diff, one or several files) as an HTML fragment.

    python3 tools/diff_to_html.py step2_kloop/from_previous.diff out/step2_kloop.diff.html

The docs target runs this for every step folder that has a from_previous.diff; a step page shows the
result with `\\htmlinclude stepN_xxx.diff.html`. The fragment is one <div class="hg-diff"> holding, per
file, a title line (old path -> new path, lines added and removed) and a <pre> with one line per diff line:
added lines green, removed lines red, hunk headers grey, each with its old and new line numbers. The
colors live in docs/custom.css. Text is HTML-escaped. Accepts `git diff` and `diff -u` output.
"""
import html
import re
import sys

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def clean_path(header_line):
    """'--- a/step1/x.cuh<TAB>date' -> 'step1/x.cuh' (no 'a/', 'b/' prefix, no timestamp)."""
    path = header_line[4:].split("\t", 1)[0].strip()
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path


def parse(text):
    """Splits a unified diff into files: [{'old', 'new', 'lines': [(kind, old_no, new_no, text)]}].

    Inside a hunk the line counts of its @@ header decide what is content, so a removed line that itself
    starts with '-- ' is never mistaken for the next file's '--- ' header.
    """
    files = []
    current = None
    old_no = new_no = 0
    old_left = new_left = 0  # lines of the current hunk not read yet
    pending_old = None
    for raw in text.splitlines():
        in_hunk = old_left > 0 or new_left > 0
        if in_hunk:
            if raw.startswith("+"):
                current["lines"].append(("add", None, new_no, raw))
                new_no += 1
                new_left -= 1
            elif raw.startswith("-"):
                current["lines"].append(("del", old_no, None, raw))
                old_no += 1
                old_left -= 1
            elif raw.startswith("\\"):
                current["lines"].append(("meta", None, None, raw))  # "\ No newline at end of file"
            else:
                line = raw if raw.startswith(" ") else " " + raw  # tolerate stripped trailing blanks
                current["lines"].append(("ctx", old_no, new_no, line))
                old_no += 1
                new_no += 1
                old_left -= 1
                new_left -= 1
            continue
        m = HUNK_RE.match(raw)
        if m and current is not None:
            old_no, new_no = int(m.group(1)), int(m.group(3))
            old_left = 1 if m.group(2) is None else int(m.group(2))
            new_left = 1 if m.group(4) is None else int(m.group(4))
            current["lines"].append(("hunk", None, None, raw))
        elif raw.startswith("--- "):
            pending_old = clean_path(raw)
        elif raw.startswith("+++ ") and pending_old is not None:
            current = {"old": pending_old, "new": clean_path(raw), "lines": []}
            files.append(current)
            pending_old = None
        elif raw.startswith("\\") and current is not None:
            current["lines"].append(("meta", None, None, raw))
        # anything else between hunks (git's "diff --git", "index", mode lines) only introduces a file
    return files


def render(files, title):
    out = ['<div class="hg-diff">']
    if title:
        out.append('<div class="hg-diff-title">%s</div>' % html.escape(title))
    if not files:
        out.append('<div class="hg-diff-file">(no changes)</div>')
    for f in files:
        added = sum(1 for k, *_ in f["lines"] if k == "add")
        removed = sum(1 for k, *_ in f["lines"] if k == "del")
        if f["old"] == f["new"]:
            name = html.escape(f["new"])
        else:
            name = "%s &#8594; %s" % (html.escape(f["old"]), html.escape(f["new"]))
        out.append('<div class="hg-diff-file">%s <span class="hg-diff-stat"><span class="hg-diff-stat-add">+%d</span> '
                   '<span class="hg-diff-stat-del">&#8722;%d</span></span></div>' % (name, added, removed))
        rows = []
        for kind, o, n, text in f["lines"]:
            gutter = "%5s %5s " % ("" if o is None else o, "" if n is None else n)
            rows.append('<span class="hg-diff-line hg-diff-%s"><span class="hg-diff-ln">%s</span>%s</span>'
                        % (kind, gutter, html.escape(text) if text else "&#8203;"))
        # One <span> per line, no newline between them: the spans are display:block in custom.css, so each
        # colored background spans the full width.
        out.append('<pre class="hg-diff-body">%s</pre>' % "".join(rows))
    out.append("</div>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: diff_to_html.py <from_previous.diff> <out.html> [title]\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    files = parse(text)
    if text.strip() and not files:
        sys.stderr.write("diff_to_html.py: %s does not look like a unified diff\n" % argv[1])
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(render(files, argv[3] if len(argv) == 4 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
