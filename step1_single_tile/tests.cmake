# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. PTX: the instructions of one tile
# through the data path; none of TMA, warp roles or clusters yet.
set(HG_PTX_sm_100a_${step}
  tcgen05.alloc tcgen05.mma tcgen05.commit tcgen05.ld tcgen05.wait::ld tcgen05.dealloc
  mbarrier.init mbarrier.try_wait.parity elect.sync)
set(HG_PTX_sm_90a_${step}
  wgmma.mma_async wgmma.commit_group wgmma.wait_group wgmma.fence fence.proxy.async)
hg_cli_test(${step}/shape_rule 2 "exactly one 128 x 128 x 64 tile" $<TARGET_FILE:${step}> --m 256)
foreach(seed 1 2 3)
  hg_step_runs(${step} seed${seed} --seed ${seed})
endforeach()
hg_gpu_test(${step}/bench $<TARGET_FILE:${step}> --bench --iters 20 --warmup 2)
hg_sanitizer_test(${step} "" --init int)
hg_break_sass_test(${step} no-cta-sync bar-sync kNoCtaSync)
