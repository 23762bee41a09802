# step1_single_tile's tests (included by tests/CMakeLists.txt, which defines the hg_* functions).
# PTX: the instructions of one tile through the data path; none of TMA, warp roles or clusters yet.
set(HG_PTX_sm_100a_step1_single_tile
  tcgen05.alloc tcgen05.mma tcgen05.commit tcgen05.ld tcgen05.wait::ld tcgen05.dealloc
  mbarrier.init mbarrier.try_wait.parity elect.sync)
set(HG_PTX_sm_90a_step1_single_tile
  wgmma.mma_async wgmma.commit_group wgmma.wait_group wgmma.fence fence.proxy.async)
hg_cli_test(step1_single_tile/shape_rule 2 "exactly one 128 x 128 x 64 tile" $<TARGET_FILE:step1_single_tile> --m 256)
foreach(seed 1 2 3)
  hg_step_runs(step1_single_tile seed${seed} --seed ${seed})
endforeach()
hg_gpu_test(step1_single_tile/bench $<TARGET_FILE:step1_single_tile> --bench --iters 20 --warmup 2)
hg_break_test(step1_single_tile no-cta-sync --observe --init int)  # tolerated by the H200
hg_sanitizer_test(step1_single_tile "" --init int)
hg_break_sass_test(step1_single_tile no-cta-sync bar-sync kNoCtaSync)
