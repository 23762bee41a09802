"""A persistent Triton GEMM, D = A * B^T, the third contender of tools/torch_bench.py (with the steps and
torch.matmul).

One program per SM (or per tile, when there are fewer tiles). Program p takes the output tiles p, p + P, p + 2P, ...
in a grouped order: the tiles are walked in bands of GROUP_M tile rows, down each column of a band before the next
column, so that the programs running at once share rows of A and columns of B in L2 (the order step 6 walks;
docs/concept_tile_order.md). Operands are loaded and D stored through TMA tensor descriptors (sm_90 and later),
which also zero-fill the loads and clip the stores at ragged edges; each K tile is one tl.dot into an fp32
accumulator, which is rounded to fp16 once, at the store.
"""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# One configuration for the H200 and B200: a 128 x 256 tile, 64 of K per step (one 128-byte row of fp16, as the
# steps load), two warpgroups, three stages in flight. Shared memory: 3 x (128 + 256) x 64 x 2 bytes of operands
# plus the 128 x 256 fp16 tile the store stages, 208 KiB of the 227 KiB a program may have.
BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 256, 64, 8
NUM_WARPS, NUM_STAGES = 8, 3


@triton.jit
def _persistent_gemm(a_desc, b_desc, d_desc, M, N, K, programs, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    rows_of_tiles = tl.cdiv(M, BLOCK_M)
    cols_of_tiles = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    band_tiles = GROUP_M * cols_of_tiles  # the tiles of one band of GROUP_M tile rows
    for tile in tl.range(tl.program_id(0), rows_of_tiles * cols_of_tiles, programs):
        band = tile // band_tiles
        band_row0 = band * GROUP_M
        band_rows = tl.minimum(rows_of_tiles - band_row0, GROUP_M)  # the last band may be shorter
        in_band = tile % band_tiles
        row0 = (band_row0 + in_band % band_rows) * BLOCK_M
        col0 = (in_band // band_rows) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(k_tiles):
            a = a_desc.load([row0, kt * BLOCK_K])  # BLOCK_M x BLOCK_K of A
            b = b_desc.load([col0, kt * BLOCK_K])  # BLOCK_N x BLOCK_K of B: D's columns are B's rows
            acc = tl.dot(a, b.T, acc)
        d_desc.store([row0, col0], acc.to(tl.float16))


def matmul(a, b):
    """a @ b.T for fp16 a (M x K) and b (N x K), contiguous on one CUDA GPU of compute capability 9.0 or later;
    returns M x N fp16. K and N must be multiples of 8 (TMA: rows of 16 bytes)."""
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise TypeError(f"triton_matmul: a and b must be torch.float16, got {a.dtype} and {b.dtype}")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"triton_matmul: a is M x K and b N x K, got {tuple(a.shape)} and {tuple(b.shape)}")
    if not (a.is_cuda and b.is_cuda and a.device == b.device and a.is_contiguous() and b.is_contiguous()):
        raise ValueError("triton_matmul: a and b must be contiguous on one CUDA GPU")
    m, k = a.shape
    n = b.shape[0]
    if k % 8 or n % 8:
        raise ValueError(f"triton_matmul: K and N must be multiples of 8 (TMA rows of 16 bytes), got K={k} N={n}")
    d = torch.empty((m, n), dtype=torch.float16, device=a.device)
    tiles = triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N)
    programs = min(tiles, torch.cuda.get_device_properties(a.device).multi_processor_count)
    with torch.cuda.device(a.device):
        _persistent_gemm[(programs,)](
            TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K]), TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K]),
            TensorDescriptor.from_tensor(d, [BLOCK_M, BLOCK_N]), m, n, k, programs, BLOCK_M=BLOCK_M,
            BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return d
