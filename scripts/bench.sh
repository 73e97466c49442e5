#!/usr/bin/env bash
# `make bench`: every benchmark, results on stdout. Speed targets live here, not in unit tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
for b in "$build"/bin/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_min_time=0.5
done
echo "== bisect cost (bench/bisect_bench.sh)"
"$root/bench/bisect_bench.sh" "$build" webgpu 3
echo "== probe against bare ONNX Runtime (bench/probe_overhead_bench.sh)"
"$root/bench/probe_overhead_bench.sh" "$build" webgpu 3 320
echo "== probe --samples on one session (bench/probe_samples_bench.sh)"
"$root/bench/probe_samples_bench.sh" "$build" cpu,webgpu 4 3
echo "== web conformance subset (bench/web_subset_bench.sh)"
"$root/bench/web_subset_bench.sh" "$build" 1 2
