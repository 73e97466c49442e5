#!/usr/bin/python3
"""A deep residual conv network with realistic magnitudes, for the scale-aware verdict rule
(picked up by gen_models.py through GENERATORS).

Real networks hold activations in the tens after a dozen residual blocks; float32 kernels that sum
hundreds of such terms in another order differ by ~1e-4 in absolute terms, also on elements whose
own value is near zero. A fixed atol of 1e-4 called that a divergence (a false culprit deep in the
network); the scale-aware bound does not. The `_dq` twin replaces one mid-network conv bias by the
real WebGPU miscompute of ORT 1.30.0 (a 1-D DequantizeLinear with block_size 16 on axis 0), which
must still be found at that node.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_CHANNELS = 32
_BLOCKS = 8     # residual blocks of two 3x3 convs: 17 convs with the stem
_DQ_BLOCK = 4   # the block whose second conv takes its bias from the DequantizeLinear
_SIZE = 24      # input [1, 3, 24, 24]


def _deep_resnet(dq_bias):
    rng = np.random.default_rng(1234)
    inits, nodes = [], []

    def conv(name, x, cin, relu, bias_from=None):
        # He-normal weights and biases drawn around 0.1, as after a trained BatchNorm is folded.
        w = (rng.standard_normal((_CHANNELS, cin, 3, 3)) * np.sqrt(2.0 / (cin * 9))).astype(np.float32)
        b = (rng.standard_normal(_CHANNELS) * 0.1).astype(np.float32)
        inits.append(_init(name + "_w", w))
        bias = bias_from
        if bias is None:
            inits.append(_init(name + "_b", b))
            bias = name + "_b"
        nodes.append(helper.make_node("Conv", [x, name + "_w", bias], [name + "_out"], pads=[1, 1, 1, 1],
                                      name=name))
        if not relu:
            return name + "_out"
        nodes.append(helper.make_node("Relu", [name + "_out"], [name + "_relu"], name=name + "_relu"))
        return name + "_relu"

    h = conv("stem", "x", 3, relu=True)
    for k in range(_BLOCKS):
        a = conv(f"block{k}_conv1", h, _CHANNELS, relu=True)
        bias_from = None
        if dq_bias and k == _DQ_BLOCK:
            # Two scales for 32 channels (block_size 16): CPU gives channel c scale[c // 16]; the
            # WebGPU EP reads scale[c] (zero past index 1), so channels 1..31 get a wrong bias.
            q = rng.integers(-100, 100, _CHANNELS).astype(np.int8)
            inits += [_init("bias_q", q), _init("bias_scale", np.array([1.0, 1.5], np.float32)),
                      _init("bias_zero_point", np.zeros(2, np.int8))]
            nodes.append(helper.make_node("DequantizeLinear", ["bias_q", "bias_scale", "bias_zero_point"],
                                          ["dq_bias_out"], axis=0, block_size=16, name="dq_bias"))
            bias_from = "dq_bias_out"
        b = conv(f"block{k}_conv2", a, _CHANNELS, relu=False, bias_from=bias_from)
        nodes.append(helper.make_node("Add", [h, b], [f"block{k}_sum"], name=f"block{k}_add"))
        nodes.append(helper.make_node("Relu", [f"block{k}_sum"], [f"block{k}_out"], name=f"block{k}_relu"))
        h = f"block{k}_out"
    nodes.append(helper.make_node("GlobalAveragePool", [h], ["pooled"], name="pool"))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], name="flatten"))
    head = (rng.standard_normal((_CHANNELS, 10)) * 0.2).astype(np.float32)
    inits.append(_init("head_w", head))
    nodes.append(helper.make_node("MatMul", ["features", "head_w"], ["logits"], name="head"))
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 3, _SIZE, _SIZE])],
                  [_vi("logits", TensorProto.FLOAT, [1, 10])], inits)


def deep_resnet():
    """x[1,3,24,24] -> stem conv -> 8 residual blocks (conv-relu-conv, add, relu; 32 channels) ->
    global pool -> MatMul head -> logits[1,10]. Activations reach ~10-60; every node is right on
    WebGPU, and on SwiftShader the conv outputs differ from CPU by up to ~1e-4 absolute."""
    return _deep_resnet(dq_bias=False)


def deep_resnet_dq():
    """deep_resnet with block4_conv2's bias computed by `dq_bias` (DequantizeLinear, int8
    initializer, block_size 16, axis 0, opset 21): the ORT 1.30.0 WebGPU miscompute, mid-network."""
    return _deep_resnet(dq_bias=True)


GENERATORS = [deep_resnet, deep_resnet_dq]
