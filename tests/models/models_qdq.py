#!/usr/bin/python3
"""QDQ-quantized models in the forms quantize tooling ships, with real trained weights.

Picked up by gen_models.py (GENERATORS below). The weights are taken from PP-OCRv4's text
recogniser (third_party/models/ch_PP-OCRv4_rec_infer.onnx, fetched by scripts/bootstrap.sh; no
file is written without it) and quantized here with numpy the way ORT's quantize tools and
transformers.js do: symmetric int8 or asymmetric uint8, per tensor, per output channel or in
blocks, with and without quantized activations. They calibrate the reference: ORT's CPU EP at
opt level "all" rewrites DequantizeLinear -> MatMul into an integer kernel that also quantizes
the activation, so its numbers are not the model's, while backends that compute the graph as
written agree with the unoptimized CPU EP to float noise.

  qdq_w8_matmul               opset 13  weight-only int8, per tensor      (transformers.js' q8)
  qdq_w8_matmul_u8_channel    opset 13  weight-only uint8, per channel, zero points
  qdq_w8_matmul_opset19       opset 19  weight-only int8, per channel
  qdq_w8_matmul_blocked       opset 21  weight-only int8, blocks of 16 along K (2-D scale)
  qdq_full_u8_matmul          opset 13  full QDQ: uint8 activations in and out, int8 weights
  qdq_full_s8_conv_channel    opset 19  full QDQ 3x3 Conv: int8 activations, per-channel int8
                                        weights, int32 bias
  qdq_full_s8_matmul_opset21  opset 21  full QDQ MatMul, int8 activations, per-channel weights
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

try:
    from gen_models import make_model as _make_model
except ImportError:  # imported on its own, not through gen_models
    _make_model = None

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.join(HERE, "..", "..", "third_party", "models", "ch_PP-OCRv4_rec_infer.onnx")
_WEIGHTS = {}


def _model(nodes, inputs, outputs, initializers, opset):
    """gen_models' helper (IR 8) with any opset: python3-onnx 1.12's helpers take 19 and 21 as
    numbers (its checker stops at 17, so gen_models skips checking those)."""
    if _make_model is not None:
        return _make_model(nodes, inputs, outputs, initializers, opset=opset, name="qdq")
    graph = helper.make_graph(nodes, "qdq", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="parity-tests")
    model.ir_version = 8
    return model


def _weight(name):
    """A trained float weight of PP-OCRv4 rec (initializer or Constant node output)."""
    if not _WEIGHTS:
        import onnx
        m = onnx.load(REC)
        for t in m.graph.initializer:
            _WEIGHTS[t.name] = numpy_helper.to_array(t)
        for n in m.graph.node:
            if n.op_type == "Constant":
                _WEIGHTS[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    return _WEIGHTS[name].astype(np.float32)


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def _sym_int8(w, axis=None):
    """Symmetric int8 (zero point 0), per tensor or per slice along `axis`."""
    amax = np.abs(w).max() if axis is None else np.abs(w).max(axis=tuple(i for i in range(w.ndim) if i != axis))
    scale = (np.maximum(amax, 1e-8) / 127).astype(np.float32)
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale, np.zeros_like(scale, dtype=np.int8)


def _asym_uint8(w, axis):
    """Asymmetric uint8 with a zero point per slice along `axis` (ORT's quantize_static style)."""
    other = tuple(i for i in range(w.ndim) if i != axis)
    lo, hi = np.minimum(w.min(axis=other), 0), np.maximum(w.max(axis=other), 0)
    scale = ((hi - lo) / 255).astype(np.float32)
    zp = np.clip(np.round(-lo / scale), 0, 255).astype(np.uint8)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)) + zp.reshape(shape), 0, 255).astype(np.uint8)
    return q, scale, zp


def _act(lo, hi, dtype):
    """Scale and zero point of an activation in [lo, hi] (uint8 asymmetric, int8 symmetric)."""
    if dtype == np.uint8:
        scale = np.float32((hi - lo) / 255)
        return scale, np.uint8(np.clip(np.round(-lo / scale), 0, 255))
    return np.float32(max(abs(lo), abs(hi)) / 127), np.int8(0)


def _weight_only(name, weight, q, scale, zp, opset, **dq_attrs):
    k, n = weight.shape
    nodes = [helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zp"], ["w"], name="dq_w", **dq_attrs),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [4, k])], [_vi("y", TensorProto.FLOAT, [4, n])],
                  [_init("w_q", q), _init("w_scale", scale), _init("w_zp", zp)], opset)


def qdq_w8_matmul():
    """x[4,120] -> MatMul(DequantizeLinear(int8 W, one scale)) -> y[4,120]; W = linear_78."""
    w = _weight("linear_78.w_0")
    q, scale, zp = _sym_int8(w)
    return _weight_only("qdq_w8_matmul", w, q, scale, zp, 13)


def qdq_w8_matmul_u8_channel():
    """uint8 W with a scale and zero point per output column (axis 1); W = linear_80 [240,120]."""
    w = _weight("linear_80.w_0")
    q, scale, zp = _asym_uint8(w, axis=1)
    return _weight_only("qdq_w8_matmul_u8_channel", w, q, scale, zp, 13, axis=1)


def qdq_w8_matmul_opset19():
    """int8 W per output column at opset 19; W = linear_77 [120,360]."""
    w = _weight("linear_77.w_0")
    q, scale, zp = _sym_int8(w, axis=1)
    return _weight_only("qdq_w8_matmul_opset19", w, q, scale, zp, 19, axis=1)


def qdq_w8_matmul_blocked():
    """int8 W in blocks of 16 rows along K (opset 21 block_size, 2-D scale [15,120]); W = linear_80."""
    w = _weight("linear_80.w_0")
    k, n = w.shape
    blocks = w.reshape(k // 16, 16, n)
    scale = (np.maximum(np.abs(blocks).max(axis=1), 1e-8) / 127).astype(np.float32)
    q = np.clip(np.round(blocks / scale[:, None, :]), -127, 127).astype(np.int8).reshape(k, n)
    return _weight_only("qdq_w8_matmul_blocked", w, q, scale, np.zeros_like(scale, dtype=np.int8), 21,
                        axis=0, block_size=16)


def _full_matmul(weight, act_dtype, w_axis, opset):
    k, n = weight.shape
    q, w_scale, w_zp = _sym_int8(weight, axis=w_axis)
    rng = np.random.default_rng(36)
    y_est = rng.uniform(-1, 1, (256, k)).astype(np.float32) @ weight
    x_scale, x_zp = _act(-1.0, 1.0, act_dtype)
    y_scale, y_zp = _act(float(y_est.min()), float(y_est.max()), act_dtype)
    dq_attrs = {} if w_axis is None else {"axis": w_axis}
    nodes = [helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["x_q"], name="q_x"),
             helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zp"], ["x_dq"], name="dq_x"),
             helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zp"], ["w"], name="dq_w", **dq_attrs),
             helper.make_node("MatMul", ["x_dq", "w"], ["mm"], name="matmul"),
             helper.make_node("QuantizeLinear", ["mm", "y_scale", "y_zp"], ["y_q"], name="q_y"),
             helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zp"], ["y"], name="dq_y")]
    inits = [_init("x_scale", x_scale), _init("x_zp", x_zp), _init("w_q", q), _init("w_scale", w_scale),
             _init("w_zp", w_zp), _init("y_scale", y_scale), _init("y_zp", y_zp)]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [4, k])], [_vi("y", TensorProto.FLOAT, [4, n])],
                  inits, opset)


def qdq_full_u8_matmul():
    """Full QDQ MatMul: x -> Q/DQ (uint8) -> MatMul(DQ(int8 W)) -> Q/DQ (uint8) -> y; W = linear_78."""
    return _full_matmul(_weight("linear_78.w_0"), np.uint8, None, 13)


def qdq_full_s8_matmul_opset21():
    """Full QDQ MatMul at opset 21: int8 activations, int8 W per output column; W = linear_80."""
    return _full_matmul(_weight("linear_80.w_0"), np.int8, 1, 21)


def qdq_full_s8_conv_channel():
    """Full QDQ 3x3 Conv (PP-OCRv4 rec's stem, 16x3x3x3) at opset 19: int8 activations, per-channel
    int8 weights, int32 bias at scale x_scale * w_scale; x[1,3,16,16] -> y[1,16,8,8]."""
    w = _weight("conv2d_10.w_0")
    q, w_scale, w_zp = _sym_int8(w, axis=0)
    x_scale, x_zp = _act(-1.0, 1.0, np.int8)
    bias = np.random.default_rng(19).normal(0, 0.1, w.shape[0]).astype(np.float32)
    b_scale = (x_scale * w_scale).astype(np.float32)
    b_q = np.round(bias / b_scale).astype(np.int32)
    rng = np.random.default_rng(36)
    xs = rng.uniform(-1, 1, (64, 27)).astype(np.float32)
    y_est = xs @ w.reshape(w.shape[0], -1).T
    y_scale, y_zp = _act(float(y_est.min()) - 0.3, float(y_est.max()) + 0.3, np.int8)
    nodes = [helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["x_q"], name="q_x"),
             helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zp"], ["x_dq"], name="dq_x"),
             helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zp"], ["w"], name="dq_w", axis=0),
             helper.make_node("DequantizeLinear", ["b_q", "b_scale"], ["b"], name="dq_b", axis=0),
             helper.make_node("Conv", ["x_dq", "w", "b"], ["conv"], name="conv", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("QuantizeLinear", ["conv", "y_scale", "y_zp"], ["y_q"], name="q_y"),
             helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zp"], ["y"], name="dq_y")]
    inits = [_init("x_scale", x_scale), _init("x_zp", x_zp), _init("w_q", q), _init("w_scale", w_scale),
             _init("w_zp", w_zp), _init("b_q", b_q), _init("b_scale", b_scale), _init("y_scale", y_scale),
             _init("y_zp", y_zp)]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                  [_vi("y", TensorProto.FLOAT, [1, w.shape[0], 8, 8])], inits, 19)


GENERATORS = [qdq_w8_matmul, qdq_w8_matmul_u8_channel, qdq_w8_matmul_opset19, qdq_w8_matmul_blocked,
              qdq_full_u8_matmul, qdq_full_s8_matmul_opset21, qdq_full_s8_conv_channel]
if not os.path.exists(REC):  # no trained weights without the bootstrap's models: no QDQ models
    GENERATORS = []
