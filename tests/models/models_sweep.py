"""A model pair for `parity sweep`: the same small convolutional net as fp32 and as an int8 export.

sweep_conv:      x[1,3,h,w] -> conv1 (3->8, 3x3, pad 1) -> add_bias -> relu -> conv2 (8->3, 1x1) -> y
sweep_conv_int8: the same graph, but conv1's weights come from a per-channel DequantizeLinear of
                 int8 weights and add_bias's bias from a blocked 1-D DequantizeLinear (axis 0,
                 block_size 4: two scales for eight values), as quantizers write it. The fp32
                 model's weights and bias are exactly the dequantized values, so on a correct
                 backend both files compute the same numbers; the int8 file is the smaller one.

The blocked 1-D DequantizeLinear is the ORT 1.30 WebGPU bug of models_webgpu_bugs.py: where the
WebGPU EP runs that node itself (no constant folding: opt level disabled) the bias is wrong.
Both have symbolic spatial dims, for the sweep's size axis.

sweep_pool_dilated: x[1,1,h,w] -> MaxPool (2x2, stride 1, dilations 2) -> y[1,1,h-2,w-2]. For
`parity manifest verify` across onnxruntime-web releases: the web-webgpu bundle of 1.22.0 runs
JSEP, whose MaxPool ignores `dilations` (it returns the undilated maximum; docs/browser.md), while
1.30.0's runs the native WebGPU EP, which is right. So a declaration "web-webgpu runs this file"
proven with 1.30.0 no longer holds under 1.22.0, and one disproven with 1.22.0 holds under 1.30.0.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_RNG = np.random.default_rng(33)
_W1_Q = _RNG.integers(-127, 128, size=(8, 3, 3, 3)).astype(np.int8)
_W1_SCALE = np.linspace(0.002, 0.009, 8).astype(np.float32)
_B_Q = np.array([10, -20, 30, -40, 50, -60, 70, -80], np.int8)
_B_SCALE = np.array([0.01, 0.03], np.float32)  # one per block of 4
_B_ZP = np.array([0, 2], np.int8)
_W2 = (_RNG.standard_normal((3, 8, 1, 1)) * 0.3).astype(np.float32)


def _dequantized():
    w1 = _W1_Q.astype(np.float32) * _W1_SCALE[:, None, None, None]
    blocks = np.repeat(np.arange(2), 4)
    bias = (_B_Q.astype(np.float32) - _B_ZP[blocks]) * _B_SCALE[blocks]
    return w1.astype(np.float32), bias.astype(np.float32)


def _tail(w1_name, bias_name):
    return [helper.make_node("Conv", ["x", w1_name], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
            helper.make_node("Add", ["c1", bias_name], ["c1b"], name="add_bias"),
            helper.make_node("Relu", ["c1b"], ["r1"], name="relu"),
            helper.make_node("Conv", ["r1", "w2"], ["y"], name="conv2")]


def _io():
    return ([_vi("x", TensorProto.FLOAT, [1, 3, "h", "w"])], [_vi("y", TensorProto.FLOAT, [1, 3, "h", "w"])])


def sweep_conv():
    w1, bias = _dequantized()
    inputs, outputs = _io()
    return _model(_tail("w1", "bias4"), inputs, outputs,
                  [_init("w1", w1), _init("bias4", bias.reshape(1, 8, 1, 1)), _init("w2", _W2)])


def sweep_conv_int8():
    inputs, outputs = _io()
    nodes = [helper.make_node("DequantizeLinear", ["w1_q", "w1_scale"], ["w1"], axis=0, name="dq_w1"),
             helper.make_node("DequantizeLinear", ["b_q", "b_scale", "b_zp"], ["bias"], axis=0, block_size=4,
                              name="dq_bias"),
             helper.make_node("Reshape", ["bias", "bias_shape"], ["bias4"], name="bias_to_4d")]
    return _model(nodes + _tail("w1", "bias4"), inputs, outputs,
                  [_init("w1_q", _W1_Q), _init("w1_scale", _W1_SCALE), _init("b_q", _B_Q),
                   _init("b_scale", _B_SCALE), _init("b_zp", _B_ZP),
                   _init("bias_shape", np.array([1, 8, 1, 1], np.int64)), _init("w2", _W2)])


def sweep_pool_dilated():
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[1, 1], dilations=[2, 2],
                              name="pool")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 1, "h", "w"])],
                  [_vi("y", TensorProto.FLOAT, [1, 1, "oh", "ow"])], opset=17)


def sweep_conv_int8_noise():
    """An int8 export that is noise everywhere, on every backend: its weight scales were written
    for another tensor (reversed and a hundred times too large for half the channels). The seed's
    "int8 export is pure noise" case; the reference backend computes it faithfully, so only the
    variant's own quality (cosine against the fp32 model) can catch it."""
    inputs, outputs = _io()
    bad_scale = (_W1_SCALE[::-1] * np.where(np.arange(8) % 2 == 0, 100.0, -1.0)).astype(np.float32)
    bad_w = (_RNG_NOISE.integers(-127, 128, size=_W1_Q.shape)).astype(np.int8)
    nodes = [helper.make_node("DequantizeLinear", ["w1_q", "w1_scale"], ["w1"], axis=0, name="dq_w1")]
    _, bias = _dequantized()
    return _model(nodes + _tail("w1", "bias4"), inputs, outputs,
                  [_init("w1_q", bad_w), _init("w1_scale", bad_scale),
                   _init("bias4", bias.reshape(1, 8, 1, 1)), _init("w2", _W2)])


_RNG_NOISE = np.random.default_rng(34)

GENERATORS = [sweep_conv, sweep_conv_int8, sweep_conv_int8_noise, sweep_pool_dilated]
