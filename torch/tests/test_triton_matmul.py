"""The benchmark's Triton contender (hgemm/triton_matmul.py) against the fp32 reference, as the steps are checked."""
import pytest

from conftest import check_result, inputs

triton_matmul = pytest.importorskip("hgemm.triton_matmul")


@pytest.mark.parametrize("mode", ["int", "random"])
@pytest.mark.parametrize("shape", [(128, 256, 64), (1024, 768, 512), (300, 264, 72), (2304, 4608, 1024)])
def test_triton_matmul(gpu, shape, mode):
    m, n, k = shape
    a, b = inputs(m, n, k, mode, seed=m + n)
    check_result(triton_matmul.matmul(a, b), a, b, mode, f"triton {m}x{n}x{k} {mode}")
