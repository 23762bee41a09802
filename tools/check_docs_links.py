#!/usr/bin/env python3
"""Check that the generated HTML site has no broken local links.

    python3 tools/check_docs_links.py <build>/docs/html

For every .html file: each local href / src / data target (links, images, SVG objects, scripts,
stylesheets) must exist, and a #fragment pointing into an HTML page must name an id or anchor of that
page; no code fragment may be empty (Doxygen renders a \\dontinclude whose \\skip or \\until pattern
matches nothing as an empty box, without a warning). Every .svg of the site must be well-formed XML (a
truncated figure renders as nothing). External links (http:, https:, mailto:, ...) are not fetched. Exit code 0 when all resolve, 1 otherwise (each
problem printed), 2 on bad usage. The docs target runs this after Doxygen.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

LINK_ATTRS = {"href", "src", "data"}
# A code box with no line in it: <div class="fragment"> followed only by blanks and its closing tag.
EMPTY_FRAGMENT_RE = re.compile(r'<div class="fragment">\s*</div>')
# Markdown that Doxygen did not parse shows up as escaped tags or its own section commands (a broken \ref quote,
# an unclosed comment): the rest of such a page renders as plain text.
# Bold that Doxygen did not close (next to <sup> or a quote) shows as literal ** at the start of an item or cell.
UNPARSED_RE = re.compile(r"^(?:- |\d+\. )?&lt;strong&gt;|@(?:sub)*section [a-z0-9_]+ |<(?:li|p|td)>\*\*", re.M)


class PageScan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []  # (tag, attribute, value, line)
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.anchors.add(value)
            elif name in LINK_ATTRS:
                self.links.append((tag, name, value, self.getpos()[0]))

    handle_startendtag = handle_starttag


def scan(path, cache):
    if path not in cache:
        parser = PageScan()
        with open(path, encoding="utf-8", errors="replace") as f:
            parser.feed(f.read())
        parser.close()
        cache[path] = parser
    return cache[path]


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write("usage: check_docs_links.py <html-dir>\n")
        return 2
    root = os.path.abspath(argv[1])
    cache = {}
    problems = []
    pages = svgs = links = 0
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if name.endswith(".svg"):
                svgs += 1
                try:
                    ET.parse(path)
                except ET.ParseError as e:
                    problems.append("%s: not a well-formed SVG (%s)" % (rel, e))
                continue
            if not name.endswith(".html"):
                continue
            pages += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                html = f.read()
                for m in UNPARSED_RE.finditer(html):
                    problems.append("%s: Markdown Doxygen did not parse (a \\ref whose quoted text spans lines? bold "
                                    "next to <sup>?) at line %d: %r" % (rel, html.count("\n", 0, m.start()) + 1,
                                                                         m.group(0)))
                    break
                for m in EMPTY_FRAGMENT_RE.finditer(html):
                    problems.append("%s: an empty code fragment (a \\skip, \\until or \\snippet that matched "
                                    "nothing?) at character %d" % (rel, m.start()))
            for tag, attr, value, line in scan(path, cache).links:
                parts = urlsplit(value)
                if parts.scheme or parts.netloc or value.startswith(("javascript:", "data:")):
                    continue  # external or inline: not checked
                links += 1
                target = path if not parts.path else os.path.normpath(
                    os.path.join(dirpath, unquote(parts.path)))
                where = "%s:%d <%s %s=\"%s\">" % (rel, line, tag, attr, value)
                if not os.path.exists(target):
                    problems.append("%s: missing %s" % (where, os.path.relpath(target, root)))
                    continue
                if not target.startswith(root + os.sep):
                    problems.append("%s: points outside the site" % where)
                    continue
                fragment = unquote(parts.fragment)
                if fragment and target.endswith(".html") and fragment not in scan(target, cache).anchors:
                    problems.append("%s: no anchor '%s' in %s" % (where, fragment, os.path.relpath(target, root)))
    for p in problems:
        print("broken: " + p)
    print("check_docs_links: %d pages, %d local links, %d SVG files, %d problems"
          % (pages, links, svgs, len(problems)))
    return 1 if problems or pages == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
