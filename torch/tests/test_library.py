"""The library's registry and host functions, which need no GPU: the steps as steps.json lists them, the tolerance
the tests use is the verify binary's, the default benchmark shapes, a sweep file read as hgemm_bench reads it."""
import json
import math
import pathlib

import pytest
import torch

import hgemm
from conftest import tolerance

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_registry_is_steps_json():
    registry = json.loads((REPO / "steps.json").read_text())["steps"]
    assert list(hgemm.STEP_NAMES) == [s["name"] for s in registry]
    for entry in registry:
        step = hgemm.STEPS[entry["name"]]
        assert step["rule"] == entry["rule"] and step["depths"] == entry["depths"]
        assert step["natural_shape"] == entry["shape"] and step["ladder"] == entry["ladder"]
        assert step["tile_knob"] == ("tile" in entry["knobs"]) and step["stream_k"] == ("stream_k" in entry["knobs"])
        assert bool(step["menus"]) == step["tile_knob"]


def test_tolerance_is_the_verify_binarys():
    lib = hgemm._lib.LIB
    for ref, mag, k in [(0.0, 0.0, 8), (1.5, 30.0, 64), (-300.0, 2000.0, 4096), (1e4, 1e5, 16384)]:
        want = lib.hg_torch_tolerance(ref, mag, k)
        got = tolerance(torch.tensor(ref, dtype=torch.float64), torch.tensor(mag, dtype=torch.float64), k).item()
        assert math.isclose(got, want, rel_tol=1e-12), (ref, mag, k, got, want)


def test_bench_shapes():
    shapes = hgemm.REGISTRY["bench_shapes"]
    assert len(shapes) >= 2 and all(len(s) == 3 and min(s) > 0 for s in shapes)


def test_sweep_file():
    rows = hgemm._lib.sweep_shapes(REPO / "tools" / "sweep_shapes.csv")
    assert rows and {"m", "n", "k", "model", "layer"} <= set(rows[0])
    with pytest.raises(ValueError, match="cannot read"):
        hgemm._lib.sweep_shapes(REPO / "no_such_file.csv")


def test_missing_library_says_how_to_build(tmp_path, monkeypatch):
    monkeypatch.setenv("HGEMM_TORCH_LIB", str(tmp_path / "libnone.so"))
    with pytest.raises(ImportError, match="cmake --preset default && cmake --build build --target hgemm_torch_ops"):
        hgemm._lib._load()


def test_fake_shape_and_trace():
    """torch.compile sees hgemm::mm as one op of the right shape and dtype (fake tensors: no GPU needed)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    with FakeTensorMode(allow_non_fake_inputs=True):
        layer = hgemm.Linear(256, 384, step=hgemm.DEFAULT_STEP, device="cuda")
        y = torch.compile(layer, backend=backend, fullgraph=True)(
            torch.empty(3, 7, 256, dtype=torch.float16, device="cuda"))
    assert y.shape == (3, 7, 384) and y.dtype == torch.float16
    ops = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert torch.ops.hgemm.mm.default in ops
