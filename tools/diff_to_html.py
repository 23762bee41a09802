#!/usr/bin/env python3
"""Render a step's from_previous.diff (a unified diff, one or several files) as an HTML fragment.

    python3 tools/diff_to_html.py step2_kloop/from_previous.diff out/step2_kloop.diff.html [title]

The docs target runs this for every step folder that has a from_previous.diff; a step page shows the
result with `\\htmlinclude stepN_xxx.diff.html`. The diff is rendered exactly as committed: every line of
it, in order, nothing re-matched, so the docs and the file agree. Only the first view is shorter: a run of
added or removed lines that are all comments (or blank) is folded under a one-line summary with its count,
and opens on a click, so that the code of the lesson shows first.

tools/make_diffs.py writes one section per architecture, each opened by lines starting with '# ' (a title
such as "==== Blackwell (sm_100a): old -> new ====", then counts of the changes). Such a run of '# ' lines
outside a hunk becomes a section title (<div class="hg-diff-section">) followed by its notes. Then, per
file: a title line (old path -> new path, lines added and removed) and a <pre> with one line per diff line,
each with its old and new line numbers: added lines green, removed lines red, hunk headers grey, context
lines plain (make_diffs.py writes a line that only changed in indentation as context, as it reads in the
new file). The colors live in docs/custom.css. Text is HTML-escaped. Also accepts `git diff` and `diff -u`
output, which have no '# ' sections.
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
    """Splits a diff into blocks, in order: ('section', [header texts]) and ('file', file).

    A file is {'old', 'new', 'lines': [(kind, old_no, new_no, text)]}. Inside a hunk the line counts of its
    @@ header decide what is content, so a removed line that itself starts with '-- ' is never mistaken for
    the next file's '--- ' header, nor a '# ' line inside a hunk for a section header.
    """
    blocks = []
    current = None
    old_no = new_no = 0
    old_left = new_left = 0  # lines of the current hunk not read yet
    pending_old = None
    for raw in text.splitlines():
        if old_left > 0 or new_left > 0:
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
        elif raw.startswith("# "):
            # Consecutive '# ' lines form one section header; a file in between starts a new one.
            if blocks and blocks[-1][0] == "section":
                blocks[-1][1].append(raw[2:])
            else:
                blocks.append(("section", [raw[2:]]))
            current = None
        elif raw.startswith("--- "):
            pending_old = clean_path(raw)
        elif raw.startswith("+++ ") and pending_old is not None:
            current = {"old": pending_old, "new": clean_path(raw), "lines": []}
            blocks.append(("file", current))
            pending_old = None
        elif raw.startswith("\\") and current is not None:
            current["lines"].append(("meta", None, None, raw))
        # anything else between hunks (blank lines, git's "diff --git", "index", mode lines) only separates
    return blocks


def is_comment_change(kind, text):
    """An added or removed line that holds only a // comment, or nothing."""
    body = text[1:].strip() if text else ""
    return kind in ("add", "del") and (body == "" or body.startswith("//"))


def comment_runs(lines):
    """The lines split into runs: (True, run) for consecutive comment-only changes that contain at least one
    comment line, (False, run) for everything else, in order."""
    runs = []
    for line in lines:
        folded = is_comment_change(line[0], line[3])
        if runs and runs[-1][0] == folded:
            runs[-1][1].append(line)
        else:
            runs.append((folded, [line]))
    # A run of blank changes alone is not worth a fold.
    return [(f and any(t[1:].strip() for _, _, _, t in run), run) for f, run in runs]


def render_line(kind, o, n, text):
    gutter = "%5s %5s " % ("" if o is None else o, "" if n is None else n)
    return ('<span class="hg-diff-line hg-diff-%s"><span class="hg-diff-ln">%s</span>%s</span>'
            % (kind, gutter, html.escape(text) if text else "&#8203;"))


def render_lines(lines):
    """The file's lines: one <span> per line, no newline between them (the spans are display:block in
    custom.css, so each colored background spans the full width); comment-only runs in a <details>."""
    out, rows = [], []
    for folded, run in comment_runs(lines):
        if not folded:
            rows += [render_line(*line) for line in run]
            continue
        if rows:
            out.append('<pre class="hg-diff-body">%s</pre>' % "".join(rows))
            rows = []
        out.append('<details class="hg-diff-fold"><summary>%d comment line%s changed</summary>'
                   '<pre class="hg-diff-body">%s</pre></details>'
                   % (len(run), "" if len(run) == 1 else "s", "".join(render_line(*line) for line in run)))
    if rows:
        out.append('<pre class="hg-diff-body">%s</pre>' % "".join(rows))
    return "".join(out)


def file_name(f):
    if f["old"] == f["new"]:
        return html.escape(f["new"])
    return "%s &#8594; %s" % (html.escape(f["old"]), html.escape(f["new"]))


def render_section(texts):
    """A section header: its first line (without the '====' rulers) as the title, the others as notes."""
    title = texts[0].strip().strip("=").strip()
    out = ['<div class="hg-diff-section">%s</div>' % html.escape(title)]
    out += ['<div class="hg-diff-section-note">%s</div>' % html.escape(t.strip()) for t in texts[1:]]
    return out


def render(blocks, title):
    out = ['<div class="hg-diff">']
    if title:
        out.append('<div class="hg-diff-title">%s</div>' % html.escape(title))
    if not any(kind == "file" for kind, _ in blocks):
        out.append('<div class="hg-diff-file">(no changes)</div>')
    else:
        out.append('<div class="hg-diff-legend"><span class="hg-diff-key hg-diff-add">added</span> '
                   '<span class="hg-diff-key hg-diff-del">removed</span> '
                   '<span class="hg-diff-key hg-diff-ctx">unchanged, or only re-indented (shown as it is now)</span>; '
                   'the two columns are the line numbers in the previous step and in this one; changes to comments '
                   'alone are folded (click to open).</div>')
    for kind, block in blocks:
        if kind == "section":
            out += render_section(block)
            continue
        added = sum(1 for k, *_ in block["lines"] if k == "add")
        removed = sum(1 for k, *_ in block["lines"] if k == "del")
        out.append('<div class="hg-diff-file">%s <span class="hg-diff-stat"><span class="hg-diff-stat-add">+%d</span> '
                   '<span class="hg-diff-stat-del">&#8722;%d</span></span></div>' % (file_name(block), added, removed))
        out.append(render_lines(block["lines"]))
    out.append("</div>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: diff_to_html.py <from_previous.diff> <out.html> [title]\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    blocks = parse(text)
    if text.strip() and not blocks:
        sys.stderr.write("diff_to_html.py: %s does not look like a unified diff\n" % argv[1])
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(render(blocks, argv[3] if len(argv) == 4 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
