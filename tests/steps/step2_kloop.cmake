# step2_kloop's tests. It changes loops, not instructions: step 1's PTX, still no TMA.
set(HG_PTX_sm_100a_step2_kloop ${HG_PTX_sm_100a_step1_single_tile})
set(HG_PTX_sm_90a_step2_kloop ${HG_PTX_sm_90a_step1_single_tile})
hg_cli_test(step2_kloop/shape_rule 2 "M and N must be 128" $<TARGET_FILE:step2_kloop> --n 256)
foreach(k 64 128 4096 16384)  # one K tile, two, the natural shape, and a long accumulation
  hg_step_runs(step2_kloop k${k} --k ${k})
endforeach()
hg_step_runs(step2_kloop k192_seed7 --k 192 --seed 7)  # an odd number of K tiles
hg_break_test(step2_kloop no-phase-flip --init int)  # needs a Blackwell GPU
hg_break_test(step2_kloop no-wgmma-wait --observe --init int)  # tolerated by the H200
hg_sanitizer_test(step2_kloop "" --init int --k 256)
hg_break_sass_test(step2_kloop no-wgmma-wait wgmma-wait-in-loop kNoWgmmaWait)
