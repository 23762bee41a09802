# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. TMA: tensor loads into shared memory
# and stores out of it, expect_tx, bulk groups. No thread copies into the swizzled tiles any more, so the Hopper
# kernel needs a proxy fence only for D.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_step1_single_tile} ${HG_TMA_PTX})
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_step1_single_tile} ${HG_TMA_PTX} mbarrier.try_wait.parity)
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}> --k 100)
hg_step_runs(${step} 128x128x64 --m 128 --n 128 --k 64)          # one K tile
hg_step_runs(${step} 256x384x192 --m 256 --n 384 --k 192)        # an odd number of K tiles (3)
hg_step_runs(${step} 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)  # 5 K tiles, non-square
hg_step_runs(${step} 4096x2048x1024 --m 4096 --n 2048 --k 1024)
hg_step_runs(${step} 8192x8192x8192 --m 8192 --n 8192 --k 8192)
# Its no-store-wait runs at its own natural shape (4096^3: one tile per CTA).
set(HG_BREAK_ARGS_${step}_kNoStoreWait --init int)
hg_sanitizer_test(${step} "" --init int --m 256 --n 384 --k 192)
hg_break_sass_test(${step} no-wgmma-wait wgmma-wait-in-loop kNoWgmmaWait)
hg_break_sass_test(${step} no-store-wait bulk-wait kNoStoreWait)
