# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. Two consumers share each stage.
# Hopper: both consumer warpgroups issue wgmma m64n256k16 on every tile, so there are no turn barriers (bar.arrive)
# and no m64n128k16 any more; Blackwell: step 8's instructions, for two MMA warps.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}})
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}})
list(REMOVE_ITEM HG_PTX_sm_90a_${step} bar.arrive)
list(APPEND HG_PTX_sm_90a_${step} wgmma.mma_async.sync.aligned.m64n256k16)
# Step 8's rule on the release arrive; and neither step 7's turn barriers (bar.arrive) nor its n128 wgmma.
set(HG_PTX_NOT_${step} mbarrier.arrive.release.cluster bar.arrive m64n128k16)
set(HG_SASS_${step} ${HG_SASS_${prev_step}})
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}>
            --k 100)
# The same shapes with 128 x 256 tiles per CTA (Blackwell: 512 x 256 per pair), plus N an odd number of
# 128-column halves (640: the last tile's right half lies beyond N) with an odd number of tile rows.
hg_persistent_runs(${step})
hg_ring_runs(${step} 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)
hg_ring_runs(${step} one_tile_128x128x64 --m 128 --n 128 --k 64)
hg_ring_runs(${step} half_tiles_1152x640x192 --m 1152 --n 640 --k 192)
hg_step_runs(${step} 16384x4096x1024 --m 16384 --n 4096 --k 1024)
hg_step_runs(${step} 4096x14336x4096 --m 4096 --n 14336 --k 4096)
hg_sanitizer_test(${step} "" --init int --m 2304 --n 2048 --k 192)
hg_sanitizer_test(${step} "half_tiles/" --init int --m 384 --n 384 --k 320)
