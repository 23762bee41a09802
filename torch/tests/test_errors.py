"""Bad input raises a Python exception naming the rule it breaks, before any GPU work: never a crash or a wrong
answer. Most run on fake CUDA tensors where there is no GPU (conftest.cuda_tensors): hgemm::mm's fake implementation
checks the same rules, and the library's host-only check gives the step's refusals in the verify binary's words."""
import pytest
import torch

import hgemm

LAST = hgemm.DEFAULT_STEP


def half(*shape, device="cuda"):
    return torch.zeros(*shape, dtype=torch.float16, device=device)


def tiled_step():
    """A step with the rule kTiled and a ring (steps.json)."""
    return next(n for n, s in hgemm.STEPS.items() if s["rule"] == "kTiled" and s["depths"])


def test_wrong_dtype(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(TypeError, match="a must be torch.float16 .*got torch.float32"):
            hgemm.mm(torch.zeros(128, 64, device="cuda"), half(128, 64))
        with pytest.raises(TypeError, match="b must be torch.float16 .*got torch.bfloat16"):
            hgemm.mm(half(128, 64), torch.zeros(128, 64, dtype=torch.bfloat16, device="cuda"))


def test_cpu_tensor():
    with pytest.raises(ValueError, match="a is on cpu: the kernels run on a CUDA GPU"):
        hgemm.mm(half(128, 64, device="cpu"), half(128, 64, device="cpu"))


def test_not_a_tensor(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(TypeError, match="b must be a torch.Tensor, got list"):
            hgemm.mm(half(128, 64), [[1.0]])


def test_not_contiguous(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(ValueError, match=r"b must be contiguous \(row-major, strides \(K, 1\)\), got strides "
                                             r"\(1, 128\): pass b.contiguous\(\)"):
            hgemm.mm(half(128, 64), half(64, 128).t())


def test_not_2d(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(ValueError, match=r"a must be 2-D \(M x K\), got shape \(2, 128, 64\)"):
            hgemm.mm(half(2, 128, 64), half(128, 64))


def test_k_mismatch(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(ValueError, match=r"their K differ, a \(128, 64\) and b \(128, 72\)"):
            hgemm.mm(half(128, 64), half(128, 72))


def test_different_devices():
    """Tensors on two GPUs need two GPUs (even fake ones: torch touches each device); hgemm.mm's check is called
    with the two devices here."""
    from hgemm.ops import check_same_device
    with pytest.raises(ValueError, match="a is on cuda:0 and b on cuda:1: both must be on one GPU"):
        check_same_device(torch.device("cuda:0"), torch.device("cuda:1"))
    check_same_device(torch.device("cuda:0"), torch.device("cuda:0"))  # one GPU: no error


def test_shape_rule(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(hgemm.RequestError, match=r"M must be a multiple of 128 \(BLK_M\), got M=200"):
            hgemm.mm(half(200, 64), half(128, 64), step=tiled_step())
        with pytest.raises(hgemm.RequestError, match="K must be a multiple of 8 and at least 8"):
            hgemm.mm(half(100, 12), half(128, 12), step=LAST)
        with pytest.raises(hgemm.RequestError, match="computes exactly one 128 x 128 x 64 tile, got"):
            hgemm.mm(half(256, 64), half(128, 64), step=1)


def test_pipe_depth_not_offered(cuda_tensors):
    step = tiled_step()
    depths = hgemm.STEPS[step]["depths"]
    offered = ", ".join(str(d) for d in sorted(depths))
    with cuda_tensors():
        with pytest.raises(hgemm.RequestError, match=f"--pipe-depth must be one of {offered} for {step}, got "
                                                     f"{max(depths) + 1}"):
            hgemm.mm(half(128, 64), half(128, 64), step=step, pipe_depth=max(depths) + 1)
        ringless = next(n for n, s in hgemm.STEPS.items() if not s["depths"])
        with pytest.raises(hgemm.RequestError, match="has no shared-memory ring"):
            hgemm.mm(half(128, 64), half(128, 64), step=ringless, pipe_depth=2)


def test_tile_without_menu(cuda_tensors):
    with cuda_tensors():
        with pytest.raises(hgemm.RequestError, match="has one tile size: --tile is for the steps that offer a menu"):
            hgemm.mm(half(128, 64), half(128, 64), step=tiled_step(), tile="128")
        with pytest.raises(hgemm.RequestError, match="--tile expects auto, MxN or N"):
            hgemm.mm(half(128, 64), half(128, 64), tile="wide")


def test_unknown_step():
    with pytest.raises(ValueError, match="no step 'step99'; the steps are step1_single_tile"):
        hgemm.mm(half(128, 64, device="cpu"), half(128, 64, device="cpu"), step="step99")
    with pytest.raises(ValueError, match="no step 0"):
        hgemm.resolve_step(0)


def test_step_names():
    last = hgemm.STEP_NAMES[-1]
    number = last.split("_")[0]
    assert hgemm.resolve_step(None) == last
    assert hgemm.resolve_step(number) == hgemm.resolve_step(int(number[4:])) == hgemm.resolve_step(last) == last


def test_misaligned(gpu):
    """TMA needs 16-byte aligned addresses: a view that starts 2 bytes into its storage is refused by the library,
    before any launch."""
    store = torch.zeros(128 * 64 + 8, dtype=torch.float16, device="cuda")
    a = store[1:1 + 128 * 64].view(128, 64)
    assert a.is_contiguous() and a.data_ptr() % 16 == 2
    with pytest.raises(hgemm.RequestError, match="A starts at 0x[0-9a-f]+, not on a 16-byte boundary"):
        hgemm.mm(a, half(128, 64), step=LAST)


def test_linear_refuses_too(gpu):
    """hgemm.Linear passes its input through the same checks: an fp32 input is refused, not cast."""
    layer = hgemm.Linear(64, 128, device="cuda")
    with pytest.raises(TypeError, match="a must be torch.float16"):
        layer(torch.zeros(4, 64, device="cuda"))
