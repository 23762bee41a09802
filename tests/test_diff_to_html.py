#!/usr/bin/env python3
"""CPU test of tools/diff_to_html.py, the renderer of every step's diff on its page.

    python3 tests/test_diff_to_html.py        (CTest: diffs/html)

Checks that a run of comment-only changes is folded under its count and a code change is not, that every line
of the diff is still rendered (folded lines included) in order, and that a fold is never made of blank lines
alone. Python standard library only.
"""
import html
import pathlib
import re
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import diff_to_html  # noqa: E402  (found through the path set just above)

DIFF = """\
# ==== Hopper (sm_90a): a -> b ====
--- a/k.cuh
+++ b/k.cuh
@@ -1,7 +1,8 @@
-// Step 1 of 6
+// Step 1 of 9
+// the series line
 int x = 1;
-int y = 2;  // old
+int y = 3;  // new
 
-
+
 int z = 4;
"""


class DiffToHtml(unittest.TestCase):
    def render(self, text=DIFF):
        return diff_to_html.render(diff_to_html.parse(text), "t")

    def test_comment_run_is_folded_with_its_count(self):
        out = self.render()
        self.assertEqual(re.findall(r"<summary>(\d+) comment lines? changed</summary>", out), ["3"])
        fold = re.search(r"<details.*?</details>", out, re.S).group(0)
        self.assertIn("Step 1 of 6", fold)
        self.assertIn("the series line", fold)

    def test_code_change_stays_in_view(self):
        out = self.render()
        outside = re.sub(r"<details.*?</details>", "", out, flags=re.S)
        self.assertIn("int y = 3;", outside)
        self.assertIn("int y = 2;", outside)

    def test_every_line_rendered_in_order(self):
        out = self.render()
        shown = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in
                 re.findall(r'<span class="hg-diff-line [^"]*">(.*?)</span>(?=<span class="hg-diff-line|</pre>)', out)]
        body = [line for line in DIFF.splitlines()[3:]]
        self.assertEqual([s[12:].replace("\u200b", "") for s in shown], body)

    def test_blank_changes_alone_are_not_folded(self):
        out = self.render()
        folds = re.findall(r"<details.*?</details>", out, re.S)
        self.assertEqual(len(folds), 1)  # the blank-line change near the end stays in view


if __name__ == "__main__":
    unittest.main()
