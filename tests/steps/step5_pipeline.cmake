# step5_pipeline's tests. It changes buffering, not instructions: step 4's PTX.
set(HG_PTX_sm_100a_step5_pipeline ${HG_PTX_sm_100a_step4_tma})
set(HG_PTX_sm_90a_step5_pipeline ${HG_PTX_sm_90a_step4_tma})
hg_cli_test(step5_pipeline/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:step5_pipeline> --k 100)
hg_ring_runs(step5_pipeline 128x128x64 --m 128 --n 128 --k 64)     # one K tile: fewer than the stages
hg_ring_runs(step5_pipeline 256x384x192 --m 256 --n 384 --k 192)   # an odd number of K tiles (3)
hg_ring_runs(step5_pipeline 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)  # 5 K tiles, non-square
hg_ring_runs(step5_pipeline 4096x2048x1024 --m 4096 --n 2048 --k 1024)
hg_step_runs(step5_pipeline 8192x8192x8192 --m 8192 --n 8192 --k 8192)
hg_step_runs(step5_pipeline default_seed2 --seed 2)
hg_break_test(step5_pipeline no-tma-phase-flip --init int)
hg_break_test(step5_pipeline no-wgmma-wait --init int)
hg_sanitizer_ring_tests(step5_pipeline --init int --m 256 --n 384 --k 320)  # at every depth it offers
