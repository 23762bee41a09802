"""The shared library hgemm_torch_ops (torch/hgemm_ops.cu) through ctypes: its C functions with their signatures, and
the registry it reports (the steps, their rules, ring depths and tile menus; the benchmark's default shapes), so that
no step name is written here.

Where the library is: the environment variable HGEMM_TORCH_LIB, else <repository>/build/libhgemm_torch_ops.so (the
default build folder of CMakePresets.json). torch is imported first, so that the library shares PyTorch's CUDA runtime.
"""
import ctypes
import json
import os
import pathlib

import torch  # noqa: F401  (loads PyTorch's libcudart before the library asks for one)

REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_LIB = REPO / "build" / "libhgemm_torch_ops.so"
BUILD_COMMAND = "cmake --preset default && cmake --build build --target hgemm_torch_ops"

# What hg_torch_mm returns besides 0 (the verify binary's exit codes for the same outcomes).
BAD_REQUEST, CUDA_ERROR = 2, 3
_ERR_LEN = 2048


def library_path():
    """The library to load: $HGEMM_TORCH_LIB, else the default build folder's."""
    return pathlib.Path(os.environ.get("HGEMM_TORCH_LIB") or DEFAULT_LIB)


def _load():
    path = library_path()
    if not path.is_file():
        raise ImportError(f"hgemm: no library at {path}: build it from {REPO} with `{BUILD_COMMAND}`, or point "
                          "HGEMM_TORCH_LIB at a libhgemm_torch_ops.so")
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        raise ImportError(f"hgemm: cannot load {path}: {e} (rebuild it with `{BUILD_COMMAND}`)") from None
    c = ctypes
    signatures = {
        "hg_torch_registry_json": (c.c_char_p, []),
        "hg_torch_check": (c.c_int, [c.c_char_p, c.c_int64, c.c_int64, c.c_int64, c.c_char_p, c.c_int, c.c_char_p,
                                     c.c_size_t]),
        "hg_torch_mm": (c.c_int, [c.c_int, c.c_char_p, c.c_void_p, c.c_void_p, c.c_void_p, c.c_int64, c.c_int64,
                                  c.c_int64, c.c_char_p, c.c_int, c.c_void_p, c.c_char_p, c.c_size_t, c.c_char_p,
                                  c.c_size_t]),
        "hg_torch_tolerance": (c.c_double, [c.c_double, c.c_double, c.c_int64]),
        "hg_torch_sweep_json": (c.c_char_p, [c.c_char_p]),
        "hg_torch_cache_size": (c.c_int, []),
        "hg_torch_prepared_count": (c.c_int64, []),
        "hg_torch_cache_clear": (None, []),
        "hg_torch_rotating_sets": (c.c_int64, [c.c_int64, c.c_int64, c.c_int64, c.c_size_t, c.c_size_t]),
        "hg_torch_round_order": (c.c_int, [c.c_int, c.c_int, c.POINTER(c.c_int)]),
        "hg_torch_order_cycle": (c.c_int, [c.c_int]),
        "hg_torch_summarize": (c.c_int, [c.POINTER(c.c_double), c.c_int, c.POINTER(c.c_double)]),
    }
    for name, (restype, argtypes) in signatures.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"hgemm: {path} has no function {name}: it is older than this package; rebuild it with "
                              f"`{BUILD_COMMAND}`") from None
        fn.restype, fn.argtypes = restype, argtypes
    return lib


LIB = _load()
REGISTRY = json.loads(LIB.hg_torch_registry_json())
STEPS = {s["name"]: s for s in REGISTRY["steps"]}  # in the registry's order


class RequestError(ValueError):
    """A request a step refuses (its shape rule, ring depths or tile menu), in the verify binary's words."""


def check(step, m, n, k, tile, pipe_depth):
    """Raises RequestError when `step` refuses the request (host only: no GPU needed)."""
    err = ctypes.create_string_buffer(_ERR_LEN)
    if LIB.hg_torch_check(step.encode(), m, n, k, tile.encode(), pipe_depth, err, _ERR_LEN) != 0:
        raise RequestError(f"hgemm ({step}): {err.value.decode()}")


def mm(device, step, a_ptr, b_ptr, d_ptr, m, n, k, tile, pipe_depth, stream):
    """Enqueues D = A * B^T on `stream`; returns what the step chose (step 11: its tile), or raises RequestError (2)
    or RuntimeError (3: a CUDA error, or a stream-K launch refusing graph capture)."""
    err = ctypes.create_string_buffer(_ERR_LEN)
    chosen = ctypes.create_string_buffer(256)
    rc = LIB.hg_torch_mm(device, step.encode(), a_ptr, b_ptr, d_ptr, m, n, k, tile.encode(), pipe_depth, stream, err,
                         _ERR_LEN, chosen, 256)
    if rc == BAD_REQUEST:
        raise RequestError(f"hgemm ({step}): {err.value.decode()}")
    if rc != 0:
        raise RuntimeError(f"hgemm ({step}): {err.value.decode()}")
    return chosen.value.decode()


def sweep_shapes(path):
    """The rows of a sweep file ({m, n, k, model, layer}), read as hgemm_bench --sweep reads it; ValueError if bad."""
    result = json.loads(LIB.hg_torch_sweep_json(str(path).encode()))
    if "error" in result:
        raise ValueError(result["error"])
    return result["shapes"]
