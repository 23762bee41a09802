# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. It changes loops, not instructions:
# step 1's PTX, still no TMA.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}})
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}})
hg_cli_test(${step}/shape_rule 2 "M and N must be 128" $<TARGET_FILE:${step}> --n 256)
foreach(k 64 128 4096 16384)  # one K tile, two, the natural shape, and a long accumulation
  hg_step_runs(${step} k${k} --k ${k})
endforeach()
hg_step_runs(${step} k192_seed7 --k 192 --seed 7)  # an odd number of K tiles
hg_sanitizer_test(${step} "" --init int --k 256)
hg_break_sass_test(${step} no-wgmma-wait wgmma-wait-in-loop kNoWgmmaWait)
