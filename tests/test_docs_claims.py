#!/usr/bin/env python3
"""CPU test of the claims of tools/docs_numbers.py: the prose's counts, comparisons and quantifiers checked
against the data, under the timing method they name.

    python3 -m unittest tests/test_docs_claims.py         (CTest: docs_numbers/claims)

Every case writes a page into the temporary repository of test_docs_numbers.Fixture, with a small CSV of two
steps at four shapes under two methods (the newer step ahead at every shape under burst, at three of four under
sustained), and runs the tool's command line: a false claim, a claim true under one method only but tied as
method=both, a wrong count, a wrong "N of M" and a wrong relative gap fail with PATH:LINE and what the rows say;
the same claims stated right pass; a comparison without a method fails; malformed and dangling claims fail
naming the problem; claims in code, comments and generated regions are not read; --strip removes them.
Python standard library only.
"""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_docs_numbers import Fixture, PageChecks  # noqa: E402  (found through the path set just above)
import docs_numbers  # noqa: E402  (tools/, on the path since the line above)

CSV = """\
m,n,k,step,method,tflops,pct_cublas
4096,4096,4096,new,burst,700.0,101.0
4096,4096,4096,old,burst,686.1,99.0
8192,8192,8192,new,burst,710.0,102.0
8192,8192,8192,old,burst,700.0,100.5
2304,4608,8192,new,burst,600.0,95.0
2304,4608,8192,old,burst,580.0,90.0
5120,5120,2048,new,burst,560.0,97.0
5120,5120,2048,old,burst,555.0,96.0
4096,4096,4096,new,sustained,690.0,100.0
4096,4096,4096,old,sustained,686.0,99.5
8192,8192,8192,new,sustained,705.0,101.5
8192,8192,8192,old,sustained,698.0,100.0
2304,4608,8192,new,sustained,590.0,94.0
2304,4608,8192,old,sustained,585.0,93.0
5120,5120,2048,new,sustained,550.0,98.1
5120,5120,2048,old,sustained,556.0,99.0
"""
# The claim "new beats old at every shape" over pct_cublas, with its method left to each case.
AHEAD = "<!-- claim: claims.csv col=pct_cublas %s all: step=new > step=old by=m,n,k -->"
DIFF = """\
# ==== Blackwell (sm_100a): a/hgemm_sm100.cuh -> b/hgemm_sm100.cuh ====
# 237 lines changed (192 added, 45 removed), 145 of them code (not blank, not only a // comment).
# ==== Hopper (sm_90a): a/hgemm_sm90.cuh -> b/hgemm_sm90.cuh ====
# 218 lines changed (170 added, 48 removed), 114 of them code (not blank, not only a // comment).
"""
BLACKWELL_LINES = r"step_b/from_previous.diff re='sm_100a.*\n# (\d+) lines changed'"


class DocsClaimsTest(PageChecks, unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fx = Fixture(pathlib.Path(self.tmp.name) / "repo")  # a file beside it is outside the repository
        (self.fx.results / "claims.csv").write_text(CSV)
        (self.fx.root / "step_b").mkdir()
        (self.fx.root / "step_b" / "from_previous.diff").write_text(DIFF)

    def tearDown(self):
        self.tmp.cleanup()

    def assertPasses(self, text, claims):
        self.assertChecksOut(text, "1 files, 0 ties, %d claims, 0 problems" % claims)

    # --- Comparisons and the timing method ------------------------------------------------------------------
    def test_planted_false_claim_fails_naming_the_claim_and_the_rows(self):
        out = self.assertFails(
            "Intro.\n\nold is ahead of new at every shape under burst"
            "<!-- claim: claims.csv col=pct_cublas method=burst all: step=old > step=new by=m,n,k -->.\n",
            "page.md:3: claim does not hold: claims step=old > step=new (pct_cublas) at all (m,n,k) under burst",
            "under burst it holds at 0 of 4, not at 4096x4096x4096 (99.0 vs 101.0), 8192x8192x8192 (100.5 vs 102.0)")
        self.assertIn("1 problems", out)

    def test_true_under_one_method_but_tied_as_both_fails(self):
        out = self.assertFails("new beats old at every shape under both methods%s\n" % (AHEAD % "method=both"),
                               "page.md:1: claim does not hold: claims step=new > step=old (pct_cublas) at all "
                               "(m,n,k) under both methods; under sustained it holds at 3 of 4, not at "
                               "5120x5120x2048 (98.1 vs 99.0)")
        self.assertNotIn("under burst it holds", out)

    def test_the_same_claim_with_its_method_passes(self):
        self.assertPasses("new beats old at every shape under burst%s\n" % (AHEAD % "method=burst"), 1)
        self.assertFails("new beats old at every shape under sustained%s\n" % (AHEAD % "method=sustained"),
                         "under sustained it holds at 3 of 4")

    def test_comparison_without_a_method_fails(self):
        self.assertFails("new beats old at every shape%s\n" % (AHEAD % ""),
                         "page.md:1: claim without a method: claims.csv has a method column (burst, sustained)",
                         "method=both")

    def test_comparison_with_a_constant_and_filters(self):
        self.assertPasses("new is at 94% or more of cuBLAS<!-- untied: a threshold --> everywhere"
                          "<!-- claim: claims.csv col=pct_cublas method=both all: step=new >= 94 by=m,n,k -->\n", 1)
        self.assertFails("at 8192 new trails old<!-- claim: claims.csv m=8192 col=tflops method=burst all: "
                         "step=new < step=old -->\n",
                         "claims step=new < step=old (tflops, m=8192) at all under burst; under burst it holds "
                         "at 0 of 1, not at the pair (710.0 vs 700.0)")

    def test_margin_and_level(self):
        # Under sustained new - old is 0.5%, 1.5%, 1.08% and 0.91% of old.
        level = "<!-- claim: claims.csv col=pct_cublas method=sustained %s: step=new ~ step=old by=m,n,k margin=%s -->"
        self.assertPasses("at two of the four shapes they are level, within 1.0%%%s\n" % (level % ("2/4", "1.0%")), 1)
        self.assertFails("at two of the four shapes they are level, within 1.5%%%s\n" % (level % ("2/4", "1.5%")),
                         "margin 1.5%) at exactly 2 of 4 (m,n,k) under sustained; under sustained it holds at 4 of 4")
        # The number before the claim is its margin: tied when they agree, a problem when they do not.
        self.assertFails("at two of the four shapes they are level, within 2.0%%%s\n" % (level % ("2/4", "1.0%")),
                         "the prose's 2.0 before the claim is not its margin=1.0%")
        # A step's number right before the claim names a step: it is neither the margin nor a figure.
        self.assertPasses("at two of the four shapes new is level with step 5%s\n" % (level % ("2/4", "1.0%")), 1)
        # Without a margin the number before a comparison is not the claim's: a figure needs its own tie.
        self.assertFails("new is ahead, by 2.0%%%s\n" % (AHEAD % "method=burst"), "untied measured figure '2.0%'")
        # Under burst new - old is 2.02%, 1.49%, 5.56% and 1.04% of old.
        ahead = "<!-- claim: claims.csv col=pct_cublas method=burst %s: step=new > step=old by=m,n,k margin=1.5%% -->"
        self.assertPasses("at two of the four shapes new is ahead by more than 1.5%%%s\n" % (ahead % "2/4"), 1)
        self.assertFails("at every shape new is ahead by more than 1.5%%%s\n" % (ahead % "all"),
                         "it holds at 2 of 4, not at 8192x8192x8192 (102.0 vs 100.5), 5120x5120x2048 (97.0 vs 96.0)")

    # --- Quantifiers ----------------------------------------------------------------------------------------
    def test_n_of_m_right_and_wrong(self):
        claim = "<!-- claim: claims.csv col=pct_cublas method=sustained %s: step=new > step=old by=m,n,k -->"
        self.assertPasses("new is ahead at three of four shapes%s\n" % (claim % "3/4"), 1)
        self.assertPasses("new is ahead at 3 of the 4 shapes%s\n" % (claim % "3/4"), 1)
        self.assertPasses("new is ahead at two or more shapes%s\n" % (claim % "2+"), 1)
        self.assertFails("new is ahead at two of four shapes%s\n" % (claim % "2/4"),
                         "at exactly 2 of 4 (m,n,k) under sustained; under sustained it holds at 3 of 4, but at "
                         "4096x4096x4096 (100.0 vs 99.5), 8192x8192x8192 (101.5 vs 100.0), 2304x4608x8192")
        self.assertFails("new is ahead at three of five shapes%s\n" % (claim % "3/5"),
                         "under sustained there are 4 pairs, not 5")
        self.assertFails("new is ahead at four or more shapes%s\n" % (claim % "4+"), "it holds at 3 of 4, not at")
        self.assertFails("new is ahead at no shape%s\n" % (claim % "none"), "it holds at 3 of 4, but at")

    def test_counts_a_claim_states_must_be_in_the_prose(self):
        claim = "<!-- claim: claims.csv col=pct_cublas method=sustained 3/4: step=new > step=old by=m,n,k -->"
        self.assertFails("new is ahead at most shapes%s\n" % claim,
                         "page.md:1: the claim states 3 but the words before it on its line do not say it "
                         "(write 3 or three", "states 4 but")
        # Only the words after the comment before it count.
        self.assertFails("three of four<!-- untied: a note --> new is ahead%s\n" % claim, "states 3 but")

    # --- Counts ---------------------------------------------------------------------------------------------
    def test_count_of_rows_right_and_wrong(self):
        self.assertPasses("four shapes<!-- claim: claims.csv by=m,n,k count=4 -->, 16 rows"
                          "<!-- claim: claims.csv count=16 -->, eight under burst"
                          "<!-- claim: claims.csv method=burst count=8 -->, two of each per method"
                          "<!-- claim: claims.csv m=4096 method=both count=2 -->\n", 4)
        self.assertFails("five shapes<!-- claim: claims.csv step=new by=m,n,k count=5 -->\n",
                         "page.md:1: claim does not hold: claims 5 distinct m,n,k of claims.csv with step=new; "
                         "claims.csv has 4")
        self.assertFails("four shapes<!-- claim: claims.csv by=m,n,k count=5 -->\n",
                         "the claim states 5 but the words before it", "claims.csv has 4")

    def test_count_from_a_row_value(self):
        self.assertPasses("it reached 710 TFLOP/s<!-- untied: shown as a count -->, 710"
                          "<!-- claim: claims.csv m=8192 step=new method=burst col=tflops count=710 -->\n", 1)
        self.assertFails("700<!-- claim: claims.csv m=8192 step=new method=burst col=tflops count=700 -->\n",
                         "claims 700 of tflops under burst; claims.csv line 4 has tflops=710.0 under burst")
        self.assertFails("700<!-- claim: claims.csv step=new method=burst col=tflops count=700 -->\n",
                         "dangling claim: 4 rows of claims.csv have step=new under burst; count=N with col= reads "
                         "exactly one")

    def test_count_read_from_a_file(self):
        self.assertPasses("237 lines changed<!-- claim: %s count=237 -->\n" % BLACKWELL_LINES, 1)
        self.assertFails("238 lines changed<!-- claim: %s count=238 -->\n" % BLACKWELL_LINES,
                         "page.md:1: claim does not hold: claims 238; step_b/from_previous.diff line 2 says 237")
        self.assertFails("2 lines<!-- claim: step_b/from_previous.diff re='# (\\d+) lines changed' count=2 -->\n",
                         "matches 2 times in step_b/from_previous.diff; exactly once must")
        pathlib.Path(self.tmp.name, "outside.diff").write_text(DIFF)
        self.assertFails("237 lines<!-- claim: ../outside.diff re='sm_100a.*\\n# (\\d+)' count=237 -->\n",
                         "dangling claim: no file ../outside.diff under")
        self.assertFails("1 line<!-- claim: step_b/from_previous.diff re='(' count=1 -->\n", "malformed claim (re=:")

    # --- Relative gaps --------------------------------------------------------------------------------------
    def test_pct_gap(self):
        gap = "<!-- claim: claims.csv col=tflops method=burst m=4096 pct: step=new %s step=old -->"
        self.assertPasses("at 4096 new is 2.0%%%s ahead\n" % (gap % ">"), 1)  # 700.0 / 686.1 = 1.0203
        self.assertPasses("at 4096 new is 2%%%s ahead\n" % (gap % ">"), 1)
        self.assertFails("at 4096 new is 3.0%%%s ahead\n" % (gap % ">"),
                         "claims step=new is 3.0% above step=old (tflops, m=4096) under burst; under burst 700.0 "
                         "vs 686.1 is 2.0% (2.03%)")
        self.assertFails("at 4096 new is 2.0%%%s behind\n" % (gap % "<"), "under burst 700.0 vs 686.1 is not below")
        self.assertFails("at 4096 new is 2.0%%%s ahead\n" % gap.replace("burst", "both").replace("%s", ">"),
                         "under sustained 690.0 vs 686.0 is 0.6% (0.58%)")

    # --- Malformed and dangling claims ----------------------------------------------------------------------
    def test_malformed_claims_name_the_problem(self):
        cases = [
            ("claims.csv col=pct_cublas method=burst all step=new > step=old", "no count=N and no single QUANTIFIER"),
            ("claims.csv col=pct_cublas method=burst most: step=new > step=old", "'most:' is no quantifier"),
            ("claims.csv col=pct_cublas method=burst all: step=new step=old", "no single comparison"),
            ("claims.csv col=pct_cublas method=burst all: step=new > step=old > step=x", "no single comparison"),
            ("claims.csv method=burst all: step=new > step=old", "no col=COLUMN"),
            ("claims.csv col=pct_cublas method=burst all: step=new ~ step=old", "~ needs margin="),
            ("claims.csv col=pct_cublas method=burst all: step=new > step=old margin=lots", "margin=lots is not"),
            ("claims.csv col=pct_cublas method=burst all: new > step=old", "'new' is not key=value"),
            ("claims.csv col=pct_cublas method=burst all: > step=old", "a side with no key=value"),
            ("claims.csv col=tflops method=burst pct: step=new > step=old", "pct: with no number right before it"),
            ("claims.csv col=tflops method=burst pct: step=new ~ step=old margin=1", "pct: takes one pair"),
            ("claims.csv count=four", "count=four is not a whole number"),
            ("claims.csv count=4 all: step=new", "count=N with a quantifier"),
            ("claims.csv col=tflops by=m count=4", "reads one row's col= or counts rows by= keys"),
            ("claims.csv count=4 margin=1", "margin= belongs to a comparison"),
            ("claims.csv re=x", "re= reads a count: it needs count=N"),
            ("x.diff re=x step=new count=4", "re= reads a file: no selector"),
            ("step=new count=4", "no file first"),
            ("claims.csv 'count=4", "malformed claim (No closing quotation)"),
        ]
        for body, message in cases:
            with self.subTest(body=body):
                self.assertFails("four shapes here<!-- claim: %s -->\n" % body,
                                 "page.md:1: malformed claim (", message)

    def test_dangling_claims(self):
        self.assertFails("four<!-- claim: nope.csv count=4 -->\n", "page.md:1: dangling claim: no file", "nope.csv")
        self.assertFails("four<!-- claim: claims.csv shape=1 count=4 -->\n",
                         "dangling claim: claims.csv has no column 'shape'")
        self.assertFails(AHEAD % "method=cold" + "\n", "dangling claim: no row of claims.csv has method=cold "
                                                       "(methods: burst, sustained)")
        self.assertFails(AHEAD.replace("step=old", "step=older") % "method=burst" + "\n",
                         "dangling claim: no row of claims.csv has step=older under burst")
        self.assertFails(AHEAD.replace(" by=m,n,k", "") % "method=burst" + "\n",
                         "dangling claim: 4 rows of claims.csv (lines 2, 4, 6, 8) have step=new under burst; each side "
                         "needs one row per pair")
        self.fx.results.joinpath("lone.csv").write_text(CSV + "1024,1024,1024,new,burst,1.0,1.0\n")
        self.assertFails((AHEAD % "method=burst").replace("claims.csv", "lone.csv") + "\n",
                         "dangling claim: lone.csv has no step=old row at 1024x1024x1024 under burst")
        self.fx.results.joinpath("plain.csv").write_text("step,tflops\nnew,1.0\nold,2.0\n")
        self.assertFails("<!-- claim: plain.csv col=tflops method=burst all: step=new < step=old -->\n",
                         "dangling claim: plain.csv has no method column; drop method=burst")
        self.assertPasses("<!-- claim: plain.csv col=tflops all: step=new < step=old -->\n", 1)

    # --- What is not read, and --strip ----------------------------------------------------------------------
    def test_claims_in_code_comments_and_regions_are_not_read(self):
        false = "<!-- claim: claims.csv col=pct_cublas all: step=old > step=new by=m,n,k -->"
        self.assertPasses("\n".join([
            "Run `old beats new%s` in a code span." % false,
            "```",
            "old beats new%s" % false,
            "```",
            "\\code",
            "old beats new%s" % false,
            "\\endcode",
            "<!-- results:begin -->",
            "old beats new%s" % false,
            "<!-- results:end -->",
            "<!-- a comment over",
            "two lines: old beats new%s" % false,
            ""]), 0)

    def test_strip_removes_claims(self):
        path = self.fx.page("new beats old%s, at 689.2 TFLOP/s<!-- tie: x.csv col=y -->\n" % (AHEAD % "method=burst"))
        out = self.fx.run("--strip", str(path))[1]
        self.assertEqual(out, "new beats old, at 689.2 TFLOP/s\n")

    def test_summary_counts_claims(self):
        self.assertPasses("a%s\nb%s\n" % (AHEAD % "method=burst", AHEAD % "method=burst"), 2)


if __name__ == "__main__":
    unittest.main()
