"""Every step through hgemm.mm against the fp32 reference, as the verify binary checks it (conftest.check_result): at
every shape of a list that its rule admits, at each of its ring depths, with integer inputs (bit for bit) and random
ones (within the verify binary's tolerance); the last step at ragged shapes and with each tile of its menu forced."""
import pytest
import torch

import hgemm
from conftest import admitted, check_result, inputs

# Candidate shapes (M, N, K); each step takes those its rule admits, and its natural shape (steps.json). Among them:
# one tile of one K tile, several K tiles, more tiles than one CTA per SM with an odd count of K tiles
# (1920 x 1536 x 192), one tile with a long K (split by the stream-K steps), and ragged ones for the last rule.
CANDIDATES = [(128, 128, 64), (128, 128, 256), (256, 384, 192), (384, 256, 1024), (1920, 1536, 192),
              (256, 256, 8192), (1, 8, 8), (129, 264, 72), (300, 136, 520)]


def shapes_of(step):
    return admitted(step, CANDIDATES + [tuple(hgemm.STEPS[step]["natural_shape"])])


def variants():
    """(step, depth): every step at each of its ring depths (0: a step without a ring)."""
    for name, s in hgemm.STEPS.items():
        for depth in s["depths"] or [0]:
            yield pytest.param(name, depth, id=f"{name}-depth{depth}")


@pytest.mark.parametrize("mode", ["int", "random"])
@pytest.mark.parametrize("step,depth", list(variants()))
def test_step_matches_reference(gpu, step, depth, mode):
    shapes = shapes_of(step)
    assert shapes, f"no candidate shape is admitted by {step}"
    for m, n, k in shapes:
        a, b = inputs(m, n, k, mode, seed=m + n + k)
        d = hgemm.mm(a, b, step=step, pipe_depth=depth or None)
        check_result(d, a, b, mode, f"{step} depth {depth} {m}x{n}x{k} {mode}")


def test_every_step_has_a_shape():
    """Each step takes at least one candidate (no step is left untested by the test above)."""
    for step in hgemm.STEP_NAMES:
        assert shapes_of(step), step


def last_step_menu(arch):
    menu = hgemm.STEPS[hgemm.DEFAULT_STEP]["menus"].get(arch, [])
    return [tuple(int(v) for v in t.split("x")) for t in menu]


def test_last_step_has_a_menu():
    """The ragged and forced-tile tests below assume the last step's menu (steps.json: knob "tile")."""
    s = hgemm.STEPS[hgemm.DEFAULT_STEP]
    assert s["tile_knob"] and s["menus"]["sm90"] and s["menus"]["sm100"], s


def ragged_shapes(arch):
    """One row; M one more than the largest tile's rows; N one more than its columns (D then stored by the threads,
    not TMA); K = 8; a prime M; one column; an odd N that spans several tiles."""
    tile_m, tile_n = last_step_menu(arch)[0]
    return [(1, 256, 128), (tile_m + 1, 256, 192), (256, tile_n + 1, 128), (384, 264, 8), (251, 392, 200),
            (1021, 1, 136), (300, 1001, 64)]


@pytest.mark.parametrize("mode", ["int", "random"])
def test_last_step_ragged(gpu, mode):
    for m, n, k in ragged_shapes(gpu):
        a, b = inputs(m, n, k, mode, seed=m * 7 + n + k)
        check_result(hgemm.mm(a, b), a, b, mode, f"{hgemm.DEFAULT_STEP} {m}x{n}x{k} {mode}")


SM90_STAGES = {(256, 256): 4, (256, 224): 4, (256, 192): 4, (256, 128): 4, (128, 256): 4, (128, 128): 8}


@pytest.mark.parametrize("form", ["width", "MxN"])
def test_last_step_forced_tiles(gpu, form):
    """Each tile of the menu, asked for by its width ("192") or in full ("256x192"), runs that tile (the step says so)
    and gives the right result, at a shape ragged in M and N. A width alone names the first tile of the menu that
    wide (Hopper's short tiles share their widths with taller ones). On Hopper the step also names the tile's ring."""
    m, n, k = 700, 520, 264
    a, b = inputs(m, n, k, "int")
    menu = last_step_menu(gpu)
    for tile_m, tile_n in menu:
        tile = str(tile_n) if form == "width" else f"{tile_m}x{tile_n}"
        expect = next(t for t in menu if t[1] == tile_n) if form == "width" else (tile_m, tile_n)
        d = hgemm.mm(a, b, tile=tile)
        want = f"tile={expect[0]}x{expect[1]} tile_choice=forced"
        if gpu == "sm90":  # a short tile's ring holds the bytes of the largest tile's 4 stages (kRingDepth)
            want += f" stages={SM90_STAGES[expect]}"
        assert hgemm.last_chosen() == want
        check_result(d, a, b, "int", f"{hgemm.DEFAULT_STEP} tile {tile}")
    hgemm.mm(a, b)
    assert "tile_choice=auto" in hgemm.last_chosen(), hgemm.last_chosen()


def test_tile_off_the_menu(gpu):
    a, b = inputs(256, 256, 64, "int")
    with pytest.raises(hgemm.RequestError, match="is not on the .* kernel's menu: give one of"):
        hgemm.mm(a, b, tile="100")


def test_current_stream(gpu):
    """The kernel runs on torch's current stream, after what was enqueued there: A is overwritten on a side stream
    behind a long sleep, and the product must see the new A."""
    a, b = inputs(512, 512, 512, "int")
    new_a, _ = inputs(512, 512, 512, "int", seed=99)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # ~50 ms of GPU clock cycles before the copy
        a.copy_(new_a)
        d = hgemm.mm(a, b, step=11)
    side.synchronize()
    check_result(d, new_a, b, "int", "after a copy on the same stream")


def stream_k_steps():
    return [name for name, s in hgemm.STEPS.items() if s["stream_k"]]


@pytest.mark.parametrize("step", stream_k_steps())
def test_stream_k_refuses_graph_capture(gpu, step):
    """One tile with a long K is split among the pairs, and a split launch cannot be captured: its message reaches
    Python (relaxed capture, so that preparing the launch may allocate its workspace)."""
    a, b = inputs(256, 256, 8192, "int")
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="cannot be captured into a CUDA graph"):
        with torch.cuda.graph(graph, capture_error_mode="relaxed"):
            hgemm.mm(a, b, step=step)


def test_graph_replay(gpu):
    """A launch that does not split is captured into a CUDA graph like any op, and each replay recomputes D from
    the inputs' current values."""
    a, b = inputs(512, 384, 256, "int")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="relaxed"):
        d = hgemm.mm(a, b, step="step9")
    for seed in (3, 4):
        new_a, new_b = inputs(512, 384, 256, "int", seed=seed)
        a.copy_(new_a)
        b.copy_(new_b)
        graph.replay()
        torch.cuda.synchronize()
        check_result(d, new_a, new_b, "int", f"graph replay {seed}")


def test_cache_is_bounded(gpu):
    """Prepared launchers are kept per problem, 64 at most: 70 different problems build 70 and keep 64. The same
    problem twice builds one (the second call's D reuses the first's freed block: PyTorch's caching allocator)."""
    lib = hgemm._lib.LIB
    lib.hg_torch_cache_clear()
    a, b = inputs(70, 64, 64, "int")
    before = lib.hg_torch_prepared_count()
    for m in range(1, 71):
        hgemm.mm(a[:m], b)
    assert lib.hg_torch_prepared_count() - before == 70
    assert lib.hg_torch_cache_size() == 64
    c, _ = inputs(128, 64, 64, "int", seed=5)
    before = lib.hg_torch_prepared_count()
    hgemm.mm(c, b)
    check_result(hgemm.mm(c, b), c, b, "int", "a kept launcher")
    assert lib.hg_torch_prepared_count() - before == 1
