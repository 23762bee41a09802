"""hgemm: the steps of this tutorial's fp16 GEMM (D = A * B^T) callable from PyTorch.

    import hgemm                                   # PYTHONPATH=<repository>/torch; the library: $HGEMM_TORCH_LIB or
    d = hgemm.mm(a, b, step=11)                    # <repository>/build/libhgemm_torch_ops.so
    layer = hgemm.Linear.from_linear(nn.Linear(4096, 4096).cuda().half(), step="step9")

mm computes a @ b.T as the custom op hgemm::mm (torch.compile sees one opaque op); Linear is an nn.Linear that uses
it. STEP_NAMES lists the steps from the library's registry (steps.json), STEPS their rules, ring depths and tile menus.
"""
from ._lib import REGISTRY, STEPS, RequestError, library_path
from .linear import Linear
from .ops import DEFAULT_STEP, STEP_NAMES, last_chosen, mm, resolve_step

__all__ = ["mm", "Linear", "RequestError", "STEP_NAMES", "STEPS", "DEFAULT_STEP", "REGISTRY", "resolve_step",
           "last_chosen", "library_path"]
