#!/usr/bin/env python3
"""CTest's runner of the Python tests (label python): one test file of torch/tests against the built library.

    run_tests.py LIBRARY TEST_FILE

Exits 77 (skipped) when this Python cannot import torch or pytest, when no CUDA GPU is visible, or when GPU 0 is
neither compute capability 9.0 (sm_90a) nor 10.0 (sm_100a); otherwise runs pytest on TEST_FILE with
HGEMM_TORCH_LIB=LIBRARY and HGEMM_REQUIRE_GPU=1 (a test that needs the GPU fails instead of skipping), and exits
with pytest's code (5, no test collected, is a failure too).
"""
import os
import pathlib
import sys

SKIP = 77


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    library, test_file = argv[1], argv[2]
    try:
        import torch
    except ImportError as e:
        skip(f"{sys.executable} cannot import torch ({e}): install PyTorch for it to run the python tests")
    try:
        import pytest
    except ImportError:
        skip(f"{sys.executable} cannot import pytest: python3 -m pip install pytest")
    if not torch.cuda.is_available():
        skip(f"PyTorch {torch.__version__} sees no CUDA GPU")
    cap = torch.cuda.get_device_capability(0)
    if cap not in ((9, 0), (10, 0)):
        skip(f"GPU '{torch.cuda.get_device_name(0)}' has compute capability {cap[0]}.{cap[1]}; the kernels need 9.0 "
             "(Hopper, sm_90a) or 10.0 (Blackwell datacenter, sm_100a)")
    os.environ["HGEMM_TORCH_LIB"] = library
    os.environ["HGEMM_REQUIRE_GPU"] = "1"
    tests = pathlib.Path(test_file).resolve()
    return pytest.main([str(tests), "-q", "-rfEs", "-p", "no:cacheprovider", "--rootdir", str(tests.parent)])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
