# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. A store's reads of the staging tile
# are waited for only before it is overwritten.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_step4_tma} cp.async.bulk.wait_group.read)
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_step4_tma} cp.async.bulk.wait_group.read)
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}> --k 100)
hg_persistent_runs(${step})
# At every depth it offers; 288 tiles: some CTAs take 2.
hg_sanitizer_ring_tests(${step} --init int --m 2304 --n 2048 --k 192)
hg_break_sass_test(${step} no-store-wait bulk-wait kNoStoreWait)
