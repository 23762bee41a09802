#!/usr/bin/env python3
"""CPU test of tools/registry.py's checks of an entry's values: its rule must be one of hg::ShapeRule's
enumerators (read from common/harness/cli.hpp) and its knobs among registry.KNOBS.

    python3 tests/test_registry_values.py        (CTest: registry/values)

Python standard library only.
"""
import pathlib
import sys
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import registry  # noqa: E402  (found through the path set just above)


def problems_with(**changes):
    """registry.check()'s problems naming the first step, with `changes` planted in its entry."""
    entries = registry.entries()
    entries[0] = {**entries[0], **changes}
    with mock.patch.object(registry, "entries", return_value=entries):
        return [p for p in registry.check() if p.startswith(entries[0]["name"] + ":")]


class RegistryValues(unittest.TestCase):
    def test_rules_are_the_enumerators_of_shape_rule(self):
        self.assertEqual(registry.shape_rules(), ["kSingleTile", "kSingleOutputTile", "kTiled", "kAny"])

    def test_every_rule_and_knob_is_accepted(self):
        for rule in registry.shape_rules():
            self.assertEqual(problems_with(rule=rule, knobs=list(registry.KNOBS)), [], rule)

    def test_an_unknown_rule_is_named(self):
        found = problems_with(rule="kRagged")
        self.assertEqual(len(found), 1, found)
        self.assertIn("rule kRagged is not a shape rule (hg::ShapeRule: kSingleTile, kSingleOutputTile, kTiled, "
                      "kAny)", found[0])

    def test_an_unknown_knob_is_named(self):
        found = problems_with(knobs=["tile", "split"])
        self.assertEqual(len(found), 1, found)
        self.assertIn("unknown knobs split (the knobs: stream_k, tile)", found[0])


if __name__ == "__main__":
    unittest.main()
