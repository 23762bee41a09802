"""hgemm.Linear: nn.Linear whose matrix product is hgemm.mm (y = x W^T + b, W: out x in, fp16)."""
import torch
from torch import nn

from .ops import mm, resolve_step


class Linear(nn.Linear):
    """An nn.Linear in fp16 whose forward runs one step's kernel: x (..., in_features) is flattened to rows, multiplied
    by the weight with hgemm.mm, and the bias added in fp16. step, tile and pipe_depth as for hgemm.mm. The weight and
    bias are nn.Linear's (same initialisation, same state_dict keys); from_linear copies an existing nn.Linear."""

    def __init__(self, in_features, out_features, bias=True, step=None, tile="auto", pipe_depth=None, device=None):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=torch.float16)
        self.step = resolve_step(step)
        self.tile = tile
        self.pipe_depth = pipe_depth

    @classmethod
    def from_linear(cls, linear, step=None, tile="auto", pipe_depth=None):
        """A Linear with `linear`'s weight and bias (converted to fp16), on its device."""
        out = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, step=step, tile=tile,
                  pipe_depth=pipe_depth, device=linear.weight.device)
        with torch.no_grad():
            out.weight.copy_(linear.weight)
            if linear.bias is not None:
                out.bias.copy_(linear.bias)
        return out

    def forward(self, x):
        rows = x.reshape(-1, self.in_features).contiguous()  # a copy only where the rows are not dense
        y = mm(rows, self.weight, step=self.step, tile=self.tile, pipe_depth=self.pipe_depth)
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self):
        return f"{super().extra_repr()}, step={self.step}, tile={self.tile}, pipe_depth={self.pipe_depth}"
