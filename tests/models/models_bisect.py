#!/usr/bin/python3
"""Models for `parity bisect`'s edge cases (picked up by gen_models.py through GENERATORS).

They reuse the real WebGPU miscompute of models_webgpu_bugs.py (a DequantizeLinear with
block_size on a 1-D input, ORT 1.30.0 on SwiftShader), so the culprit is a real bug, and add
what bisect must cope with around it: a control-flow node whose inner tensors cannot be exposed,
and a value that is NaN on one side only.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_SCALE = np.array([0.05, 0.1, 0.2, 0.4], np.float32)
_ZERO_POINT = np.array([1, -2, 3, 0], np.int8)


def _dq_bias():
    return helper.make_node("DequantizeLinear", ["bias_q", "bias_scale", "bias_zero_point"], ["bias"],
                            axis=0, block_size=4, name="dq_bias")


def _dq_inits():
    return [_init("bias_scale", _SCALE), _init("bias_zero_point", _ZERO_POINT)]


def bisect_if_dq():
    """x[16], bias_q[16] int8 -> dq_bias (the WebGPU bug) -> add_bias -> If(cond, an initializer
    true: then Relu(h), else Neg(h)) -> scale_out (Mul 2) -> y[16]. Bisect works at the top level,
    names dq_bias, and reports the If's two inner nodes as skipped."""
    then_g = helper.make_graph([helper.make_node("Relu", ["h"], ["branch_out"], name="then_relu")], "then_branch",
                               [], [_vi("branch_out", TensorProto.FLOAT, [16])])
    else_g = helper.make_graph([helper.make_node("Neg", ["h"], ["branch_out"], name="else_neg")], "else_branch",
                               [], [_vi("branch_out", TensorProto.FLOAT, [16])])
    nodes = [_dq_bias(),
             helper.make_node("Add", ["x", "bias"], ["h"], name="add_bias"),
             helper.make_node("If", ["cond"], ["branch"], then_branch=then_g, else_branch=else_g, name="if_relu"),
             helper.make_node("Mul", ["branch", "two"], ["y"], name="scale_out")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [16]), _vi("bias_q", TensorProto.INT8, [16])],
                  [_vi("y", TensorProto.FLOAT, [16])],
                  _dq_inits() + [_init("cond", np.array(True)), _init("two", np.float32(2.0))])


def bisect_if_whole_network():
    """The audio models' layout: a top-level If whose condition is computed (sr > 12000, sr a
    graph input of 16000 through an initializer) holds the whole network, with a nested If inside.
    then: dq_bias (the WebGPU bug) -> add_bias -> nested If(inner_cond: Relu, else Neg) -> h2;
    else: Identity(x). Outside: scale_out (Mul 2) -> y. Bisect must inline the taken branches and
    name dq_bias, inside them."""
    inner_then = helper.make_graph([helper.make_node("Relu", ["h"], ["inner_out"], name="inner_relu")], "inner_then",
                                   [], [_vi("inner_out", TensorProto.FLOAT, [16])])
    inner_else = helper.make_graph([helper.make_node("Neg", ["h"], ["inner_out"], name="inner_neg")], "inner_else",
                                   [], [_vi("inner_out", TensorProto.FLOAT, [16])])
    then_g = helper.make_graph(
        [_dq_bias(),
         helper.make_node("Add", ["x", "bias"], ["h"], name="add_bias"),
         helper.make_node("If", ["inner_cond"], ["h2"], then_branch=inner_then, else_branch=inner_else,
                          name="if_inner")],
        "then_branch", [], [_vi("h2", TensorProto.FLOAT, [16])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["passthrough"], name="else_identity")],
                               "else_branch", [], [_vi("passthrough", TensorProto.FLOAT, [16])])
    nodes = [helper.make_node("Greater", ["sr", "sr_threshold"], ["wide_band"], name="is_wide_band"),
             helper.make_node("If", ["wide_band"], ["branch"], then_branch=then_g, else_branch=else_g,
                              name="if_sample_rate"),
             helper.make_node("Mul", ["branch", "two"], ["y"], name="scale_out")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [16]), _vi("bias_q", TensorProto.INT8, [16])],
                  [_vi("y", TensorProto.FLOAT, [16])],
                  _dq_inits() + [_init("sr", np.array(16000, np.int64)), _init("sr_threshold", np.array(12000, np.int64)),
                                 _init("inner_cond", np.array(True)), _init("two", np.float32(2.0))])


def bisect_loop_dq():
    """A Loop with a fixed trip count (3) whose body holds the WebGPU bug: each iteration
    h <- tanh(h + dq_bias(bias_q)) (bias_q an outer graph input), and stacks h as a scan output.
    Bisect unrolls it and names loop_body/iter0/dq_bias, the first iteration's copy."""
    body = helper.make_graph(
        [_dq_bias(),
         helper.make_node("Add", ["h_in", "bias"], ["pre"], name="add_bias"),
         helper.make_node("Tanh", ["pre"], ["h_out"], name="squash"),
         helper.make_node("Identity", ["h_out"], ["h_scan"], name="keep")],
        "loop_body",
        [_vi("iteration", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []),
         _vi("h_in", TensorProto.FLOAT, [16])],
        [_vi("cond_in", TensorProto.BOOL, []), _vi("h_out", TensorProto.FLOAT, [16]),
         _vi("h_scan", TensorProto.FLOAT, [16])])
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["h_final", "h_all"], body=body, name="loop_body"),
             helper.make_node("Mul", ["h_final", "two"], ["y"], name="scale_out")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [16]), _vi("bias_q", TensorProto.INT8, [16])],
                  [_vi("y", TensorProto.FLOAT, [16]), _vi("h_all", TensorProto.FLOAT, [3, 16])],
                  _dq_inits() + [_init("trips", np.array(3, np.int64)), _init("two", np.float32(2.0))])


def bisect_loop_early_stop():
    """A Loop of up to 5 trips whose body stops it after 2 (cond_out = iteration < 1): its trip count
    is not fixed, so bisect must not unroll it."""
    body = helper.make_graph(
        [helper.make_node("Less", ["iteration", "one"], ["cond_out"], name="keep_going"),
         helper.make_node("Relu", ["h_in"], ["h_out"], name="body_relu")],
        "early_body",
        [_vi("iteration", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []),
         _vi("h_in", TensorProto.FLOAT, [16])],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("h_out", TensorProto.FLOAT, [16])])
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["y"], body=body, name="early_loop")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [16])], [_vi("y", TensorProto.FLOAT, [16])],
                  [_init("trips", np.array(5, np.int64)), _init("one", np.array(1, np.int64))])


def bisect_scan_dq():
    """A Scan over x[3,16] (axis 0, forward) with state s[16]: s <- s + x_t + dq_bias(bias_q);
    the planted bug inside the body. Bisect unrolls it and names scan_body/iter0/dq_bias."""
    body = helper.make_graph(
        [_dq_bias(),
         helper.make_node("Add", ["s_in", "x_t"], ["sum"], name="accumulate"),
         helper.make_node("Add", ["sum", "bias"], ["s_out"], name="add_bias"),
         helper.make_node("Identity", ["s_out"], ["s_scan"], name="keep")],
        "scan_body",
        [_vi("s_in", TensorProto.FLOAT, [16]), _vi("x_t", TensorProto.FLOAT, [16])],
        [_vi("s_out", TensorProto.FLOAT, [16]), _vi("s_scan", TensorProto.FLOAT, [16])])
    nodes = [helper.make_node("Scan", ["s0", "x"], ["s_final", "s_all"], body=body, num_scan_inputs=1,
                              name="scan_body"),
             helper.make_node("Mul", ["s_final", "two"], ["y"], name="scale_out")]
    return _model(nodes,
                  [_vi("x", TensorProto.FLOAT, [3, 16]), _vi("bias_q", TensorProto.INT8, [16])],
                  [_vi("y", TensorProto.FLOAT, [16]), _vi("s_all", TensorProto.FLOAT, [3, 16])],
                  _dq_inits() + [_init("s0", np.zeros(16, np.float32)), _init("two", np.float32(2.0))])


def bisect_if_clean():
    """x[16] -> Relu -> If(cond: then Sigmoid, else Neg) -> Mul 2 -> y: control flow, every node right."""
    then_g = helper.make_graph([helper.make_node("Sigmoid", ["r"], ["branch_out"], name="then_sigmoid")],
                               "then_branch", [], [_vi("branch_out", TensorProto.FLOAT, [16])])
    else_g = helper.make_graph([helper.make_node("Neg", ["r"], ["branch_out"], name="else_neg")], "else_branch",
                               [], [_vi("branch_out", TensorProto.FLOAT, [16])])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("If", ["cond"], ["branch"], then_branch=then_g, else_branch=else_g, name="if_sigmoid"),
             helper.make_node("Mul", ["branch", "two"], ["y"], name="scale_out")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [16])], [_vi("y", TensorProto.FLOAT, [16])],
                  [_init("cond", np.array(True)), _init("two", np.float32(2.0))], opset=17)


def bisect_nan_one_side():
    """bias_q[16] int8 -> dq_bias (the WebGPU bug: elements 4..15 come out 0) -> ratio = bias / bias
    -> y = ratio * 3. On WebGPU 0/0 makes ratio NaN where the CPU has 1: a NaN on one side only,
    downstream of the real culprit, which bisect must still name."""
    nodes = [_dq_bias(),
             helper.make_node("Div", ["bias", "bias"], ["ratio"], name="self_ratio"),
             helper.make_node("Mul", ["ratio", "three"], ["y"], name="times_three")]
    return _model(nodes, [_vi("bias_q", TensorProto.INT8, [16])], [_vi("y", TensorProto.FLOAT, [16])],
                  _dq_inits() + [_init("three", np.float32(3.0))])


def bisect_untyped_chain():
    """x[2,8] -> Relu -> Tanh -> Sigmoid -> y, with no value_info at all: bisect types the
    intermediates by shape inference (or the type-preserving fallback)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]),  # unnamed on purpose: names are synthesized
             helper.make_node("Tanh", ["a"], ["b"], name="tanh"),
             helper.make_node("Sigmoid", ["b"], ["y"], name="sigmoid")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 8])], [_vi("y", TensorProto.FLOAT, [2, 8])], opset=17)


def bisect_deep_chain():
    """x[2,16] -> 48 layers of (Add c_i -> Tanh), with the real WebGPU Slice negative-step bug
    (`slice_reverse`, t[:, 14::-1], width 16 -> 15) after layer 24: 97 nodes, one wrong on
    WebGPU. For the bisect benchmark (runs and wall time versus node count and budget)."""
    nodes, inits = [], []
    cur, width = "x", 16
    for i in range(48):
        if i == 24:
            nodes.append(helper.make_node("Slice", [cur, "starts", "ends", "axes", "steps"], ["rev"],
                                          name="slice_reverse"))
            inits += [_init("starts", np.array([14], np.int64)),
                      _init("ends", np.array([np.iinfo(np.int64).min], np.int64)),
                      _init("axes", np.array([1], np.int64)), _init("steps", np.array([-1], np.int64))]
            cur, width = "rev", 15
        inits.append(_init(f"c{i}", np.float32(0.01 * (i % 7) - 0.03)))
        nodes.append(helper.make_node("Add", [cur, f"c{i}"], [f"a{i}"], name=f"add{i}"))
        nodes.append(helper.make_node("Tanh", [f"a{i}"], [f"t{i}" if i < 47 else "y"], name=f"tanh{i}"))
        cur = f"t{i}"
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 16])], [_vi("y", TensorProto.FLOAT, [2, width])], inits,
                  opset=13)


def bisect_local_max_mask():
    """x[1,1,8,8] -> Sigmoid -> MaxPool 3x3 (stride 1, pad 1) -> Equal(sigmoid, pooled) -> Cast ->
    Mul(sigmoid, mask) -> scores: the local-maximum mask of M-LSD's decoder (npm jp.keijiro.mlsd).
    Where two neighbours are equal within rounding noise the mask may flip on another backend: a
    near-tie, not a miscompute (bisect_logic_test feeds the rule such rows)."""
    nodes = [helper.make_node("Sigmoid", ["x"], ["sig"], name="sigmoid"),
             helper.make_node("MaxPool", ["sig"], ["pooled"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              name="maxpool"),
             helper.make_node("Equal", ["sig", "pooled"], ["is_max"], name="equal"),
             helper.make_node("Cast", ["is_max"], ["mask"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Mul", ["sig", "mask"], ["scores"], name="mul")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 1, 8, 8])],
                  [_vi("scores", TensorProto.FLOAT, [1, 1, 8, 8])], opset=17)


GENERATORS = [bisect_loop_early_stop, bisect_loop_dq, bisect_scan_dq, bisect_if_whole_network, bisect_deep_chain, bisect_if_dq, bisect_if_clean, bisect_nan_one_side, bisect_untyped_chain,
              bisect_local_max_mask]
