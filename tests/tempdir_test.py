"""The Python tests' base class: a test case with a fresh temporary folder, self.dir (a pathlib.Path), removed after
each test. Python standard library only."""
import pathlib
import tempfile
import unittest


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()
