#!/usr/bin/python3
"""float32 models for the fp16 converter (src/model/fp16_convert.h), each exercising one of its
rules; picked up by gen_models.py through GENERATORS. tests/model/fp16_convert_test.cpp converts
them and runs both files on ONNX Runtime's CPU EP.

- fp16_weights: weights out of float16's range (1e-9: kept nonzero; 1e6: its reader stays float32,
  or with clamping 65504), a ConstantOfShape float value, and a Cast(to=FLOAT) of an int64 Size
  that must become FLOAT16.
- fp16_resize: Conv -> Resize (linear, `scales` an initializer: must stay tensor(float)) -> Mul.
- fp16_upsample_opset9: opset 9, Upsample with `scales` from a Constant node, then Sigmoid.
- fp16_block_softmax: MatMul -> Softmax -> Mul, for a caller's own block op (Softmax).
- fp16_if_subgraph: an If whose branches read a value computed outside (Mul of the input and a
  weight, float16 after conversion) and an initializer only the branches read.
- fp16_opset21: opset 21 (newer than python3-onnx 1.12's schemas): ReduceMean with `axes` as an
  input, Sub, Mul.
- fp16_nested_if: Silero v5's layout: the weights are Constants inside an If's branch, read by a
  nested If's branches; nothing at the top level but the If.
- fp16_loop_body: a Loop whose body holds a weight initializer and reads an outer value, with a
  float32 loop-carried value.
- fp16_nothing: Identity and Reshape only: no weight, no arithmetic; the converter must refuse it.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_RNG = np.random.default_rng(16)


def fp16_weights():
    """x[2,4] -> a = Add(x, w), w = [1e-9, -1e-9, 0.5, 2] (tiny: kept nonzero in float16) -> b = Mul(a,
    ConstantOfShape(Shape(x), 0.25)) -> y = Add(b, Cast(Size(x), FLOAT)); q = Relu(Div(x, big)), big =
    [1e6, 2e5, 7e4, 1e5] (beyond float16: the Div keeps float32 unless clamping is asked for)."""
    w = _init("w", np.array([1e-9, -1e-9, 0.5, 2.0], np.float32))
    big = _init("big", np.array([1e6, 2e5, 7e4, 1e5], np.float32))
    quarter = helper.make_tensor("quarter", TensorProto.FLOAT, [1], [0.25])
    nodes = [helper.make_node("Add", ["x", "w"], ["a"], name="add_w"),
             helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("ConstantOfShape", ["shape"], ["quarters"], value=quarter, name="quarters"),
             helper.make_node("Mul", ["a", "quarters"], ["b"], name="mul_quarters"),
             helper.make_node("Size", ["x"], ["size"], name="size"),
             helper.make_node("Cast", ["size"], ["size_f"], to=TensorProto.FLOAT, name="size_to_float"),
             helper.make_node("Add", ["b", "size_f"], ["y"], name="add_size"),
             helper.make_node("Div", ["x", "big"], ["d"], name="div_big"),
             helper.make_node("Relu", ["d"], ["q"], name="relu")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 4])],
                  [_vi("y", TensorProto.FLOAT, [2, 4]), _vi("q", TensorProto.FLOAT, [2, 4])], [w, big],
                  opset=17)


def fp16_resize():
    """x[1,3,H,W] -> Conv 3x3 (3->4, pad 1) -> Resize(linear, scales [1,1,2,2] initializer) -> Mul(gain
    [1,4,1,1]) -> y[1,4,2H,2W]."""
    w = _init("w", (_RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32))
    scales = _init("scales", np.array([1, 1, 2, 2], np.float32))
    gain = _init("gain", np.array([0.5, 1.0, 1.5, 2.0], np.float32).reshape(1, 4, 1, 1))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3], name="conv"),
             helper.make_node("Resize", ["c", "", "scales"], ["up"], mode="linear", name="resize"),
             helper.make_node("Mul", ["up", "gain"], ["y"], name="gain")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
                  [_vi("y", TensorProto.FLOAT, [1, 4, "height2", "width2"])], [w, scales, gain], opset=13)


def fp16_upsample_opset9():
    """opset 9: x[1,2,H,W] -> Upsample(nearest, scales from a Constant node) -> Add(bias) -> Sigmoid -> y."""
    scales = helper.make_tensor("scales_value", TensorProto.FLOAT, [4], [1, 1, 2, 2])
    bias = _init("bias", np.array([0.25, -0.5], np.float32).reshape(1, 2, 1, 1))
    nodes = [helper.make_node("Constant", [], ["scales"], value=scales, name="scales"),
             helper.make_node("Upsample", ["x", "scales"], ["up"], mode="nearest", name="upsample"),
             helper.make_node("Add", ["up", "bias"], ["shifted"], name="add_bias"),
             helper.make_node("Sigmoid", ["shifted"], ["y"], name="sigmoid")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 2, "height", "width"])],
                  [_vi("y", TensorProto.FLOAT, [1, 2, "height2", "width2"])], [bias], opset=9)


def fp16_block_softmax():
    """x[batch,16] -> MatMul(w 16x10) -> Softmax -> Mul(g) -> y[batch,10]."""
    w = _init("w", _RNG.standard_normal((16, 10)).astype(np.float32))
    g = _init("g", np.linspace(0.5, 2.0, 10).astype(np.float32))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits"], name="matmul"),
             helper.make_node("Softmax", ["logits"], ["probs"], axis=-1, name="softmax"),
             helper.make_node("Mul", ["probs", "g"], ["y"], name="scale")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, ["batch", 16])],
                  [_vi("y", TensorProto.FLOAT, ["batch", 10])], [w, g], opset=17)


def fp16_if_subgraph():
    """x[2,4] -> a = Mul(x, w) -> If(ReduceSum(x) > 0: then Add(a, b), else Sub(a, b)) -> Relu -> y.
    The branches read `a` and the initializer `b` from the outer graph."""
    w = _init("w", np.array([0.5, -1.5, 2.0, 0.25], np.float32))
    b = _init("b", np.array([0.125, 0.25, -0.5, 1.0], np.float32))
    zero = _init("zero", np.array(0, np.float32))
    then_g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["then_out"], name="then_add")],
                               "then", [], [_vi("then_out", TensorProto.FLOAT, [2, 4])])
    else_g = helper.make_graph([helper.make_node("Sub", ["a", "b"], ["else_out"], name="else_sub")],
                               "else", [], [_vi("else_out", TensorProto.FLOAT, [2, 4])])
    nodes = [helper.make_node("Mul", ["x", "w"], ["a"], name="mul_w"),
             helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0, name="total"),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["chosen"], then_branch=then_g, else_branch=else_g,
                              name="branch"),
             helper.make_node("Relu", ["chosen"], ["y"], name="relu")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 4])], [_vi("y", TensorProto.FLOAT, [2, 4])],
                  [w, b, zero], opset=17)


def fp16_opset21():
    """opset 21: x[1,8] -> m = ReduceMean(x, axes=[-1] input, keepdims) -> Sub(x, m) -> Mul(w) -> y."""
    axes = _init("axes", np.array([-1], np.int64))
    w = _init("w", np.linspace(-1.0, 1.0, 8).astype(np.float32))
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=1, name="mean"),
             helper.make_node("Sub", ["x", "m"], ["centered"], name="center"),
             helper.make_node("Mul", ["centered", "w"], ["y"], name="scale")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 8])], [_vi("y", TensorProto.FLOAT, [1, 8])],
                  [axes, w], opset=21)


def fp16_nested_if():
    """x[2,4] -> If(ReduceSum(x) > 0): then (m = Mul(x, Constant wc); If(positive): then Add(m, Constant
    bc of the outer branch), else Sub(m, bc)) -> Tanh; else Neg(x). Every weight is a Constant inside
    a branch, read one scope further in."""
    zero = _init("zero", np.array(0, np.float32))
    wc = helper.make_tensor("wc", TensorProto.FLOAT, [4], [0.5, -1.5, 2.0, 0.25])
    bc = helper.make_tensor("bc", TensorProto.FLOAT, [4], [0.125, 0.25, -0.5, 1.0])
    inner_then = helper.make_graph([helper.make_node("Add", ["m", "bias"], ["it_out"], name="inner_add")],
                                   "inner_then", [], [_vi("it_out", TensorProto.FLOAT, [2, 4])])
    inner_else = helper.make_graph([helper.make_node("Sub", ["m", "bias"], ["ie_out"], name="inner_sub")],
                                   "inner_else", [], [_vi("ie_out", TensorProto.FLOAT, [2, 4])])
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["weight"], value=wc, name="weight"),
         helper.make_node("Constant", [], ["bias"], value=bc, name="bias"),
         helper.make_node("Mul", ["x", "weight"], ["m"], name="mul_weight"),
         helper.make_node("If", ["positive"], ["inner"], then_branch=inner_then, else_branch=inner_else,
                          name="inner_branch"),
         helper.make_node("Tanh", ["inner"], ["then_out"], name="tanh")],
        "then", [], [_vi("then_out", TensorProto.FLOAT, [2, 4])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["else_out"], name="neg")],
                               "else", [], [_vi("else_out", TensorProto.FLOAT, [2, 4])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0, name="total"),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["y"], then_branch=then_g, else_branch=else_g,
                              name="branch")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 4])], [_vi("y", TensorProto.FLOAT, [2, 4])],
                  [zero], opset=17)


def fp16_loop_body():
    """x[4] -> Loop 3 times over v (starts at x): v = Add(Mul(v, w), x), w an initializer of the body
    -> y[4]."""
    w = _init("w", np.array([0.5, -0.75, 1.25, 0.9], np.float32))
    trips = _init("trips", np.array(3, np.int64))
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Mul", ["v_in", "w"], ["scaled"], name="mul_w"),
         helper.make_node("Add", ["scaled", "x"], ["v_out"], name="add_x")],
        "body", [_vi("i", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []),
                 _vi("v_in", TensorProto.FLOAT, [4])],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("v_out", TensorProto.FLOAT, [4])], initializer=[w])
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["y"], body=body, name="loop")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [4])], [_vi("y", TensorProto.FLOAT, [4])], [trips],
                  opset=17)


def fp16_nothing():
    """x[2,4] -> Identity -> Reshape(shape [8], int64) -> y[8]: no float32 weight, nothing computed."""
    shape = _init("shape", np.array([8], np.int64))
    nodes = [helper.make_node("Identity", ["x"], ["copy"], name="copy"),
             helper.make_node("Reshape", ["copy", "shape"], ["y"], name="flat")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 4])], [_vi("y", TensorProto.FLOAT, [8])], [shape],
                  opset=17)


GENERATORS = [fp16_weights, fp16_resize, fp16_upsample_opset9, fp16_block_softmax, fp16_if_subgraph,
              fp16_opset21, fp16_nested_if, fp16_loop_body, fp16_nothing]
