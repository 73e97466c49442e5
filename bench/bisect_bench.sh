#!/usr/bin/env bash
# bench/bisect_bench.sh: what `parity bisect` costs, in backend runs and in wall time as a multiple
# of one plain inference of the same model on the same backends (`parity probe --backends
# REF,TARGET --one-at-a-time`, the same isolated workers, one after the other: the reference's
# inference plus the target's, what issue 19's ratio is about; builds without the flag run them so
# anyway). Each figure is the median of REPEAT runs.
#
#   bench/bisect_bench.sh [BUILD_DIR] [TARGET] [REPEAT]     default: build webgpu 3
#
# Rows: the models of tests/models/models_webgpu_bugs.py and models_bisect.py, first with every
# intermediate in one exposed run (the default 1 GiB budget), then the 97-node chain with budgets
# too small for that, where bisect narrows in rounds of checkpoints (cost ~ log(nodes)).
# BISECT_BENCH_MODELS (space-separated .onnx paths, e.g. the torchvision exports of
# scripts/gpu_corpus_export.py) adds one row each, inputs drawn in [0, 1]; BISECT_BENCH_TOY=0 leaves
# out the test models' rows; BISECT_BENCH_JSON (a folder) keeps each row's bisect JSON, whose `runs`
# say where the time went.
set -euo pipefail
build=${1:-build}
target=${2:-webgpu}
repeat=${3:-3}
parity=$build/bin/parity
models=$build/test-models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

source "$(dirname "$0")/timing.sh"
serial=()
"$parity" probe --help 2>/dev/null | grep -q -- --one-at-a-time && serial=(--one-at-a-time)

printf '%-44s %-8s %6s %5s %9s %9s %6s\n' model budget nodes runs plain_ms bisect_ms ratio
row() {  # row NAME|PATH BUDGET [input flags]
  local name=$1 budget=$2; shift 2
  local model=$models/$name.onnx
  case $name in */*) model=$name; name=$(basename "$name" .onnx) ;; esac
  local plain
  plain=$(timed "$parity" probe "$model" --backends "cpu,$target" -q --no-count-nodes "${serial[@]}" "$@")
  local bis; bis=$(timed "$parity" bisect "$model" --backend "$target" -q --batch-bytes "$budget" "$@")
  "$parity" bisect "$model" --backend "$target" -q --batch-bytes "$budget" --json "$tmp/b.json" "$@" >/dev/null 2>&1 || true
  [ -n "${BISECT_BENCH_JSON:-}" ] && mkdir -p "$BISECT_BENCH_JSON" && cp "$tmp/b.json" "$BISECT_BENCH_JSON/$name.$budget.json"
  local runs nodes
  runs=$(python3 -c "import json;print(json.load(open('$tmp/b.json'))['backend_runs'])")
  nodes=$(python3 -c "import json;j=json.load(open('$tmp/b.json'));print(len({t['node'] for t in j['tensors']}))")
  printf '%-44s %-8s %6s %5s %9s %9s %6.2f\n' "$name" "$budget" "$nodes" "$runs" "$plain" "$bis" \
    "$(ratio "$bis" "$plain")"
}

if [ "${BISECT_BENCH_TOY:-1}" != 0 ]; then
  row webgpu_clean_multilayer 1G
  row webgpu_bug_dq_blocked_1d_multilayer 1G
  row webgpu_bug_slice_negative_step_multilayer 1G
  row bisect_deep_chain 1G
  row bisect_deep_chain 4K
  row bisect_deep_chain 1K
  row bisect_deep_chain 0.3K
fi
# A real trained network (npm corpus): Silero VAD v5, whose 1-D Conv the WebGPU EP computes wrong.
vad=$(cd "$(dirname "$0")/.." && pwd)/third_party/models/silero_vad_v5.onnx
[ -f "$vad" ] && row "$vad" 1G --shape input=1,512 --shape state=2,1,128 --range sr=16000,16001 \
  --range state=-0.1,0.1
for m in ${BISECT_BENCH_MODELS:-}; do row "$m" 1G --range x=0,1; done
