#!/usr/bin/env bash
# Measures Parity's verdicts on real architectures on the GPU machine (NVIDIA driver, no Vulkan
# loader): torchvision ResNet-50 / ViT-B/16 / Swin-T exported by scripts/gpu_corpus_export.py, each
# clean and with a planted WebGPU miscompute (NAME_dq: node `injected_dq`), plus the PP-OCR models
# if carried. For each case it runs `parity probe --backends cpu,webgpu`, a plain
# `parity probe --backends webgpu` (the cost baseline) and `parity bisect --backend webgpu`, timing
# each, and writes $OUT/summary.md with a table per case, plus corpus-json.tar.xz (every JSON, log
# and small repro file), device.txt, backends.txt and driver.log.
#
# Needs a carry folder (default gpucarry/, git-ignored) holding: parity (stripped), lib/ (its
# shared libraries), libonnxruntime.so.1.xz (ORT 1.30.0), debs/ (libvulkan1 libegl1 libglvnd0
# libopengl0 libgl1 libglx0 libgles2), optionally models/*.onnx (PP-OCR) and receipt.png. On the
# device, from the repository root (the working tree travels, so scripts/ is there):
#
#   bash scripts/gpu_corpus.sh [CARRY]          # run tool: carry ["gpucarry"]
#
# Environment: OUT (results, default ./out), WORK (scratch, default /tmp/gpucorpus; exported models
# are reused from WORK/models when a call lands on the same warm machine), CASES (space-separated
# subset of the cases below), BUDGET_S (no new case starts after this many seconds, default 420),
# STEP_TIMEOUT_S (limit of one parity command, default 200).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$(cd "${1:-$root/gpucarry}" && pwd)
out=${OUT:-$root/out}
work=${WORK:-/tmp/gpucorpus}
budget=${BUDGET_S:-420}
step_timeout=${STEP_TIMEOUT_S:-200}
torch_models="resnet50 vit_b_16 swin_t"
all_cases="resnet50 resnet50_dq vit_b_16 vit_b_16_dq swin_t swin_t_dq ppocr_det_320 ppocr_det_960 ppocr_rec ppocr_cls"
cases=${CASES:-$all_cases}
start=$(date +%s)
mkdir -p "$out" "$work/models" "$work/json" "$work/logs" "$work/repro"
exec > >(tee -a "$out/driver.log") 2>&1
say() { echo "[corpus +$(($(date +%s) - start))s] $*"; }

# --- Vulkan through NVIDIA's driver, ORT, parity (docs: shared/FIELD_NOTES.md) ---
source "$root/scripts/gpu_env.sh"

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; uname -r; nproc; } \
  > "$out/device.txt" 2>&1 || true
say "device: $(head -1 "$out/device.txt")"
"${parity[@]}" backends --check --ort-lib "$ort" > "$out/backends.txt" 2>&1 || true
cat "$out/backends.txt"

# --- export (skipped for models already in WORK/models) ---
need=""
for m in $torch_models; do
  case " $cases " in *" $m "* | *" ${m}_dq "*) [ -s "$work/models/${m}_dq.onnx" ] || need="$need,$m" ;; esac
done
if [ -n "$need" ]; then
  if python3 -c "import torch, torchvision, onnx, onnxruntime; print('python:', torch.__version__, torchvision.__version__, onnx.__version__, onnxruntime.__version__)"; then
    say "exporting ${need#,}"
    PYTHONUNBUFFERED=1 python3 "$root/scripts/gpu_corpus_export.py" --out "$work/models" --models "${need#,}" ||
      say "export FAILED (exit $?)"
  else
    say "python lacks torch/torchvision/onnx/onnxruntime: torchvision cases skipped"
  fi
fi
[ -s "$work/models/manifest.json" ] && cp "$work/models/manifest.json" "$work/json/manifest.json"
ls -la "$work/models" || true

# --- cases ---
# run_step CASE KIND CMD...: times one parity command; appends CASE KIND exit wall_ms to runs.tsv.
run_step() {
  local c=$1 kind=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout "$step_timeout" "$@" > "$work/logs/$c.$kind.txt" 2>&1
  rc=$?
  t1=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\n' "$c" "$kind" "$rc" "$(( (t1 - t0) / 1000000 ))" >> "$work/runs.tsv"
  say "$c $kind: exit $rc, $(( (t1 - t0) / 1000000 )) ms"
  tail -n 12 "$work/logs/$c.$kind.txt"
}
case_args() {  # prints "MODEL ARGS..." for a case, or nothing when its model is missing
  local c=$1 model args
  case $c in
    ppocr_det_320 | ppocr_det_960)
      model=$carry/models/ch_PP-OCRv4_det_infer.onnx; local s=${c#ppocr_det_}
      args="--input x=$carry/receipt.png --resize x=$s,$s" ;;
    ppocr_rec) model=$carry/models/ch_PP-OCRv4_rec_infer.onnx; args="--shape x=1,3,48,320 --range x=0,1" ;;
    ppocr_cls) model=$carry/models/ch_ppocr_mobile_v2.0_cls_infer.onnx; args="--shape x=1,3,48,192 --range x=0,1" ;;
    *) model=$work/models/$c.onnx; args="--range x=0,1" ;;
  esac
  [ -s "$model" ] && echo "$model $args"
}
# --- summary: rewritten after every case, so a call cut short still returns what it measured ---
cat > "$work/summarize.py" <<'EOF'
import json, os, sys
work, dest = sys.argv[1], sys.argv[2]
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
def num(v):
    return v if isinstance(v, (int, float)) else float("nan")
runs = {}
if os.path.exists(os.path.join(work, "runs.tsv")):
    for line in open(os.path.join(work, "runs.tsv")):
        c, kind, rc, ms = line.rstrip("\n").split("\t")
        runs[(c, kind)] = (int(rc), int(ms))
manifest = (load(os.path.join(work, "models", "manifest.json")) or {}).get("models", {})
cases = sorted({c for c, _ in runs}, key=lambda c: [k for k, _ in runs].index(c))
rows, notes, adapters = [], [], {}
hdr = ("| case | probe verdict (webgpu) | probe outputs max_abs/ref_max_abs | bisect first_divergent | "
       "isolation reproduces | backend_runs | bisect wall_ms | bisect plain_run_ms | plain probe wall_ms "
       "(webgpu worker) | bisect / plain probe | max over bisect tensors max_abs/ref_max_abs | exits p/pl/b |")
rows.append(hdr)
rows.append("|" + "---|" * (hdr.count("|") - 1))
for c in cases:
    p = load(os.path.join(work, "json", c + ".probe.json"))
    pl = load(os.path.join(work, "json", c + ".plain.json"))
    b = load(os.path.join(work, "json", c + ".bisect.json"))
    verdict, out_err, adapter = "no json", "", ""
    if p:
        t = [r for r in p["backends"] if r["role"] == "target"]
        if t:
            t = t[0]
            adapter = t.get("adapter") or ""
            verdict = t["status"] + " (" + ", ".join(f'{o["name"]}: {o["verdict"]}' for o in t["outputs"]) + ")"
            errs = [num(o["metrics"].get("max_abs")) / num(o["metrics"].get("ref_max_abs"))
                    for o in t["outputs"] if o["metrics"].get("ref_max_abs")]
            out_err = f"{max(errs):.3g}" if errs else "n/a"
            if t.get("error"):
                notes.append(f"- {c}: probe webgpu error: {t['error'].get('stage')}: {t['error'].get('message')}")
    plain_ms = ""
    if pl:
        t = [r for r in pl["backends"] if r["role"] == "target"]
        worker = f' ({t[0]["timing_ms"]["wall"]:.0f})' if t else ""
        plain_ms = f'{runs.get((c, "plain"), (0, 0))[1]}{worker}'
    fd, iso, br, wall, prun, ratio, terr = "no json", "", "", "", "", "", ""
    if b:
        f = b.get("first_divergent")
        fd = "none" if not f else f'{f["node"]} ({f["op_type"]}, tensor {f["tensor"]}, born_here {f["born_here"]})'
        i = b.get("isolation") or {}
        iso = "not attempted" if not i.get("attempted") else f'{i.get("reproduces")} {i.get("nodes")}'
        br, wall, prun = b.get("backend_runs"), b.get("wall_ms"), b.get("plain_run_ms")
        wall_s, prun_s = f"{num(wall):.0f}", f"{num(prun):.0f}"
        pm = runs.get((c, "plain"))
        ratio = f"{num(wall) / pm[1]:.2f}" if pm and pm[1] else ""
        ts = [(num(x["metrics"]["max_abs"]) / num(x["metrics"]["ref_max_abs"]), x["name"]) for x in b.get("tensors", [])
              if x.get("metrics") and num(x["metrics"].get("ref_max_abs")) > 0]
        if ts:
            e, n = max(ts)
            terr = f"{e:.3g} ({n})"
        wall, prun = wall_s, prun_s
        if b.get("error"):
            notes.append(f"- {c}: bisect error: {b['error'].get('stage')}: {b['error'].get('message')}")
        if b.get("notes"):
            notes.append(f"- {c}: bisect notes: " + " | ".join(b["notes"]))
    exits = "/".join(str(runs.get((c, k), ("-",))[0]) for k in ("probe", "plain", "bisect"))
    rows.append(f"| {c} | {verdict} | {out_err} | {fd} | {iso} | {br} | {wall} | {prun} | {plain_ms} | {ratio} | {terr} | {exits} |")
    if adapter:
        adapters.setdefault(adapter, []).append(c)
with open(dest, "w") as f:
    dev = open(os.path.join(os.path.dirname(dest), "device.txt")).read().strip() if os.path.exists(
        os.path.join(os.path.dirname(dest), "device.txt")) else "?"
    f.write(f"# Parity GPU corpus\n\ndevice: {dev}\n\n")
    f.write("\n".join(rows) + "\n\n")
    f.write("exits p/pl/b: exit codes of probe cpu,webgpu / plain probe webgpu / bisect (124 = timeout). "
            "plain probe wall_ms is the whole command (it also runs the cpu reference); the webgpu "
            "worker's own wall is in parentheses. bisect / plain probe = bisect wall_ms / plain probe wall_ms.\n\n")
    if manifest:
        f.write("## Exported models\n\n| model | nodes | MiB | opset | exporter | ORT CPU vs torch | injected_dq feeds | "
                "values / scales | opset 21 by | ORT CPU dq vs clean | MiB (dq) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for n, e in manifest.items():
            if "error" in e:
                f.write(f'| {n} | export FAILED: {e["error"][:300]} |\n')
                continue
            d = e["dq"]
            f.write(f'| {n} | {e["node_count"]} | {e["file_bytes"] / 2**20:.1f} | {e["opset"]} | {e["exporter"]} | '
                    f'{e["ort_cpu_vs_torch"]:.2e} | {d["consumer"]} ({d["consumer_op"]}, node {d["consumer_index"]}/{d["node_count"]}) | '
                    f'{d["length"]} / {d["scales"]} | {d["opset_raise"]} | {d["ort_cpu_dq_vs_clean"]:.2e} | {d["file_bytes"] / 2**20:.1f} |\n')
        f.write("\n")
    for a, cs in adapters.items():
        notes.append(f"- webgpu adapter {a}: {', '.join(cs)}")
    if notes:
        f.write("## Notes\n\n" + "\n".join(notes) + "\n")

EOF
summarize() {
  cp "$work/runs.tsv" "$work/json/runs.tsv" 2>/dev/null || true
  python3 "$work/summarize.py" "$work" "$out/summary.md" || say "summary FAILED"
  find "$work/repro" -type f -size +2M -delete 2>/dev/null || true
  tar -C "$work" -cJf "$out/corpus-json.tar.xz" json logs repro 2>/dev/null || true
}
for c in $cases; do
  if (( $(date +%s) - start > budget )); then say "budget of ${budget}s spent: $c not started"; continue; fi
  spec=$(case_args "$c") || { say "$c: model missing, skipped"; continue; }
  read -r model args <<< "$spec"
  j=$work/json/$c
  # shellcheck disable=SC2086 # args holds several words on purpose
  run_step "$c" probe "${parity[@]}" probe "$model" --backends cpu,webgpu --ort-lib "$ort" $args -q --json "$j.probe.json"
  # shellcheck disable=SC2086
  run_step "$c" plain "${parity[@]}" probe "$model" --backends webgpu --ort-lib "$ort" $args -q --json "$j.plain.json"
  # shellcheck disable=SC2086
  run_step "$c" bisect "${parity[@]}" bisect "$model" --backend webgpu --ort-lib "$ort" $args -q \
    --json "$j.bisect.json" --out "$work/repro/$c"
  summarize
done
summarize
cat "$out/summary.md"
ls -la "$out"
say "done"

