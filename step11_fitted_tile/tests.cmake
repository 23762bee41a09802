# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. Step 9's kernels plus the stream-K
# fixup: a part is published with st.release.gpu and its owner acquires it with ld.acquire.gpu
# (common/kernel/ptx.cuh), on both architectures; and the arrival ticket: rank 0 takes it with atom.global.inc,
# rank 1 reads it from rank 0's shared memory with ld.shared::cluster.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}} ld.acquire.gpu st.release.gpu atom.global.inc
    ld.shared::cluster)
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}} ld.acquire.gpu st.release.gpu atom.global.inc
    ld.shared::cluster)
set(HG_PTX_NOT_${step} ${HG_PTX_NOT_${prev_step}})
set(HG_SASS_${step} ${HG_SASS_${prev_step}})
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}> --k 100)
# Step 9's shapes, and shapes where the split lands in different places (on an H200: 66 pairs; Hopper pair tiles
# of 256 x 256, Blackwell 512 x 256): the natural 5120 x 5120 x 2048 (400 pair tiles: 6 rounds and 4 over) and
# 2304 x 4608 x 8192 (162: 2 rounds and 30 over), 21 K tiles (not a multiple of anything), one tile of 128 K
# tiles split 32 ways, 15 pair tiles with M and N not multiples of the pair tile, and K = 64 (one K tile: the
# plan falls back to whole tiles).
hg_persistent_runs(${step})
hg_ring_runs(${step} 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)
hg_ring_runs(${step} one_tile_128x128x64 --m 128 --n 128 --k 64)
hg_ring_runs(${step} half_tiles_1152x640x1344 --m 1152 --n 640 --k 1344)
hg_ring_runs(${step} one_tile_split_256x256x8192 --m 256 --n 256 --k 8192)
hg_step_runs(${step} 2304x4608x8192 --m 2304 --n 4608 --k 8192)
hg_step_runs(${step} 4352x4096x1344 --m 4352 --n 4096 --k 1344)
hg_step_runs(${step} k64_2304x4608x64 --m 2304 --n 4608 --k 64)
hg_step_runs(${step} 16384x4096x1024 --m 16384 --n 4096 --k 1024)
# The new contract: the same bits in every launch (parts added in K order whatever their timing), random inputs,
# where many tiles are split.
hg_gpu_test(${step}/same_bits_5120x5120x2048 $<TARGET_FILE:${step}> --repeat 5)
hg_gpu_test(${step}/same_bits_one_tile_256x256x8192 $<TARGET_FILE:${step}> --repeat 5 --m 256
            --n 256 --k 8192)
# Partial residency: another kernel holds 100 or 120 of the GPU's SMs (an H200 keeps 32 or 12) while the step runs
# its full grid, whose workers wait for each other's parts; it must finish, with the right bits, before the hog lets
# go (hog_held=yes). Every tile split (72 tiles on 66 pairs: the default knobs would not split them, so the limit
# on splitting every tile is lifted), and one tile split 32 ways. Too many SMs is refused before any launch.
hg_gpu_test(${step}/hog_100_sms_2304x2048x576 $<TARGET_FILE:${step}> --m 2304 --n 2048 --k 576 --init int --hog-sms 100
            --sk-full-split-max 1000)
hg_gpu_test(${step}/hog_120_sms_2304x2048x576 $<TARGET_FILE:${step}> --m 2304 --n 2048 --k 576 --init int --hog-sms 120
            --sk-full-split-max 1000)
hg_gpu_test(${step}/hog_120_sms_one_tile_256x256x8192 $<TARGET_FILE:${step}> --m 256 --n 256 --k 8192 --init int
            --hog-sms 120)
hg_cli_test(${step}/hog_sms_too_many 2 "--hog-sms must be between 0 and 1024" $<TARGET_FILE:${step}> --hog-sms 5000)
hg_sanitizer_test(${step} "" --init int --m 2304 --n 2048 --k 576 --sk-full-split-max 1000)  # every tile split
hg_sanitizer_test(${step} "one_tile_split/" --init int --m 256 --n 256 --k 2048)
# A captured launch would replay its epoch (stale parts would pass): where the plan splits, capture is refused with
# a clear error; where it does not (one K tile), the graph's replays give the direct launch's bits.
add_test(NAME gpu/${step}/graph_refused_where_split
         COMMAND ${HG_TEST_DIR}/expect_exit.sh --gpu 3 "cannot be captured into a CUDA graph" $<TARGET_FILE:${step}>
                 --init int --graph 3)
set_tests_properties(gpu/${step}/graph_refused_where_split PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
hg_gpu_test(${step}/graph_replays_without_split $<TARGET_FILE:${step}> --init int --graph 3 --m 2304 --n 4608 --k 64)
