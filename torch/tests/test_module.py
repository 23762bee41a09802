"""hgemm.Linear in a transformer's MLP block (Linear -> GELU -> Linear, random weights), against the same block of
nn.Linear, eagerly and under torch.compile(fullgraph=True), where hgemm::mm is one opaque op."""
import pytest
import torch
from torch import nn

import hgemm
from conftest import admitted, check_result

HIDDEN, FFN, TOKENS = 1024, 4096, 256  # tokens: 4 sequences of 64; a multiple of 128 for the tiled steps


def mlp_steps():
    """The steps whose rules admit both GEMMs of the block."""
    return [step for step in hgemm.STEP_NAMES
            if len(admitted(step, [(TOKENS, FFN, HIDDEN), (TOKENS, HIDDEN, FFN)])) == 2]


def blocks(step):
    torch.manual_seed(0)
    ref = nn.Sequential(nn.Linear(HIDDEN, FFN), nn.GELU(), nn.Linear(FFN, HIDDEN)).cuda().half()
    mine = nn.Sequential(hgemm.Linear.from_linear(ref[0], step=step), nn.GELU(),
                         hgemm.Linear.from_linear(ref[2], step=step))
    x = torch.randn(4, TOKENS // 4, HIDDEN, device="cuda").half()
    with torch.no_grad():
        exact = nn.Sequential(nn.Linear(HIDDEN, FFN), nn.GELU(), nn.Linear(FFN, HIDDEN)).cuda().double()
        exact.load_state_dict(ref.state_dict())
        want = exact(x.double())
    return ref, mine, x, want


def relative_error(y, want):
    return ((y.double() - want).norm() / want.norm()).item()


def check_block(y, ref_y, want, what):
    """y is as close to the fp64 block as PyTorch's fp16 block is, up to the fp16 roundings hgemm adds (the bias is
    added after D is rounded, where cuBLAS adds it before): at most twice PyTorch's relative error plus 2^-11 (half an
    fp16 ulp). A missing or wrong tile errs by far more."""
    assert y.dtype == torch.float16 and y.shape == want.shape, f"{what}: {y.dtype} {tuple(y.shape)}"
    mine, theirs = relative_error(y, want), relative_error(ref_y, want)
    assert mine <= 2 * theirs + 2.0 ** -11, f"{what}: relative error {mine:.3g}, nn.Linear's {theirs:.3g}"


def test_some_steps_take_the_block():
    assert len(mlp_steps()) >= 2, mlp_steps()


@pytest.mark.parametrize("step", mlp_steps())
def test_mlp_block(gpu, step):
    ref, mine, x, want = blocks(step)
    with torch.no_grad():
        check_block(mine(x), ref(x), want, f"{step} eager")


@pytest.mark.parametrize("step", [hgemm.DEFAULT_STEP])
def test_mlp_block_compiled(gpu, step):
    ref, mine, x, want = blocks(step)
    torch._dynamo.reset()
    compiled = torch.compile(mine, fullgraph=True)
    with torch.no_grad():
        check_block(compiled(x), ref(x), want, f"{step} torch.compile")


def test_from_linear_keeps_parameters(gpu):
    ref = nn.Linear(64, 128).cuda()
    layer = hgemm.Linear.from_linear(ref, step=hgemm.DEFAULT_STEP)
    assert layer.weight.dtype == torch.float16 and layer.weight.shape == (128, 64)
    assert torch.equal(layer.weight, ref.weight.half()) and torch.equal(layer.bias, ref.bias.half())
    assert set(layer.state_dict()) == set(ref.state_dict())
    nobias = hgemm.Linear.from_linear(nn.Linear(64, 128, bias=False).cuda())
    assert nobias.bias is None


def test_gradients(gpu):
    """Gradients through hgemm.mm (torch.matmul's): dA = dD B and dB = dD^T A, each within the verify binary's
    tolerance of its fp32 reference."""
    a = torch.randn(256, 128, device="cuda").half().requires_grad_()
    b = torch.randn(192, 128, device="cuda").half().requires_grad_()
    grad = torch.randn(256, 192, device="cuda").half()
    hgemm.mm(a, b).backward(grad)
    for got, left, right, what in [(a.grad, grad, b.detach().t(), "dA"), (b.grad, grad.t(), a.detach().t(), "dB")]:
        check_result(got, left.contiguous(), right.contiguous(), "random", what)
