"""Image-to-image models for the guard runtime (parity/guard.h): a x2 upscaler that keeps brightness,
and its int8 export that ORT 1.30's WebGPU EP computes wrong.

guard_upscale:      x[1,3,h,w] -> smooth (depthwise 3x3, pad 1, weights sum to 1)
                    -> mix (1x1 Conv, each row of the 3x3 colour matrix sums to 1)
                    -> Resize x2 (linear) -> y[1,3,2h,2w]
                    Every stage keeps the mean, so |mean(y) - mean(x)| is ~0: the seed's brightness
                    check holds on a correct backend. Receptive field radius: 2 input pixels, so
                    tiles with 16 px of overlap reassemble to the whole-image result.
guard_upscale_int8: the same, but the colour matrix comes from a blocked 1-D DequantizeLinear
                    (9 int8 values, block_size 3, one scale per row), as a quantizer writes it. ORT
                    1.30's WebGPU EP, where it runs that node itself (opt level disabled: no constant
                    folding), scales element i by scale[i] and reads 0 past the third scale
                    (models_webgpu_bugs.py, bug 1): rows 2 and 3 of the matrix become 0, so two of
                    the three output channels are black. Shapes and the run are fine; only a check
                    of the numbers catches it.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_SMOOTH = np.array([[0.05, 0.1, 0.05], [0.1, 0.4, 0.1], [0.05, 0.1, 0.05]], np.float32)
_MIX_Q = np.array([8, 1, 1, 1, 8, 1, 1, 1, 8], np.int8)
_MIX_SCALE = np.array([0.1, 0.1, 0.1], np.float32)  # one per row (block of 3)


def _io():
    return ([_vi("x", TensorProto.FLOAT, [1, 3, "h", "w"])], [_vi("y", TensorProto.FLOAT, [1, 3, "oh", "ow"])])


def _tail(mix_name):
    # kernel_shape as exporters write it (onnxruntime-web's JSEP refuses a Conv without it: lint rule
    # conv-no-kernel-shape).
    return [helper.make_node("Conv", ["x", "smooth"], ["s"], group=3, kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                             name="smooth"),
            helper.make_node("Conv", ["s", mix_name], ["m"], kernel_shape=[1, 1], name="mix"),
            helper.make_node("Resize", ["m", "", "scales"], ["y"], mode="linear", name="upscale")]


def _common():
    return [_init("smooth", np.tile(_SMOOTH, (3, 1, 1, 1)).reshape(3, 1, 3, 3)),
            _init("scales", np.array([1, 1, 2, 2], np.float32))]


def guard_upscale():
    mix = (_MIX_Q.astype(np.float32) * np.repeat(_MIX_SCALE, 3)).reshape(3, 3, 1, 1)
    inputs, outputs = _io()
    return _model(_tail("mix_w"), inputs, outputs, _common() + [_init("mix_w", mix)])


def guard_upscale_int8():
    nodes = [helper.make_node("DequantizeLinear", ["mix_q", "mix_scale"], ["mix_flat"], axis=0, block_size=3,
                              name="dq_mix"),
             helper.make_node("Reshape", ["mix_flat", "mix_shape"], ["mix_w"], name="mix_to_4d")]
    inputs, outputs = _io()
    return _model(nodes + _tail("mix_w"), inputs, outputs,
                  _common() + [_init("mix_q", _MIX_Q), _init("mix_scale", _MIX_SCALE),
                               _init("mix_shape", np.array([3, 3, 1, 1], np.int64))])


GENERATORS = [guard_upscale, guard_upscale_int8]
