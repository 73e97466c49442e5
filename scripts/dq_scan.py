#!/usr/bin/python3
# Boundary scan of DequantizeLinear in weight-only QDQ MatMuls, as ONNX backend-test folders
# (model.onnx + test_data_set_0, expected outputs from numpy in float64) over opset, dtype, scale
# layout, zero point, size and weight-as-input (docs/findings/web-jsep-dq-per-tensor-scale):
#   python3 scripts/dq_scan.py SUITE
#   parity conformance --suite SUITE --backends cpu,web-jsep,web-webgpu --tol '*=1e-4,1e-3'
import itertools, os, sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(0)
def case(opset, dt, layout, zp, K, N, xin):
    name = f"test_dq_o{opset}_{dt}_{layout}_zp{zp}_k{K}_n{N}_{'xin' if xin else 'xw'}"
    d = os.path.join(out, name); os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    np_dt = np.int8 if dt == "i8" else np.uint8
    lo, hi = (-127, 127) if dt == "i8" else (0, 255)
    w = rng.integers(lo, hi + 1, size=(K, N)).astype(np_dt)
    scale = (rng.uniform(0.01, 0.05, size=(N,)) if layout == "ch" else np.array(0.02)).astype(np.float32)
    zshape = scale.shape
    if zp == "none": zpv = None
    elif zp == "zero": zpv = np.zeros(zshape, np_dt)
    else: zpv = (np.full(zshape, 3 if dt == "i8" else 128, np_dt) if layout == "t" else rng.integers(100 if dt=="u8" else -20, 150 if dt=="u8" else 20, size=zshape).astype(np_dt))
    x = rng.uniform(-1, 1, size=(2, K)).astype(np.float32)
    inits = [numpy_helper.from_array(scale, "scale")]
    dq_in = ["w", "scale"] + (["zp"] if zpv is not None else [])
    if zpv is not None: inits.append(numpy_helper.from_array(zpv, "zp"))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, K])]
    if xin: inputs.append(helper.make_tensor_value_info("w", TensorProto.INT8 if dt == "i8" else TensorProto.UINT8, [K, N]))
    else: inits.append(numpy_helper.from_array(w, "w"))
    attrs = {"axis": 1} if layout == "ch" else {}
    nodes = [helper.make_node("DequantizeLinear", dq_in, ["wf"], name="dq", **attrs),
             helper.make_node("MatMul", ["x", "wf"], ["y"], name="mm")]
    g = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, N])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]); m.ir_version = 8
    open(os.path.join(d, "model.onnx"), "wb").write(m.SerializeToString())
    wf = (w.astype(np.float64) - (zpv.astype(np.float64) if zpv is not None else 0)) * scale.astype(np.float64)
    y = (x.astype(np.float64) @ wf).astype(np.float32)
    ins = [x] + ([w] if xin else [])
    for i, t in enumerate(ins):
        open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb").write(numpy_helper.from_array(t, inputs[i].name).SerializeToString())
    open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb").write(numpy_helper.from_array(y, "y").SerializeToString())
for opset, dt, layout, zp in itertools.product([13, 19, 21], ["i8", "u8"], ["t", "ch"], ["none", "zero", "nz"]):
    case(opset, dt, layout, zp, 96, 64, False)
for K, N in [(4, 4), (8, 8), (5, 3), (16, 16), (33, 17), (64, 120), (256, 96)]:
    case(13, "i8", "t", "none", K, N, False)
    case(19, "i8", "ch", "none", K, N, False)
for opset, dt, layout, zp in itertools.product([13, 19], ["i8", "u8"], ["t", "ch"], ["none", "nz"]):
    case(opset, dt, layout, zp, 96, 64, True)
