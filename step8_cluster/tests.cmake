# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. CTA pairs (clusters of two): cluster
# barriers around the pair's life and remote arrives through mapa. Blackwell: the pair MMA (cta_group::2) and its
# TMEM allocation, loads counted on the leader's barrier (.cta_group::2), commits multicast to both CTAs; Hopper:
# the shared operand's TMA multicast. Neither may arrive with .release.cluster in its loops: on sm_90a that compiles
# to a MEMBAR.ALL.GPU in every K tile (docs/${step}.md measures what it cost; common/kernel/ptx.cuh,
# mbarrier_arrive_remote).
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}} tcgen05.mma.cta_group::2
  tcgen05.alloc.cta_group::2 .multicast::cluster mbarrier::complete_tx::bytes.cta_group::2 barrier.cluster.arrive
  mapa.shared::cluster mbarrier.arrive.shared::cluster)
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}} .multicast::cluster barrier.cluster.arrive
  mapa.shared::cluster mbarrier.arrive.shared::cluster)
set(HG_PTX_NOT_${step} mbarrier.arrive.release.cluster)
# The Hopper kernel's TMA loads multicast; the Blackwell MMA is the two-CTA form.
set(HG_SASS_${step} sm_90a=USETMAXREG sm_90a=MULTICAST sm_100a=2CTA)
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 64" $<TARGET_FILE:${step}> --k 100)
# The same shapes in CTA pairs (on an H200: 66 pairs). 1920x1536 has 15 tile rows, 384x256 three and 128x128
# one: the last pair row's lower tile lies wholly below M (zeros in, nothing stored) and must not disturb its
# partner; 1280x4096 ends in a partial L2 group of pair rows; 256x256 gives 2 pair tiles to 66 pairs.
hg_persistent_runs(${step})
hg_ring_runs(${step} 384x256x320_seed5 --m 384 --n 256 --k 320 --seed 5)
hg_ring_runs(${step} one_tile_128x128x64 --m 128 --n 128 --k 64)
hg_step_runs(${step} 16384x4096x1024 --m 16384 --n 4096 --k 1024)
hg_sanitizer_test(${step} "" --init int --m 2304 --n 2048 --k 192)
hg_sanitizer_test(${step} "odd_tile_rows/" --init int --m 384 --n 256 --k 320)
