#!/usr/bin/env python3
"""CPU test of tools/ncu_table.py, which turns Nsight Compute's raw CSV into the committed profile table.

    python3 -m unittest tests/test_ncu_table.py        (CTest: ncu/table)

Synthetic raw exports in a temporary directory: the metrics of each launch land in their columns, our kernel keeps
its template arguments and cuBLAS's name is cut at its first '(', a quantity in another unit of its kind (ms, Gbyte,
sectors) is converted, a gzipped export is read, ncu --csv's one row per launch and metric is read as the raw
page (--set clock: the clock and the cycles it implies), and a missing metric, a unit of another kind, a file without
ncu's header and an argument without its label are refused (exit 2) in one line.
Python standard library only.
"""
import contextlib
import csv
import gzip
import io
import pathlib
import sys
import unittest

from tempdir_test import TempDirTest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ncu_table  # noqa: E402  (found through the path set just above)

UNITS = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "Mbyte", "launch__grid_size": "",
         "sm__cycles_active.avg": "cycle", "lts__t_sector_hit_rate.pct": "%",
         "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": "%",
         "sm__pipe_tensor_cycles_active.min.pct_of_peak_sustained_elapsed": "%",
         "dram__bytes_write.sum": "Mbyte", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum": "Mbyte",
         "lts__t_sectors_srcunit_tex_op_read.sum": "sector",
         "l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum": "sector",
         "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "inst"}


def raw(path, kernels, units=None, drop=None):
    """A raw export: ncu's ID columns, the metrics, a unit row, one row per (name, value) in kernels."""
    units = dict(UNITS, **(units or {}))
    metrics = [m for m in units if m != drop]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ID", "Kernel Name"] + metrics)
        w.writerow(["", ""] + [units[m] for m in metrics])
        for i, (name, value) in enumerate(kernels):
            w.writerow([i, name] + ["1,234.5" if m == "sm__cycles_active.avg" else str(value) for m in metrics])


def run(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = ncu_table.main(args)
    return rc, err.getvalue()


class NcuTable(TempDirTest):
    def test_each_launch_a_row(self):
        raw(self.dir / "a.csv", [("nvjet_sm90_hsh_64x128_TNN (8, 14, 1)x(384, 1, 1)", 8.5),
                                 ("void step11::hgemm_kernel<128, 4, 0, 1>(CUtensorMap_st, int)", 17.25)])
        rc, err = run(["s11=" + str(self.dir / "a.csv"), "--out", str(self.dir / "t.csv")])
        self.assertEqual(rc, 0, err)
        with open(self.dir / "t.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["kernel"] for r in rows],
                         ["nvjet_sm90_hsh_64x128_TNN", "step11::hgemm_kernel<128, 4, 0, 1>"])
        self.assertEqual((rows[1]["profile"], rows[1]["launch"], rows[1]["duration_us"], rows[1]["grid"]),
                         ("s11", "2", "17.25", "17"))
        self.assertEqual(rows[0]["sm_active_cycles"], "1234")  # ncu's thousands separators read
        self.assertEqual(rows[1]["l2_read_mb"], "0.00")  # 17.25 sectors of 32 bytes: 552 bytes

    def test_gzipped_export_read(self):
        raw(self.dir / "a.csv", [("void step11::hgemm_kernel<64, 128, 4, 0, 1>(CUtensorMap_st, int)", 3.5)])
        with open(self.dir / "a.csv", "rb") as f, gzip.open(self.dir / "a.csv.gz", "wb") as g:
            g.write(f.read())
        (self.dir / "bad.csv.gz").write_text("not gzip")
        rc, err = run(["z=" + str(self.dir / "a.csv.gz"), "--out", str(self.dir / "t.csv")])
        self.assertEqual(rc, 0, err)
        with open(self.dir / "t.csv", newline="") as f:
            self.assertEqual(next(csv.DictReader(f))["duration_us"], "3.50")
        rc, err = run(["z=" + str(self.dir / "bad.csv.gz"), "--out", str(self.dir / "t.csv")])
        self.assertEqual((rc, "not a raw CSV export" in err), (2, True), err)

    def test_units_converted(self):
        raw(self.dir / "a.csv", [("k", 2.5)], units={"gpu__time_duration.sum": "ms", "dram__bytes_read.sum": "Gbyte",
                                                     "lts__t_sectors_srcunit_tex_op_read.sum": "sector"})
        rc, err = run(["x=" + str(self.dir / "a.csv"), "--out", str(self.dir / "t.csv")])
        self.assertEqual(rc, 0, err)
        with open(self.dir / "t.csv", newline="") as f:
            row = next(csv.DictReader(f))
        self.assertEqual((row["duration_us"], row["dram_read_mb"], row["dram_write_mb"]),
                         ("2500.00", "2500.00", "2.50"))
        raw(self.dir / "s.csv", [("k", 1e6)], units={"lts__t_sectors_srcunit_tex_op_read.sum": "sector"})
        rc, err = run(["x=" + str(self.dir / "s.csv"), "--out", str(self.dir / "t.csv")])
        with open(self.dir / "t.csv", newline="") as f:
            self.assertEqual(next(csv.DictReader(f))["l2_read_mb"], "32.00")  # a million sectors of 32 bytes

    def test_metric_rows_and_clock_set(self):
        path = self.dir / "m.csv"
        metrics = [("launch__grid_size", "", "132"), ("gpu__time_duration.sum", "ns", "727,520"),
                   ("sm__cycles_elapsed.avg.per_second", "hz", "1,444,598,544.83"),
                   ("sm__inst_executed.sum", "inst", "113,952,596"),
                   ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "94.67"),
                   ("lts__t_sector_hit_rate.pct", "%", "69.08"), ("dram__bytes_read.sum", "byte", "1,148,460,544"),
                   ("dram__bytes_write.sum", "Mbyte", "140.85")]
        with open(path, "w", newline="") as f:
            f.write("step10 PASS median_ms=0.89\n==PROF== Connected to process 1\n")
            w = csv.writer(f)
            w.writerow(["ID", "Process ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"])
            for launch in (0, 1):
                for name, unit, value in metrics:
                    w.writerow([launch, 7, "void hgemm_kernel<4, 0, 1>(CUtensorMap_st, int)", "metrics", name, unit,
                                value if launch == 0 else "1"])
        rc, err = run(["--set", "clock", "s10=" + str(path), "--out", str(self.dir / "t.csv")])
        self.assertEqual(rc, 0, err)
        with open(self.dir / "t.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2)
        self.assertEqual((rows[0]["kernel"], rows[0]["grid"], rows[0]["duration_us"], rows[0]["sm_clock_mhz"],
                          rows[0]["cycles_k"], rows[0]["inst_m"], rows[0]["dram_read_mb"], rows[0]["dram_write_mb"]),
                         ("hgemm_kernel<4, 0, 1>", "132", "727.52", "1444.60", "1051.0", "113.95", "1148.46", "140.85"))
        # the full set wants metrics a clock profile lacks, and says which
        rc, err = run(["s10=" + str(path), "--out", str(self.dir / "t.csv")])
        self.assertEqual((rc, "no metric sm__cycles_active.avg" in err), (2, True), err)

    def test_bad_input_is_refused(self):
        raw(self.dir / "m.csv", [("k", 1)], drop="dram__bytes_read.sum")
        raw(self.dir / "u.csv", [("k", 1)], units={"gpu__time_duration.sum": "cycle"})
        (self.dir / "n.csv").write_text("a,b\n1,2\n")
        out = str(self.dir / "t.csv")
        for args, said in [(["x=" + str(self.dir / "m.csv")], "no metric dram__bytes_read.sum"),
                           (["x=" + str(self.dir / "u.csv")], "is in 'cycle', expected one of ns, us"),
                           (["x=" + str(self.dir / "n.csv")], "no 'Kernel Name' header"),
                           ([str(self.dir / "m.csv")], "give LABEL=RAW.csv")]:
            rc, err = run(args + ["--out", out])
            self.assertEqual((rc, said in err), (2, True), err)


if __name__ == "__main__":
    unittest.main()
