"""Models for the probe table and JSON (issues 36 and 44): metrics only where they mean something,
names that cannot break a row.

table_one_element: x[1,10] -> Slice x[:, 7::-1] -> ReduceSum -> score[1,1]. The reverse Slice is
    ORT 1.30.0's WebGPU bug (models_webgpu_bugs: the start is ignored), so on webgpu the one
    element is off by |x0 + x1 - x8 - x9|; a cosine of that one element is 1 whatever it is.
table_state_output: x[1,8] and state[2,1,8] -> logits[1,8] = 2x (class scores) and
    stateN[2,1,8] = tanh(state + x) (Silero VAD's names: recurrent state fed back as `state`).
    Both shapes look like class scores; only logits is.
table_long_names: x[1,4] -> Abs -> a 150-character output name whose start and end tell it
    apart, with a tab near the start and a newline near the end.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

LONG_NAME = "head\tof_a_generated_name/" + "x" * 103 + "/layer.11/Add_output\n0"
assert len(LONG_NAME) == 150


def table_one_element():
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"], name="slice_reverse"),
             helper.make_node("ReduceSum", ["s", "sum_axes"], ["score"], keepdims=1, name="sum")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 10])], [_vi("score", TensorProto.FLOAT, [1, 1])],
                  [_init("starts", np.array([7], np.int64)),
                   _init("ends", np.array([np.iinfo(np.int64).min], np.int64)),
                   _init("axes", np.array([1], np.int64)), _init("steps", np.array([-1], np.int64)),
                   _init("sum_axes", np.array([1], np.int64))], opset=13)


def table_state_output():
    nodes = [helper.make_node("Mul", ["x", "two"], ["logits"], name="scale"),
             helper.make_node("Add", ["state", "x"], ["sum"], name="add"),
             helper.make_node("Tanh", ["sum"], ["stateN"], name="tanh")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 8]), _vi("state", TensorProto.FLOAT, [2, 1, 8])],
                  [_vi("logits", TensorProto.FLOAT, [1, 8]), _vi("stateN", TensorProto.FLOAT, [2, 1, 8])],
                  [_init("two", np.array(2, np.float32))], opset=13)


def table_long_names():
    return _model([helper.make_node("Abs", ["x"], [LONG_NAME], name="abs")],
                  [_vi("x", TensorProto.FLOAT, [1, 4])], [_vi(LONG_NAME, TensorProto.FLOAT, [1, 4])], opset=13)


GENERATORS = [table_one_element, table_state_output, table_long_names]
