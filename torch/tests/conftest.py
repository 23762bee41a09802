"""What the Python tests share: the package on the path, the GPU they need, inputs as the verify binary makes them,
and its check of a result against an fp32 reference (common/harness/verify.cpp).

A test that needs a GPU takes the fixture `gpu`: without a Hopper or Blackwell GPU it skips, unless
HGEMM_REQUIRE_GPU=1 (run_tests.py sets it once it has found one), where a skip would hide a test that did not run.
Tests of what is refused before any GPU work take `cuda_tensors`, which makes real CUDA tensors on such a GPU and
fake ones (torch._subclasses.FakeTensorMode) elsewhere: hgemm::mm's fake implementation applies the same checks,
with the same words.
"""
import contextlib
import math
import os
import pathlib
import sys

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # torch/: the package hgemm
import hgemm  # noqa: E402

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


def inputs(m, n, k, mode, seed=1, device="cuda"):
    """A (M x K) and B (N x K) in fp16, as the verify binary's --init: "int" integers in [-2, 2] (every product and
    partial sum exact in fp32, so the result is checked bit for bit), "random" samples of a standard normal."""
    g = torch.Generator(device=device).manual_seed(seed)
    if mode == "int":
        a, b = (torch.randint(-2, 3, (r, k), generator=g, device=device) for r in (m, n))
    else:
        a, b = (torch.randn(r, k, generator=g, device=device) for r in (m, n))
    return a.half(), b.half()


def tolerance(ref, mag, k):
    """The verify binary's allowed |D - ref| per element of random inputs (common/harness/verify.cpp, tolerance():
    a full fp16 ulp of ref, 2^-14 near zero, and 16 sqrt(K) 2^-24 of sum |a*b| for two fp32 accumulation orders).
    test_library.py checks it against the library's hg_torch_tolerance."""
    return ref.abs() * 2.0 ** -10 + 2.0 ** -14 + 16.0 * math.sqrt(k) * 2.0 ** -24 * mag


def reference(a, b):
    """The fp32 reference of a @ b.T and sum |a*b| per element, as common/harness/reference.cu (no TF32)."""
    a32, b32 = a.float(), b.float()
    with _ieee_fp32():
        return a32 @ b32.T, a32.abs() @ b32.abs().T


@contextlib.contextmanager
def _ieee_fp32():
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def check_result(d, a, b, mode, what):
    """Fails unless d is a @ b.T as the verify binary accepts it: the fp16 rounding of the fp32 reference bit for bit
    for "int" inputs (+0 and -0 alike), within tolerance() for "random" ones (the rounded reference always passes)."""
    assert d.dtype == torch.float16 and tuple(d.shape) == (a.shape[0], b.shape[0]), f"{what}: {d.dtype} {d.shape}"
    ref, mag = reference(a, b)
    rounded = ref.half().float()
    got = d.float()
    if mode == "int":
        ok = got == rounded
    else:
        ok = (got == rounded) | ((got - ref).abs() <= tolerance(ref, mag, a.shape[1]))  # NaN fails both
    bad = (~ok).nonzero()
    if bad.numel():
        i, j = bad[0].tolist()
        pytest.fail(f"{what}: {bad.shape[0]} of {ok.numel()} outputs wrong, first at ({i}, {j}): got "
                    f"{got[i, j].item():.6g}, want {ref[i, j].item():.6g}")


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
