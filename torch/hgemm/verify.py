"""A result checked as the verify binary checks it (common/harness/verify.cpp), for the tests and the benchmark:
inputs as its --init makes them, the fp32 reference, its tolerance, and one line saying what is wrong."""
import contextlib
import math

import torch


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
    torch/tests/test_library.py checks it against the library's hg_torch_tolerance."""
    return ref.abs() * 2.0 ** -10 + 2.0 ** -14 + 16.0 * math.sqrt(k) * 2.0 ** -24 * mag


@contextlib.contextmanager
def _ieee_fp32():
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def reference(a, b):
    """The fp32 reference of a @ b.T and sum |a*b| per element, as common/harness/reference.cu (no TF32)."""
    a32, b32 = a.float(), b.float()
    with _ieee_fp32():
        return a32 @ b32.T, a32.abs() @ b32.abs().T


def compare(d, a, b, mode):
    """"" when d is a @ b.T as the verify binary accepts it: the fp16 rounding of the fp32 reference bit for bit for
    "int" inputs (+0 and -0 alike), within tolerance() for "random" ones (the rounded reference always passes);
    else one line saying how many outputs are wrong and the first."""
    if d.dtype != torch.float16 or tuple(d.shape) != (a.shape[0], b.shape[0]):
        return f"got {d.dtype} {tuple(d.shape)}, want torch.float16 {(a.shape[0], b.shape[0])}"
    ref, mag = reference(a, b)
    rounded = ref.half().float()
    got = d.float()
    ok = got == rounded
    if mode != "int":
        ok |= (got - ref).abs() <= tolerance(ref, mag, a.shape[1])  # NaN fails both
    bad = (~ok).nonzero()
    if bad.numel() == 0:
        return ""
    i, j = bad[0].tolist()
    return (f"{bad.shape[0]} of {ok.numel()} outputs wrong, first at ({i}, {j}): got {got[i, j].item():.6g}, want "
            f"{ref[i, j].item():.6g}")
