# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. It changes offsets, not
# instructions: step 1's PTX, still no TMA.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_step1_single_tile})
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_step1_single_tile})
hg_cli_test(${step}/shape_rule 2 "N must be a multiple of 128" $<TARGET_FILE:${step}> --n 64)
hg_step_runs(${step} 128x128x64 --m 128 --n 128 --k 64)
hg_step_runs(${step} 256x384x192 --m 256 --n 384 --k 192)
hg_step_runs(${step} 4096x2048x1024 --m 4096 --n 2048 --k 1024)
hg_step_runs(${step} 8192x8192x8192 --m 8192 --n 8192 --k 8192)
hg_step_runs(${step} default_seed3 --seed 3)
# A problem larger than the GPU's memory is refused with exit code 2 before any allocation.
hg_gpu_test(${step}/too_big_for_memory ${HG_TEST_DIR}/expect_exit.sh --gpu 2 "of GPU memory"
            $<TARGET_FILE:${step}> --m 1048576 --n 1048576 --k 64)
hg_sanitizer_test(${step} "" --init int --m 256 --n 384 --k 192)
