#!/usr/bin/env bash
# The benchmark ladder in one command: build the benchmark, run the registry's ladder steps (steps.json) and
# cuBLAS on the GPU it finds at default_bench_shapes() (common/harness/bench.hpp; each step verified before it
# is timed) in three whole runs, each into its own directory (build/ladder_runs/runN), combine them into their
# median (tools/ladder_median.py: one run on a power-capped GPU moves by several percent, and a page's comparison
# must not flip with the next run), then, when OUT_DIR is docs/results, redraw the chart and the pages' tables
# from it (tools/pages.py; hg_step_facts is built for its facts tables). `cmake --build build --target regenerate` then refreshes the
# numbers the prose ties to the data.
#   tools/run_benchmark.sh [OUT_DIR (default docs/results)] [hgemm_bench options...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/results}; shift || true
case "$out" in
  -*) echo "run_benchmark.sh: the first argument is OUT_DIR; give it before hgemm_bench's options" \
           "(tools/run_benchmark.sh docs/results $out ...)" >&2; exit 2 ;;
esac
cmake --preset default >/dev/null
cmake --build build --target hgemm_bench hg_step_facts -j "$(nproc)"
runs=()
for i in 1 2 3; do
  run=build/ladder_runs/run$i
  rm -rf "$run" && mkdir -p "$run"
  ./build/hgemm_bench --out "$run" "$@"
  runs+=("$run")
done
python3 tools/ladder_median.py "${runs[@]}" --out "$out"
if [ "$(realpath -m "$out")" = "$(realpath -m docs/results)" ]; then
  python3 tools/pages.py --write --results "$out" --facts-bin build/hg_step_facts
else  # the pages read their sweeps and profiles from docs/results too: redraw them only from there
  echo "run_benchmark.sh: the ladder is in $out; the pages are redrawn only from docs/results"
fi
