#!/usr/bin/env python3
"""Exports real architectures (torchvision ResNet-50, ViT-B/16, Swin-T) to ONNX for Parity's GPU
corpus, each with a twin that carries a planted WebGPU miscompute.

Runs on the GPU machine (scripts/gpu_corpus.sh calls it), whose Python has torch, torchvision,
onnx and onnxruntime; nothing here needs a GPU. By hand:

    python3 scripts/gpu_corpus_export.py --out /tmp/gpucorpus/models [--models resnet50,vit_b_16]

For each model NAME it writes into --out:
  NAME.onnx     fp32, opset 17, input `x` float32[1,3,224,224], output `y`, eval mode. Weights are
                random (torch.manual_seed(0)) and made non-degenerate: torchvision zero-initialises
                biases, heads and norm shifts (ViT-B/16's output is then exactly 0 for every input
                and folded ResNet biases are 0, so a planted bug in a bias would be invisible).
                Biases are re-drawn normal(0, 0.1), norm scales normal(1, 0.1), norm shifts
                normal(0, 0.1), any other all-zero parameter normal(0, 1/sqrt(fan_in)).
  NAME_dq.onnx  the same graph at opset 21 (IR 10) in which ONE mid-network 1-D float bias
                initializer (a Conv/Gemm/Add bias, length >= 32 and divisible by 16) is computed
                instead by a DequantizeLinear node named `injected_dq` (int8 values of the
                original bias, one scale per block of 16, block_size 16, axis 0, int8 zero points
                0) feeding the same consumer. ORT 1.30.0's WebGPU EP scales element i of a blocked
                1-D DequantizeLinear by scale[i] instead of scale[i // block_size] (0 past the last
                scale); the CPU EP is right. Parity should name `injected_dq` as the culprit.
  manifest.json one entry per model: file sizes, opsets, node counts, the injected node and its
                consumer, and ORT-CPU sanity checks (max |a - b| / max |b| between the outputs
                of torch and NAME.onnx, of NAME.onnx and its opset-21 copy, and of NAME.onnx and
                NAME_dq.onnx: the last is int8 rounding of one bias, small but not zero).
"""
import argparse
import copy
import json
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MODELS = ("resnet50", "vit_b_16", "swin_t")
INPUT_SHAPE = (1, 3, 224, 224)
BLOCK = 16
DQ_OPSET = 21
DQ_IR = 10
# Inputs of these ops that hold a bias, best first; norm shifts only when no bias qualifies.
BIAS_SLOTS = {"Conv": (0, [2]), "Gemm": (0, [2]), "Add": (0, [0, 1]),
              "BatchNormalization": (1, [2]), "LayerNormalization": (1, [2])}


def log(msg):
    print(f"[export] {msg}", flush=True)


def make_non_degenerate(model, torch):
    """Re-draws what torchvision zero-initialises (see the header); returns counts per rule."""
    norm_types = (torch.nn.modules.batchnorm._NormBase, torch.nn.LayerNorm, torch.nn.GroupNorm)
    counts = {"norm_weight": 0, "norm_bias": 0, "bias": 0, "zero_param": 0}
    with torch.no_grad():
        for module in model.modules():
            is_norm = isinstance(module, norm_types)
            for pname, p in module.named_parameters(recurse=False):
                if is_norm and pname == "weight":
                    p.normal_(1.0, 0.1)
                    counts["norm_weight"] += 1
                elif is_norm and pname == "bias":
                    p.normal_(0.0, 0.1)
                    counts["norm_bias"] += 1
                elif pname.endswith("bias") and p.dim() == 1:
                    p.normal_(0.0, 0.1)
                    counts["bias"] += 1
                elif not torch.any(p):  # e.g. ViT's zero head weight and class token
                    fan_in = p[0].numel() if p.dim() >= 2 else 1
                    p.normal_(0.0, 1.0 / math.sqrt(max(fan_in, 1)) if p.dim() >= 2 else 0.02)
                    counts["zero_param"] += 1
    return counts


def export(torch, model, x, path, opset):
    """TorchScript exporter (opset 17, constant folding: BatchNorm folds into Conv biases); the
    dynamo exporter (opset >= 18) only where the former is gone."""
    try:
        torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                          opset_version=opset, do_constant_folding=True, dynamo=False)
        return "torchscript"
    except TypeError:  # a torch without the dynamo keyword: TorchScript is its only exporter
        torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                          opset_version=opset, do_constant_folding=True)
        return "torchscript"
    except Exception as e:  # noqa: BLE001 - report and try the other exporter
        log(f"TorchScript export failed ({type(e).__name__}: {e}); trying dynamo=True")
        torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                          opset_version=max(opset, 18), dynamo=True, external_data=False)
        return "dynamo"


def rename_io(m, path):
    """Makes the graph's input `x` and output `y` where an exporter chose other names."""
    renames = {}
    if m.graph.input[0].name != "x":
        renames[m.graph.input[0].name] = "x"
    if m.graph.output[0].name != "y":
        renames[m.graph.output[0].name] = "y"
    if not renames:
        return
    for v in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info):
        v.name = renames.get(v.name, v.name)
    for n in m.graph.node:
        for i, name in enumerate(n.input):
            n.input[i] = renames.get(name, name)
        for i, name in enumerate(n.output):
            n.output[i] = renames.get(name, name)
    onnx.save(m, path)
    log(f"renamed {renames}")


def default_opset(m):
    return next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), None)


def ort_run(path, x):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})


def norm_err(a_list, b_list):
    """max over outputs of max|a - b| / max|b| (b is the reference)."""
    worst = 0.0
    for a, b in zip(a_list, b_list):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        denom = float(np.max(np.abs(b))) or 1.0
        worst = max(worst, float(np.max(np.abs(a - b))) / denom)
    return worst


def raise_opset(m, path_tmp, x, ref_out):
    """Copy of m at opset 21 / IR 10: onnx's version converter, else a plain opset_import edit;
    either must reproduce ref_out on ORT CPU."""
    from onnx import version_converter
    tries = []
    try:
        conv = version_converter.convert_version(m, DQ_OPSET)
        tries.append(("version_converter", conv))
    except Exception as e:  # noqa: BLE001
        log(f"version_converter failed: {type(e).__name__}: {str(e)[:300]}")
    edited = copy.deepcopy(m)
    for o in edited.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = DQ_OPSET
    tries.append(("opset_import edit", edited))
    for how, cand in tries:
        cand.ir_version = max(cand.ir_version, DQ_IR)
        try:
            onnx.save(cand, path_tmp)
            err = norm_err(ort_run(path_tmp, x), ref_out)
        except Exception as e:  # noqa: BLE001
            log(f"opset {DQ_OPSET} by {how} does not run on ORT CPU: {type(e).__name__}: {str(e)[:300]}")
            continue
        finally:
            if os.path.exists(path_tmp):
                os.remove(path_tmp)
        if err <= 1e-5:
            return cand, how, err
        log(f"opset {DQ_OPSET} by {how} changes the outputs (normalized error {err:.3g}); not used")
    raise RuntimeError(f"could not raise the opset to {DQ_OPSET}")


def pick_bias(g):
    """(node index, input slot, initializer) of the qualifying bias nearest the middle of the node
    list; Conv/Gemm/Add biases before norm shifts."""
    inits = {t.name: t for t in g.initializer}
    mid = len(g.node) / 2.0
    best = None
    for idx, node in enumerate(g.node):
        rank, slots = BIAS_SLOTS.get(node.op_type, (None, []))
        for slot in slots:
            if slot >= len(node.input) or node.input[slot] not in inits:
                continue
            t = inits[node.input[slot]]
            if t.data_type != TensorProto.FLOAT or len(t.dims) != 1:
                continue
            n = t.dims[0]
            if n < 2 * BLOCK or n % BLOCK:
                continue
            key = (rank, abs(idx - mid), idx)
            if best is None or key < best[0]:
                best = (key, idx, slot, t)
    if best is None:
        raise RuntimeError("no 1-D float bias of length >= 32 and divisible by 16 found")
    return best[1], best[2], best[3]


def inject_dq(m):
    """Replaces one mid-network bias by `injected_dq` (in place); returns a description."""
    g = m.graph
    idx, slot, t = pick_bias(g)
    consumer = g.node[idx]
    bias = numpy_helper.to_array(t).astype(np.float32)
    blocks = bias.reshape(-1, BLOCK)
    scale = np.maximum(np.abs(blocks).max(axis=1) / 127.0, 1e-8).astype(np.float32)
    q = np.clip(np.round(blocks / scale[:, None]), -127, 127).astype(np.int8).reshape(-1)
    zp = np.zeros(scale.shape, np.int8)
    base = "injected_dq"
    g.initializer.extend([numpy_helper.from_array(q, base + "_q"),
                          numpy_helper.from_array(scale, base + "_scale"),
                          numpy_helper.from_array(zp, base + "_zero_point")])
    dq = helper.make_node("DequantizeLinear", [base + "_q", base + "_scale", base + "_zero_point"],
                          [base + "_out"], name=base, axis=0, block_size=BLOCK)
    original = consumer.input[slot]
    consumer.input[slot] = base + "_out"
    g.node.insert(idx, dq)
    still_used = any(original in n.input for n in g.node) or any(o.name == original for o in g.output)
    if not still_used:
        keep = [i for i in g.initializer if i.name != original]
        del g.initializer[:]
        g.initializer.extend(keep)
    dequant = (q.reshape(-1, BLOCK).astype(np.float32) * scale[:, None]).reshape(-1)
    return {"node": base, "consumer": consumer.name, "consumer_op": consumer.op_type,
            "consumer_index": idx + 1, "node_count": len(g.node), "replaced_initializer": original,
            "length": int(bias.size), "scales": int(scale.size), "block_size": BLOCK,
            "bias_max_abs": float(np.abs(bias).max()),
            "quantization_max_abs_err": float(np.abs(dequant - bias).max())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for the .onnx files and manifest.json")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()

    import torch
    import torchvision
    if hasattr(torch.backends, "mha"):  # the fused MHA kernel has no ONNX export; use the plain ops
        torch.backends.mha.set_fastpath_enabled(False)
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    x = torch.rand(*INPUT_SHAPE)  # the ORT sanity checks' input, range [0, 1) like the probes'
    xn = x.numpy()
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {"models": {}}
    if os.path.exists(manifest_path):  # a later call with --models adds to it
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest.update(torch=torch.__version__, torchvision=torchvision.__version__, onnx=onnx.__version__)
    try:
        import onnxruntime
        manifest["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    for name in [s for s in args.models.split(",") if s]:
        if name not in MODELS:
            sys.exit(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        try:
            t0 = time.time()
            model = getattr(torchvision.models, name)(weights=None).eval()
            redraw = make_non_degenerate(model, torch)
            with torch.no_grad():
                ref = [model(x).numpy()]
            path = os.path.join(args.out, name + ".onnx")
            exporter = export(torch, model, x, path, args.opset)
            m = onnx.load(path)
            rename_io(m, path)
            entry = {"path": path, "file_bytes": os.path.getsize(path), "exporter": exporter,
                     "opset": default_opset(m), "ir_version": m.ir_version, "node_count": len(m.graph.node),
                     "input": "x", "input_shape": list(INPUT_SHAPE), "redrawn": redraw,
                     "torch_output_max_abs": float(np.abs(ref[0]).max()),
                     "torch_output_std": float(ref[0].std())}
            clean_out = ort_run(path, xn)
            entry["ort_cpu_vs_torch"] = norm_err(clean_out, ref)
            dq_path = os.path.join(args.out, name + "_dq.onnx")
            raised, how, err = raise_opset(m, dq_path + ".tmp", xn, clean_out)
            entry["dq"] = {"path": dq_path, "opset_raise": how, "opset21_vs_clean": err}
            entry["dq"].update(inject_dq(raised))
            onnx.save(raised, dq_path)
            entry["dq"]["file_bytes"] = os.path.getsize(dq_path)
            entry["dq"]["opset"] = default_opset(raised)
            entry["dq"]["ir_version"] = raised.ir_version
            entry["dq"]["ort_cpu_dq_vs_clean"] = norm_err(ort_run(dq_path, xn), clean_out)
            entry["seconds"] = round(time.time() - t0, 1)
            manifest["models"][name] = entry
            log(f"{name}: {entry['node_count']} nodes, {entry['file_bytes'] / 2**20:.1f} MiB, opset "
                f"{entry['opset']} ({exporter}); ORT CPU vs torch {entry['ort_cpu_vs_torch']:.2e}; "
                f"injected_dq -> {entry['dq']['consumer']} ({entry['dq']['consumer_op']}, node "
                f"{entry['dq']['consumer_index']}/{entry['dq']['node_count']}, {entry['dq']['length']} values, "
                f"{entry['dq']['scales']} scales), opset 21 by {how}; ORT CPU dq vs clean "
                f"{entry['dq']['ort_cpu_dq_vs_clean']:.2e}; {entry['seconds']} s")
        except Exception as e:  # noqa: BLE001 - one model's failure must not stop the others
            log(f"{name}: FAILED: {type(e).__name__}: {e}")
            manifest["models"][name] = {"error": f"{type(e).__name__}: {str(e)[:2000]}"}
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
