"""What the Python tests share: the package on the path, the GPU they need, and the verify binary's check of a result
(hgemm/verify.py).

A test that needs a GPU takes the fixture `gpu`: without a Hopper or Blackwell GPU it skips, unless
HGEMM_REQUIRE_GPU=1 (run_tests.py sets it once it has found one), where a skip would hide a test that did not run.
Tests of what is refused before any GPU work take `cuda_tensors`, which makes real CUDA tensors on such a GPU and
fake ones (torch._subclasses.FakeTensorMode) elsewhere: hgemm::mm's fake implementation applies the same checks,
with the same words.
"""
import contextlib
import os
import pathlib
import sys

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # torch/: the package hgemm
import hgemm  # noqa: E402
from hgemm.verify import compare, inputs, tolerance  # noqa: E402,F401  (the tests import them from here)

ARCHS = {(9, 0): "sm90", (10, 0): "sm100"}  # the compute capabilities the kernels run on (find_device's)


def gpu_arch():
    """"sm90" or "sm100" for GPU 0, or None when there is no GPU the kernels run on."""
    if not torch.cuda.is_available():
        return None
    return ARCHS.get(torch.cuda.get_device_capability(0))


@pytest.fixture
def gpu():
    """The kernel GPU 0 runs ("sm90" or "sm100"); skips (or fails, under HGEMM_REQUIRE_GPU=1) without one."""
    arch = gpu_arch()
    if arch is None:
        reason = "no Hopper (9.0) or Blackwell (10.0) GPU visible"
        if os.environ.get("HGEMM_REQUIRE_GPU") == "1":
            pytest.fail(reason + ", but HGEMM_REQUIRE_GPU=1")
        pytest.skip(reason)
    return arch


@pytest.fixture
def cuda_tensors():
    """A context in which torch.empty(..., device="cuda") makes tensors: real ones on a kernel GPU, fake ones
    elsewhere."""
    if gpu_arch() is not None:
        return contextlib.nullcontext
    from torch._subclasses.fake_tensor import FakeTensorMode
    return lambda: FakeTensorMode(allow_non_fake_inputs=True)


def check_result(d, a, b, mode, what):
    """Fails unless d is a @ b.T as the verify binary accepts it (hgemm.verify.compare)."""
    wrong = compare(d, a, b, mode)
    if wrong:
        pytest.fail(f"{what}: {wrong}")


def admitted(step, shapes, pipe_depth=0, tile="auto"):
    """The shapes among `shapes` that `step`'s rule admits (the library's check_shape)."""
    out = []
    for m, n, k in shapes:
        try:
            hgemm._lib.check(step, m, n, k, tile, pipe_depth)
            out.append((m, n, k))
        except hgemm.RequestError:
            pass
    return out
