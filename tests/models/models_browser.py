#!/usr/bin/python3
"""Models for the browser backends (onnxruntime-web in headless Chromium).

Picked up by gen_models.py (GENERATORS below).

- fp16_image_scale: an fp16 export as converters write them (fp32 image in and out, fp16 weights
  and arithmetic inside). On a WebGPU adapter without 'shader-f16' (SwiftShader) onnxruntime-web's
  JSEP path returns all zeros without an error and the native WebGPU EP fails at run ("requires
  f16 but the device does not support it"); web-wasm computes it right.
- conv_relu_image: a small image network as exporters write it (kernel_shape and strides explicit),
  which all three paths compute right. (conv_image, without kernel_shape, fails on web-jsep: its
  Conv kernel reads "dilations should be 2D" when kernel_shape is omitted, in 1.22.0 and 1.30.0.)
- wasm_oom_expand: needs two 2.25 GiB tensors at once, over the 4 GiB wasm32 heap, so web-wasm
  fails with std::bad_alloc inside onnxruntime-web (a real out-of-memory, no test hook). The CPU
  EP (native, 64-bit) computes it in ~4.5 GiB.
- relu_round_scale: Relu -> Round -> Mul. Neither web WebGPU path has a Round kernel (1.30.0), so
  with CPU fallback the Round runs on wasm (placement CPUExecutionProvider:1) and with fallback=off
  session creation refuses; proves the fallback setting reaches onnxruntime-web.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from gen_models import make_model


def fp16_image_scale():
    """x float32[1,3,H,W] -> Cast fp16 -> Mul(w fp16 [1,3,1,1]) -> Add(b fp16) -> Cast fp32 -> y."""
    w = numpy_helper.from_array(np.array([0.5, 1.5, 2.0], np.float16).reshape(1, 3, 1, 1), "w")
    b = numpy_helper.from_array(np.array([0.25, -0.125, 0.0], np.float16).reshape(1, 3, 1, 1), "b")
    nodes = [helper.make_node("Cast", ["x"], ["x16"], to=TensorProto.FLOAT16, name="to_fp16"),
             helper.make_node("Mul", ["x16", "w"], ["scaled"], name="scale"),
             helper.make_node("Add", ["scaled", "b"], ["shifted"], name="shift"),
             helper.make_node("Cast", ["shifted"], ["y"], to=TensorProto.FLOAT, name="to_fp32")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [w, b])


def conv_relu_image():
    """x float32[1,3,H,W] -> Conv 3x3 (3->8) -> Relu -> Conv 3x3 (8->3) -> Sigmoid -> y."""
    rng = np.random.default_rng(21)
    w1 = numpy_helper.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32), "w1")
    b1 = numpy_helper.from_array((rng.standard_normal(8) * 0.1).astype(np.float32), "b1")
    w2 = numpy_helper.from_array((rng.standard_normal((3, 8, 3, 3)) * 0.3).astype(np.float32), "w2")
    conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1])
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", **conv),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", **conv),
             helper.make_node("Sigmoid", ["c2"], ["y"], name="sigmoid")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [w1, b1, w2])


def wasm_oom_expand():
    """x float32[1] -> Expand to 603979776 elements (2.25 GiB) -> Add(big, big) -> ReduceMax -> y[]."""
    shape = numpy_helper.from_array(np.array([9 << 26], np.int64), "shape")
    nodes = [helper.make_node("Expand", ["x", "shape"], ["big"], name="expand"),
             helper.make_node("Add", ["big", "big"], ["doubled"], name="double"),
             helper.make_node("ReduceMax", ["doubled"], ["y"], keepdims=0, name="max")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
                      [shape])


def relu_round_scale():
    """x float32[2,8] -> Relu -> Round -> Mul(w) -> y."""
    w = numpy_helper.from_array(np.full((1, 8), 0.5, np.float32), "w")
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Round", ["r"], ["rounded"], name="round"),
             helper.make_node("Mul", ["rounded", "w"], ["y"], name="scale")]
    return make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])], [w])


GENERATORS = [fp16_image_scale, conv_relu_image, wasm_oom_expand, relu_round_scale]
