#!/usr/bin/python3
"""Models that show real miscomputes of ONNX Runtime 1.30.0's native WebGPU EP.

Picked up by gen_models.py (GENERATORS below). Each bug has a single-node model and a
multi-layer model in which the culprit node sits in the middle and is the ONLY node whose output
differs between the CPU EP and the WebGPU EP (every other node computes correctly from what it is
given), so a bisecting tool has exactly one node to find. `webgpu_clean_multilayer` is the
control: the same layout as the DQ multi-layer model with a per-axis DequantizeLinear in place
of the blocked one, where every node matches.

Observed with ORT 1.30.0 (npm onnxruntime-node), WebGPU EP on SwiftShader Vulkan, both with and
without session.disable_cpu_ep_fallback=1 (every node here runs on the WebGPU EP; ORT's profiler
names WebGpuExecutionProvider for each kernel). The numbers are deterministic, and the same
numbers come out on an NVIDIA H200 through NVIDIA's Vulkan driver: the bugs are in ORT's WebGPU
kernels, not in SwiftShader.

Bug 1 (DequantizeLinear, opset 21, block_size on a 1-D input): element i is scaled by scale[i]
(and zero_point[i]) instead of scale[i // block_size]; once i reaches len(scale) the read is out
of bounds and the output is 0. 2-D/3-D blocked inputs and 1-D per-axis inputs are correct.

Bug 2 (Slice with a negative step): the start is ignored and the slice always begins at the last
element of the axis (dim - 1); the output shape is right. A start of -1 (or >= dim - 1) is
therefore correct by luck; x[..., 7::-1] is not.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

try:
    from gen_models import make_model as _make_model
except ImportError:  # imported on its own, not through gen_models
    _make_model = None


def _model(nodes, inputs, outputs, initializers=(), opset=21):
    """The gen_models helper (IR 8) with the opset these bugs need (DequantizeLinear block_size
    needs 21; python3-onnx 1.12's checker stops at 17, so gen_models skips it for these)."""
    if _make_model is not None:
        return _make_model(nodes, inputs, outputs, initializers, opset=opset, name="webgpu_bug")
    graph = helper.make_graph(nodes, "webgpu_bug", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="parity-tests")
    model.ir_version = 8
    return model


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


# ---------------------------------------------------------------------------------------------
# Bug 1: blocked 1-D DequantizeLinear


def webgpu_bug_dq_blocked_1d():
    """int8 q[8] (graph input) -> DequantizeLinear(axis=0, block_size=2, opset 21) with
    scale [1, 10, 100, 1000] and zero_point [0, 0, 0, 0] (initializers) -> y[8].

    q = [1, 2, 3, 4, 5, 6, 7, 8]:
      CPU    y = [1, 2, 30, 40, 500, 600, 7000, 8000]   (q[i] * scale[i // 2])
      WebGPU y = [1, 20, 300, 4000, 0, 0, 0, 0]         (q[i] * scale[i], 0 past the 4 scales)
    max_abs 8000, 7 of 8 elements wrong. Same with q, scale and zero_point all as graph inputs,
    with uint8, block sizes 4/16, length 30/64, and with or without zero_point. The parity
    tool's default random int8 inputs in [0, 10) show it too.
    """
    node = helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"],
                            axis=0, block_size=2, name="dq_blocked_1d")
    return _model([node],
                  [_vi("q", TensorProto.INT8, [8])],
                  [_vi("y", TensorProto.FLOAT, [8])],
                  [_init("scale", np.array([1, 10, 100, 1000], np.float32)),
                   _init("zero_point", np.zeros(4, np.int8))])


def _dq_multilayer(blocked):
    rng = np.random.default_rng(21)
    w1 = (rng.standard_normal((16, 16)) * 0.5).astype(np.float32)
    w2 = (rng.standard_normal((16, 8)) * 0.5).astype(np.float32)
    if blocked:  # 4 scales, one per block of 4
        scale = np.array([0.05, 0.1, 0.2, 0.4], np.float32)
        zero_point = np.array([1, -2, 3, 0], np.int8)
        dq = helper.make_node("DequantizeLinear", ["bias_q", "bias_scale", "bias_zero_point"],
                              ["bias"], axis=0, block_size=4, name="dq_bias")
    else:  # per-axis: one scale per element, the control every backend gets right
        scale = np.repeat(np.array([0.05, 0.1, 0.2, 0.4], np.float32), 4)
        zero_point = np.repeat(np.array([1, -2, 3, 0], np.int8), 4)
        dq = helper.make_node("DequantizeLinear", ["bias_q", "bias_scale", "bias_zero_point"],
                              ["bias"], axis=0, name="dq_bias")
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"], name="matmul1"),
             helper.make_node("Relu", ["h1"], ["h2"], name="relu1"),
             dq,
             helper.make_node("Add", ["h2", "bias"], ["h3"], name="add_bias"),
             helper.make_node("Sigmoid", ["h3"], ["h4"], name="sigmoid"),
             helper.make_node("MatMul", ["h4", "w2"], ["h5"], name="matmul2"),
             helper.make_node("Softmax", ["h5"], ["y"], axis=-1, name="softmax")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [1, 16]), _vi("bias_q", TensorProto.INT8, [16])],
                  [_vi("y", TensorProto.FLOAT, [1, 8])],
                  [_init("w1", w1), _init("w2", w2), _init("bias_scale", scale),
                   _init("bias_zero_point", zero_point)])


def webgpu_bug_dq_blocked_1d_multilayer():
    """x[1,16] float, bias_q[16] int8 (graph inputs) -> matmul1 -> relu1 -> add_bias -> sigmoid
    -> matmul2 -> softmax -> y[1,8]; the bias of add_bias comes from node `dq_bias`
    (DequantizeLinear, axis 0, block_size 4, 4 scales [0.05, 0.1, 0.2, 0.4], zero points
    [1, -2, 3, 0], opset 21), which produces tensor `bias`.

    `dq_bias` is the only wrong node on WebGPU: `bias` is wrong from element 1 on (element i
    uses scale[i], elements 4..15 read past the 4 scales and give 0). Every other node, fed
    the same inputs, matches the CPU EP; the error then spreads to h3, h4, h5 and y.
    bias_q = 0..15 (x any): CPU bias = [-0.05, 0, 0.05, 0.1, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2,
    1.4, 1.6, 4.8, 5.2, 5.6, 6.0]; WebGPU bias = [-0.05, 0.3, -0.2, 1.2, 0, 0, ..., 0].
    Seeded random inputs (x uniform [-1,1], bias_q int8 in [0,10)): y max_abs 0.07-0.14,
    every element of y wrong.
    """
    return _dq_multilayer(blocked=True)


def webgpu_clean_multilayer():
    """Control for webgpu_bug_dq_blocked_1d_multilayer: the same seven nodes, names, inputs
    and weights, but `dq_bias` is a per-axis DequantizeLinear (16 scales, each block's scale
    repeated, so the intended bias is identical). Every node matches CPU on WebGPU
    (max_abs ~1e-8)."""
    return _dq_multilayer(blocked=False)


# ---------------------------------------------------------------------------------------------
# Bug 2: Slice with a negative step ignores its start


def webgpu_bug_slice_negative_step():
    """x[3,10] float (graph input) -> Slice(starts=[7], ends=[INT64_MIN], axes=[1],
    steps=[-1]) -> y[3,8], i.e. x[:, 7::-1] (starts/ends/axes/steps are initializers, opset 13).

    x = arange(30).reshape(3,10):
      CPU    y[0] = [7, 6, 5, 4, 3, 2, 1, 0]
      WebGPU y[0] = [9, 8, 7, 6, 5, 4, 3, 2]   (starts at dim-1 = 9 whatever `starts` says)
    All 24 elements wrong, max_abs 2 here (for random x in [-1,1], max_abs ~1.5). Same with
    opset 10, with starts as a graph input, with steps -2/-3, with any start < dim-1 (e.g.
    [10]: starts 8, ends 1, steps -2: CPU [8,6,4,2], WebGPU [9,7,5,3]), and on the negative-
    step axis of a multi-axis Slice. Starts of -1 or >= dim-1 are (coincidentally) right.
    """
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"],
                            name="slice_reverse")
    return _model([node],
                  [_vi("x", TensorProto.FLOAT, [3, 10])],
                  [_vi("y", TensorProto.FLOAT, [3, 8])],
                  [_init("starts", np.array([7], np.int64)),
                   _init("ends", np.array([np.iinfo(np.int64).min], np.int64)),
                   _init("axes", np.array([1], np.int64)),
                   _init("steps", np.array([-1], np.int64))],
                  opset=13)


def webgpu_bug_slice_negative_step_multilayer():
    """x[2,16] float (graph input) -> matmul1 (16x16) -> tanh -> `slice_reverse` -> mul_scale
    -> add_bias -> relu -> matmul2 (12x4) -> y[2,4] (opset 13).

    `slice_reverse` (Slice starts=[11], ends=[INT64_MIN], axes=[1], steps=[-1], i.e.
    t[:, 11::-1]) producing tensor `rev` [2,12] is the only wrong node on WebGPU: it returns
    t[:, 15:3:-1] (columns 15..4) instead of columns 11..0. Every other node matches CPU given
    the same inputs; the error then spreads to `scaled`, `shifted`, `act` and `y`.
    Seeded random x uniform [-1,1]: rev max_abs ~1.8 (all 24 wrong), y max_abs 2.7-3.3.
    """
    rng = np.random.default_rng(13)
    w1 = (rng.standard_normal((16, 16)) * 0.5).astype(np.float32)
    w2 = (rng.standard_normal((12, 4)) * 0.5).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"], name="matmul1"),
             helper.make_node("Tanh", ["h1"], ["t"], name="tanh"),
             helper.make_node("Slice", ["t", "starts", "ends", "axes", "steps"], ["rev"],
                              name="slice_reverse"),
             helper.make_node("Mul", ["rev", "scale"], ["scaled"], name="mul_scale"),
             helper.make_node("Add", ["scaled", "bias"], ["shifted"], name="add_bias"),
             helper.make_node("Relu", ["shifted"], ["act"], name="relu"),
             helper.make_node("MatMul", ["act", "w2"], ["y"], name="matmul2")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [2, 16])],
                  [_vi("y", TensorProto.FLOAT, [2, 4])],
                  [_init("w1", w1), _init("w2", w2),
                   _init("starts", np.array([11], np.int64)),
                   _init("ends", np.array([np.iinfo(np.int64).min], np.int64)),
                   _init("axes", np.array([1], np.int64)),
                   _init("steps", np.array([-1], np.int64)),
                   _init("scale", np.float32(2.0)),
                   _init("bias", np.linspace(-0.5, 0.5, 12).astype(np.float32))],
                  opset=13)


GENERATORS = [webgpu_bug_dq_blocked_1d, webgpu_bug_dq_blocked_1d_multilayer,
              webgpu_clean_multilayer, webgpu_bug_slice_negative_step,
              webgpu_bug_slice_negative_step_multilayer]
