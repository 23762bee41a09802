"""hgemm.mm: a @ b.T with one step's kernel, as the custom op hgemm::mm (one opaque op for torch.compile).

a: M x K, b: N x K, both fp16, contiguous, on one CUDA GPU of compute capability 9.0 (the sm90 kernel) or 10.0
(sm100); the result is M x N fp16, accumulated in fp32. The kernel runs on a's device and on torch's current stream,
and nothing waits for it but a stream-K workspace's allocation or release (on a new problem). Bad input raises
before any GPU work: TypeError for a non-tensor or a dtype other than fp16, ValueError naming the rule for the rest
(hgemm.RequestError, a ValueError, for what the step itself refuses: its shape rule, ring depths, tile menu, the
16-byte alignment of the data and a GPU of another compute capability, in the verify binary's words).
Gradients, when asked for, come from torch.matmul: the steps are forward kernels.
"""
import threading

import torch

from . import _lib

STEP_NAMES = tuple(_lib.STEPS)
DEFAULT_STEP = STEP_NAMES[-1]  # the last step of the registry (steps.json)

# Every way to name a step: its folder name, "stepN" and N.
_ALIASES = {}
for _name in STEP_NAMES:
    _number = _name.split("_")[0]  # "step11"
    _ALIASES.update({_name: _name, _number: _name, int(_number[len("step"):]): _name})

_last = threading.local()


def resolve_step(step=None):
    """The folder name of a step named as "step11_fitted_tile", "step11" or 11 (None: the last step)."""
    if step is None:
        return DEFAULT_STEP
    name = _ALIASES.get(step) if isinstance(step, (str, int)) and not isinstance(step, bool) else None
    if name is None:
        raise ValueError(f"hgemm: no step {step!r}; the steps are {', '.join(STEP_NAMES)} (or their numbers, e.g. "
                         "11 or 'step11')")
    return name


def last_chosen():
    """What the step chose in this thread's last eager hgemm.mm (step 11 on Hopper: "tile=256x192 tile_choice=auto
    stages=4", the tile, how it was chosen and its ring's stages; other steps: "")."""
    return getattr(_last, "chosen", "")


def check_same_device(a_device, b_device):
    """The operands' rule that needs two GPUs to break: both on one."""
    if a_device != b_device:
        raise ValueError(f"hgemm.mm: a is on {a_device} and b on {b_device}: both must be on one GPU")


def _check_operands(a, b):
    """The rules of the operands that a tensor's metadata shows (so the fake tensors of torch.compile see them)."""
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"hgemm.mm: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype != torch.float16:
            raise TypeError(f"hgemm.mm: {name} must be torch.float16 (the kernels read fp16), got {t.dtype}")
        if t.dim() != 2:
            raise ValueError(f"hgemm.mm: {name} must be 2-D ({'M x K' if name == 'a' else 'N x K'}), got shape "
                             f"{tuple(t.shape)}")
        if t.device.type != "cuda":
            raise ValueError(f"hgemm.mm: {name} is on {t.device}: the kernels run on a CUDA GPU (move it with .cuda())")
        if not t.is_contiguous():
            raise ValueError(f"hgemm.mm: {name} must be contiguous (row-major, strides (K, 1)), got strides "
                             f"{t.stride()}: pass {name}.contiguous()")
    check_same_device(a.device, b.device)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"hgemm.mm: a is M x K and b is N x K (the result is a @ b.T): their K differ, a "
                         f"{tuple(a.shape)} and b {tuple(b.shape)}")


def _concrete(*sizes):
    return all(isinstance(s, int) for s in sizes)


@torch.library.custom_op("hgemm::mm", mutates_args=())
def _mm(a: torch.Tensor, b: torch.Tensor, step: str, tile: str, pipe_depth: int) -> torch.Tensor:
    _check_operands(a, b)
    m, k = a.shape
    n = b.shape[0]
    d = torch.empty((m, n), dtype=torch.float16, device=a.device)
    with torch.cuda.device(a.device):
        stream = torch.cuda.current_stream(a.device).cuda_stream
        _last.chosen = _lib.mm(a.device.index, step, a.data_ptr(), b.data_ptr(), d.data_ptr(), m, n, k, tile,
                               pipe_depth, stream)
    return d


@_mm.register_fake
def _mm_fake(a, b, step, tile, pipe_depth):
    _check_operands(a, b)
    m, k = a.shape
    n = b.shape[0]
    if _concrete(m, n, k):  # a shape the step refuses fails the trace, with the step's reason
        _lib.check(step, m, n, k, tile, pipe_depth)
    return a.new_empty((m, n), dtype=torch.float16)


def _setup_backward(ctx, inputs, output):
    a, b = inputs[0], inputs[1]
    ctx.save_for_backward(a, b)


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = grad @ b if ctx.needs_input_grad[0] else None  # (M x N) (N x K)
    grad_b = grad.t() @ a if ctx.needs_input_grad[1] else None  # (N x M) (M x K)
    return grad_a, grad_b, None, None, None


_mm.register_autograd(_backward, setup_context=_setup_backward)


def mm(a, b, step=None, tile="auto", pipe_depth=None):
    """a @ b.T (a: M x K, b: N x K, fp16 on one CUDA GPU) with `step`'s kernel: "step11_fitted_tile", "step11" or 11
    (default: the last step). tile: "auto", "MxN" or "N" (the menu's tile N wide; the steps with a menu of tiles).
    pipe_depth: one of the step's ring depths (None: its default). Returns M x N fp16."""
    step = resolve_step(step)
    _check_operands(a, b)  # before the dispatcher, which would refuse a non-tensor in its own words
    return _mm(a, b, step, str(tile), 0 if pipe_depth is None else int(pipe_depth))
