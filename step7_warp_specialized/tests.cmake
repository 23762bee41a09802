# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. The CTA splits into roles: on Hopper
# the producer warpgroup gives its registers to the consumers (setmaxnreg) and the consumers hand the tensor core to
# each other with bar.arrive / bar.sync; on Blackwell the MMA warp frees each stage with a tcgen05.commit on its
# "empty" barrier and the epilogue warpgroup syncs on a named barrier. Clusters are still step 8's.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}} bar.sync)
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}}
  setmaxnreg.inc.sync.aligned.u32 setmaxnreg.dec.sync.aligned.u32 bar.arrive bar.sync mbarrier.arrive.shared)
# The Hopper producer gives its registers away: the SASS holds the register reallocation (USETMAXREG).
set(HG_SASS_${step} sm_90a=USETMAXREG)
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}>
            --k 100)
# Step 6's shapes. On an H200 (132 CTAs) the consumers of a CTA take different numbers of tiles (1920x1536: 180
# tiles), a consumer may get none (256x256: 4 tiles), and tiles of 1 K tile leave the producer running far
# ahead of the consumers; plus 5 K tiles on a non-square shape and the short-K benchmark shape.
hg_persistent_runs(${step})
hg_ring_runs(${step} 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)
hg_step_runs(${step} 16384x4096x1024 --m 16384 --n 4096 --k 1024)
# At its default depth (4) and at 2, where the producer waits on "empty" most often.
hg_sanitizer_test(${step} "" --init int --m 2304 --n 2048 --k 192)
hg_sanitizer_test(${step} "depth2/" --init int --m 2304 --n 2048 --k 192 --pipe-depth 2)
