#!/usr/bin/env python3
"""Render a step's from_previous.diff (a unified diff, one or several files) as an HTML fragment.

    python3 tools/diff_to_html.py step2_kloop/from_previous.diff out/step2_kloop.diff.html [title]

The docs target runs this for every step folder that has a from_previous.diff; a step page shows the
result with `\\htmlinclude stepN_xxx.diff.html`. The fragment is one <div class="hg-diff"> holding, per
file, a title line (old path -> new path, lines added and removed) and a <pre> with one line per diff line,
each with its old and new line numbers: added lines green, removed lines red, hunk headers grey.

Readability: when a step moves code into a loop (steps 2 and 6), a plain diff shows the whole moved block
as removed and added again. So inside each hunk the old and new lines are matched again with whitespace
ignored (like `diff -w`, never across hunks): a line whose text only changed in indentation or alignment is
shown once, as it reads now, with a blue gutter; only real changes stay green and red. The diff exactly as
committed follows in a collapsed <details> block. The colors live in docs/custom.css. Text is HTML-escaped.
Accepts `git diff` and `diff -u` output.
"""
import difflib
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


def squash(text):
    """A diff line's text with its marker removed and every run of whitespace made one blank."""
    return " ".join(text[1:].split())


def ignore_whitespace(lines):
    """Re-diffs each hunk of one file with whitespace ignored.

    Returns the lines in the same format, where a removed and an added line that differ only in whitespace
    become one line of kind 'ws' (the new text, both line numbers). Real changes keep kinds 'del' and 'add'.
    """
    out = []
    hunk = []

    def flush():
        old = [(o, t) for k, o, n, t in hunk if k in ("ctx", "del")]
        new = [(n, t) for k, o, n, t in hunk if k in ("ctx", "add")]
        meta = [line for line in hunk if line[0] == "meta"]
        matcher = difflib.SequenceMatcher(None, [squash(t) for _, t in old], [squash(t) for _, t in new],
                                          autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for (o, ot), (n, nt) in zip(old[i1:i2], new[j1:j2]):
                    if ot[1:] == nt[1:]:
                        out.append(("ctx", o, n, " " + nt[1:]))
                    else:
                        out.append(("ws", o, n, " " + nt[1:]))
                continue
            out.extend(("del", o, None, "-" + t[1:]) for o, t in old[i1:i2])
            out.extend(("add", None, n, "+" + t[1:]) for n, t in new[j1:j2])
        out.extend(meta)
        hunk.clear()

    for line in lines:
        if line[0] == "hunk":
            flush()
            out.append(line)
        else:
            hunk.append(line)
    flush()
    return out


def render_lines(lines):
    rows = []
    for kind, o, n, text in lines:
        gutter = "%5s %5s " % ("" if o is None else o, "" if n is None else n)
        rows.append('<span class="hg-diff-line hg-diff-%s"><span class="hg-diff-ln">%s</span>%s</span>'
                    % (kind, gutter, html.escape(text) if text else "&#8203;"))
    # One <span> per line, no newline between them: the spans are display:block in custom.css, so each
    # colored background spans the full width.
    return '<pre class="hg-diff-body">%s</pre>' % "".join(rows)


def stats(lines):
    return (sum(1 for k, *_ in lines if k == "add"), sum(1 for k, *_ in lines if k == "del"),
            sum(1 for k, *_ in lines if k == "ws"))


def file_name(f):
    if f["old"] == f["new"]:
        return html.escape(f["new"])
    return "%s &#8594; %s" % (html.escape(f["old"]), html.escape(f["new"]))


def render(files, title):
    out = ['<div class="hg-diff">']
    if title:
        out.append('<div class="hg-diff-title">%s</div>' % html.escape(title))
    if not files:
        out.append('<div class="hg-diff-file">(no changes)</div>')
    else:
        out.append('<div class="hg-diff-legend"><span class="hg-diff-key hg-diff-add">added</span> '
                   '<span class="hg-diff-key hg-diff-del">removed</span> '
                   '<span class="hg-diff-key hg-diff-ws">only the indentation or alignment changed (shown as it is '
                   'now)</span> <span class="hg-diff-key hg-diff-ctx">unchanged</span>; the two columns are the line '
                   'numbers in the previous step and in this one.</div>')
    for f in files:
        lines = ignore_whitespace(f["lines"])
        added, removed, ws = stats(lines)
        note = ', <span class="hg-diff-stat-ws">%d re-indented</span>' % ws if ws else ""
        out.append('<div class="hg-diff-file">%s <span class="hg-diff-stat"><span class="hg-diff-stat-add">+%d</span> '
                   '<span class="hg-diff-stat-del">&#8722;%d</span>%s</span></div>' % (file_name(f), added, removed, note))
        out.append(render_lines(lines))
    if any(k == "ws" for f in files for k, *_ in ignore_whitespace(f["lines"])):
        out.append('<details class="hg-diff-raw"><summary>The same diff exactly as committed, with the re-indented '
                   'lines as removed and added</summary>')
        for f in files:
            added, removed, _ = stats(f["lines"])
            out.append('<div class="hg-diff-file">%s <span class="hg-diff-stat"><span class="hg-diff-stat-add">+%d'
                       '</span> <span class="hg-diff-stat-del">&#8722;%d</span></span></div>'
                       % (file_name(f), added, removed))
            out.append(render_lines(f["lines"]))
        out.append("</details>")
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
