# step6_persistent's tests. A store's reads of the staging tile are waited for only before it is overwritten.
set(HG_PTX_sm_100a_step6_persistent ${HG_PTX_sm_100a_step4_tma} cp.async.bulk.wait_group.read)
set(HG_PTX_sm_90a_step6_persistent ${HG_PTX_sm_90a_step4_tma} cp.async.bulk.wait_group.read)
hg_cli_test(step6_persistent/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:step6_persistent> --k 100)
hg_persistent_runs(step6_persistent)
hg_break_test(step6_persistent reset-phase-per-tile --init int --m 4096 --n 2048 --k 192)  # ~2 tiles per CTA
hg_break_test(step6_persistent no-store-wait --observe --init int --m 4096 --n 4096 --k 64)  # tolerated
# At every depth it offers; 288 tiles: some CTAs take 2.
hg_sanitizer_ring_tests(step6_persistent --init int --m 2304 --n 2048 --k 192)
hg_break_sass_test(step6_persistent no-store-wait bulk-wait kNoStoreWait)
