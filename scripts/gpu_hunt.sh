#!/usr/bin/env bash
# parity hunt on the GPU machine (issue 20): the same seeded hunt as on SwiftShader, on the NVIDIA
# WebGPU adapter, so a finding seen on both is a backend bug and one seen on one only a driver's.
# Also replays finding folders carried in CARRY/findings (hunted on SwiftShader) with parity verify.
#
#   bash scripts/gpu_hunt.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/hunt.txt (the log), $OUT/hunt.json and $OUT/findings.tar.xz. Environment as
# gpu_sweep.sh, plus OPS (default: every space), CASES (default 400), SEED (default 1), JOBS
# (default 8) and BUDGET_S (no new case after it, default 360).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=hunt.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'
ops=()
[ -n "${OPS:-}" ] && ops=(--ops "$OPS")
STEP_TIMEOUT_S=$(( ${BUDGET_S:-360} + 200 )) p hunt --backends webgpu "${ops[@]}" --cases "${CASES:-400}" \
  --seed "${SEED:-1}" -j "${JOBS:-8}" --time-budget "${BUDGET_S:-360}" --out "$work/findings" --json "$out/hunt.json"
if [ -d "$carry/findings" ]; then
  for d in "$carry"/findings/*/; do
    [ -f "$d/repro.json" ] && STEP_TIMEOUT_S=60 p verify "$d" 2>&1 | tail -n 4
  done
fi
tar -C "$work" -cJf "$out/findings.tar.xz" findings 2>/dev/null || true
