# This step's tests, included by tests/CMakeLists.txt (which defines the hg_* functions) with `step` set to this
# step's name and `prev_step` to the previous one's, so the file names neither. Step 10's kernels with the tile a
# template parameter: the Hopper kernel issues wgmma with N = 224 and 192 (new), 128 (step 1's) and 64 (a short
# tile's consumer) besides 256.
set(HG_PTX_sm_100a_${step} ${HG_PTX_sm_100a_${prev_step}})
set(HG_PTX_sm_90a_${step} ${HG_PTX_sm_90a_${prev_step}} m64n224k16 m64n192k16 m64n128k16 m64n64k16)
set(HG_PTX_NOT_${step} ${HG_PTX_NOT_${prev_step}})
list(REMOVE_ITEM HG_PTX_NOT_${step} m64n128k16)  # step 9 dropped it for m64n256k16; the 256 x 128 tile takes it back
set(HG_SASS_${step} ${HG_SASS_${prev_step}})
# The shape rule: K a multiple of 8 (a TMA row of A or B is a multiple of 16 bytes); no multiple of the tile asked.
hg_cli_test(${step}/shape_rule 2 "K must be a multiple of 8" $<TARGET_FILE:${step}> --k 100)
hg_cli_test(${step}/help_tile 0 "--tile" $<TARGET_FILE:${step}> --help)
# A tile the kernel does not offer is refused before any launch, naming the menu. The tests name the tiles both
# menus offer by their width (--tile 192 takes the first tile of that width: 256 rows on Hopper, 512 on
# Blackwell); the short tiles, 128 rows, are Hopper's alone, and their tests skip on Blackwell (tests/hopper_tile.sh).
add_test(NAME gpu/${step}/tile_not_on_menu
         COMMAND ${HG_TEST_DIR}/expect_exit.sh --gpu 2 "menu" $<TARGET_FILE:${step}> --tile 64)
set_tests_properties(gpu/${step}/tile_not_on_menu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
# The result line says which tile ran and whether it was asked for.
add_test(NAME gpu/${step}/tile_in_result_line
         COMMAND ${HG_TEST_DIR}/expect_exit.sh --gpu 0 "x192 tile_choice=forced" $<TARGET_FILE:${step}>
                 --m 1000 --n 1000 --k 1000 --tile 192)
set_tests_properties(gpu/${step}/tile_in_result_line PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
# Every tile of the menu at ragged shapes (no dimension a multiple of its tile), both input modes: --init int is
# bit-exact, so an element added twice, lost or written outside D fails. Width 224 makes four epilogue chunks of
# 64 columns, the last overlapping the one before.
foreach(width 256 224 192 128)
  hg_ring_runs(${step} ragged_1000x1000x1000_w${width} --m 1000 --n 1000 --k 1000 --tile ${width})
  hg_step_runs(${step} split_ragged_300x328x8000_w${width} --m 300 --n 328 --k 8000 --tile ${width})
endforeach()
# The tiles only Hopper's menu has: the short ones (the same runs, and an odd N: the threads' store, from a
# consumer's half of the columns). hg_step_runs through tests/hopper_tile.sh, which skips on Blackwell.
function(hg_hopper_tile_runs step name)
  hg_gpu_test(${step}/${name} ${HG_TEST_DIR}/hopper_tile.sh $<TARGET_FILE:${step}> --init both ${ARGN})
endfunction()
foreach(tile 128x256 128x128)
  hg_hopper_tile_runs(${step} ragged_1000x1000x1000_${tile} --pipe-depth all --m 1000 --n 1000 --k 1000 --tile ${tile})
  hg_hopper_tile_runs(${step} split_ragged_300x328x8000_${tile} --m 300 --n 328 --k 8000 --tile ${tile})
  hg_hopper_tile_runs(${step} odd_n_1000x1001x1000_${tile} --m 1000 --n 1001 --k 1000 --tile ${tile})
endforeach()
# One K tile a unit, so the epilogue's boxes turn over fastest: a tile of an odd number of chunks per consumer
# (256 x 192: 3, 128 x 128: 1) must still alternate its two staging boxes across tiles.
hg_step_runs(${step} one_k_tile_2048x2048x64_w192 --m 2048 --n 2048 --k 64 --tile 192)
hg_hopper_tile_runs(${step} one_k_tile_2048x2048x64_128x128 --m 2048 --n 2048 --k 64 --tile 128x128)
hg_step_runs(${step} one_k_tile_2048x2048x64_w224 --m 2048 --n 2048 --k 64 --tile 224)
# The edges: one row, one column, one more than a pair tile, K = 8 (one K tile, mostly zeros), a prime M, and the
# heuristic's own choice at shapes no tiled step accepts.
hg_step_runs(${step} one_row_1x4096x512 --m 1 --n 4096 --k 512)
hg_step_runs(${step} one_column_4096x1x512 --m 4096 --n 1 --k 512)
hg_step_runs(${step} tile_plus_one_257x264x72 --m 257 --n 264 --k 72)
hg_step_runs(${step} k8_512x384x8 --m 512 --n 384 --k 8)
hg_step_runs(${step} prime_m_1009x640x344 --m 1009 --n 640 --k 344)
hg_step_runs(${step} auto_2000x6000x1600 --m 2000 --n 6000 --k 1600)
# N not a multiple of 8: no tensor map can describe D's rows, so the threads store D, testing the edges. Every tile
# of the menu, a split (few tiles, long K: the heuristic splits) and GPT-2's 50257-word vocabulary.
foreach(width 256 224 192 128)
  hg_step_runs(${step} odd_n_1000x1001x1000_w${width} --m 1000 --n 1001 --k 1000 --tile ${width})
endforeach()
hg_step_runs(${step} odd_n_split_300x333x8000 --m 300 --n 333 --k 8000)
hg_step_runs(${step} vocab_64x50257x1600 --m 64 --n 50257 --k 1600)
# Step 10's contract at a ragged shape: the same bits in every launch where many tiles are split.
hg_gpu_test(${step}/same_bits_ragged_700x1000x4000 $<TARGET_FILE:${step}> --repeat 3 --m 700 --n 1000 --k 4000
            --sk-full-split-max 1000)
# The sanitizers on small ragged shapes (racecheck's time grows with the shared-memory traffic): three tile rows of
# the 256 x 192 tile, the last two partial; and a split of the 256 x 128 tile's six tiles, K ragged.
hg_sanitizer_test(${step} "" --init int --m 520 --n 392 --k 520 --tile 192)
hg_sanitizer_test(${step} "split_ragged/" --init int --m 300 --n 328 --k 1000 --tile 128)
# And the threads' store of D (N = 333): memcheck sees a store outside D, racecheck a box refilled while read.
hg_sanitizer_test(${step} "odd_n/" --init int --m 200 --n 333 --k 520 --tile 192)
# A short tile (Hopper): two consumers on one 64-row wgmma each, each its half of the columns; M and N ragged.
set(HG_SANITIZER_WRAPPER ${HG_TEST_DIR}/hopper_tile.sh)  # skips on Blackwell, whose menu lacks the tile
hg_sanitizer_test(${step} "short/" --init int --m 200 --n 264 --k 520 --tile 128x128)
unset(HG_SANITIZER_WRAPPER)
# Width 224: its overlapping last chunk, two tile columns, the second partial, and the threads' store.
hg_sanitizer_test(${step} "w224/" --init int --m 300 --n 392 --k 520 --tile 224)
hg_sanitizer_test(${step} "w224_odd_n/" --init int --m 300 --n 333 --k 520 --tile 224)
