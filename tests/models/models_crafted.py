"""Crafted models: files that crashed Parity itself (issue 44) and models with external data.

Each crafted_* file is malformed on purpose; ONNX's C++ shape inference (the library Parity links)
dies on the first four with SIGFPE, and a malformed Scan made bisect abort on an uncaught
exception. Parity must refuse each with a typed error naming the problem. They are written
without the checker (gen_models skips it for generators marked `unchecked`) and seed the fuzz
targets (tests/model/fuzz_corpus_test.cpp).

crafted_conv_stride0: Conv 3x3 with strides [0, 0].
crafted_maxpool_stride0 / crafted_avgpool_stride0 / crafted_lppool_stride0: 2x2 pools, strides [0, 0].
crafted_split_no_outputs: a Split node with no outputs (beside a Relu that makes the graph's output).
crafted_scan_body_arity: a Scan with 1 state and 1 scan input whose body takes 1 input, not 2.
crafted_scan_num_scan_inputs: a Scan whose num_scan_inputs (3) exceeds its 2 inputs (bisect's
    unrolling read before the node's input list).
crafted_constant_dims_overflow: Equal(n, c) where the Constant c declares dims [2^62, 101]
    (found by CI's fuzz run: inspect's compared-with scan multiplied the dims in int64, undefined
    behaviour past 2^63); the file must read, with no compared-with value for n.
crafted_function_pool_stride0: the stride-0 MaxPool inside a model-local function: Parity's checks
    look at graphs, not function bodies, so only the guarded shape inference stands between it
    and a SIGFPE.

external_matmul_add_relu: gen_models' matmul_add_relu with both weights in
    external_matmul_add_relu.data beside it (onnx.save with save_as_external_data).
external_dq_blocked_multilayer: webgpu_bug_dq_blocked_1d_multilayer (the WebGPU EP's blocked
    DequantizeLinear bug, node `dq_bias`) with every initializer in external_dq_blocked_multilayer.data.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from models_webgpu_bugs import webgpu_bug_dq_blocked_1d_multilayer


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "crafted", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="parity-tests")
    model.ir_version = 8
    return model


def _unchecked(gen):
    gen.unchecked = True
    return gen


_X = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])]
_Y = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]


@_unchecked
def crafted_conv_stride0():
    w = numpy_helper.from_array(np.ones((2, 3, 3, 3), np.float32), "w")
    return _model([helper.make_node("Conv", ["x", "w"], ["y"], strides=[0, 0], name="conv")], _X, _Y, [w])


def _pool(op):
    return _model([helper.make_node(op, ["x"], ["y"], kernel_shape=[2, 2], strides=[0, 0], name="pool")], _X, _Y)


@_unchecked
def crafted_maxpool_stride0():
    return _pool("MaxPool")


@_unchecked
def crafted_avgpool_stride0():
    return _pool("AveragePool")


@_unchecked
def crafted_lppool_stride0():
    return _pool("LpPool")


@_unchecked
def crafted_split_no_outputs():
    return _model([helper.make_node("Split", ["x"], [], axis=1, name="split"),
                   helper.make_node("Relu", ["x"], ["y"], name="relu")], _X, _Y)


@_unchecked
def crafted_scan_body_arity():
    vi = helper.make_tensor_value_info
    body = helper.make_graph([helper.make_node("Add", ["s", "s"], ["s2"], name="add")], "body",
                             [vi("s", TensorProto.FLOAT, [3])],
                             [vi("s2", TensorProto.FLOAT, [3]), vi("o", TensorProto.FLOAT, [3])])
    scan = helper.make_node("Scan", ["init", "xs"], ["final", "ys"], body=body, num_scan_inputs=1, name="scan")
    return _model([scan], [vi("init", TensorProto.FLOAT, [3]), vi("xs", TensorProto.FLOAT, [5, 3])],
                  [vi("final", TensorProto.FLOAT, None), vi("ys", TensorProto.FLOAT, None)])


@_unchecked
def crafted_scan_num_scan_inputs():
    vi = helper.make_tensor_value_info
    body = helper.make_graph([helper.make_node("Add", ["s", "a"], ["s2"], name="add"),
                              helper.make_node("Identity", ["s2"], ["o"], name="copy")], "body",
                             [vi("s", TensorProto.FLOAT, [3]), vi("a", TensorProto.FLOAT, [3])],
                             [vi("s2", TensorProto.FLOAT, [3]), vi("o", TensorProto.FLOAT, [3])])
    scan = helper.make_node("Scan", ["init", "xs"], ["final", "ys"], body=body, num_scan_inputs=3, name="scan")
    return _model([scan], [helper.make_tensor_value_info("init", TensorProto.FLOAT, [3]),
                           helper.make_tensor_value_info("xs", TensorProto.FLOAT, [5, 3])],
                  [vi("final", TensorProto.FLOAT, None), vi("ys", TensorProto.FLOAT, None)])


@_unchecked
def crafted_function_pool_stride0():
    fn = helper.make_function("parity.crafted", "Pool0", ["a"], ["b"],
                              [helper.make_node("MaxPool", ["a"], ["b"], kernel_shape=[2, 2], strides=[0, 0])],
                              [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("Pool0", ["x"], ["y"], domain="parity.crafted", name="pool_fn")],
                              "crafted", _X, _Y)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("parity.crafted", 1)],
                              functions=[fn], producer_name="parity-tests")
    model.ir_version = 8
    return model


@_unchecked
def crafted_constant_dims_overflow():
    c = TensorProto(name="c_value", data_type=TensorProto.INT64, dims=[2**62, 101], int64_data=[16000])
    nodes = [helper.make_node("Constant", [], ["c"], value=c, name="c"),
             helper.make_node("Equal", ["n", "c"], ["y"], name="eq")]
    return _model(nodes, [helper.make_tensor_value_info("n", TensorProto.INT64, [1])],
                  [helper.make_tensor_value_info("y", TensorProto.BOOL, [1])])


def _save_external(model, path):
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(path)[:-len(".onnx")] + ".data", size_threshold=0)


def external_matmul_add_relu():
    from gen_models import matmul_add_relu
    return matmul_add_relu()


external_matmul_add_relu.save = _save_external


def external_dq_blocked_multilayer():
    return webgpu_bug_dq_blocked_1d_multilayer()


external_dq_blocked_multilayer.save = _save_external

GENERATORS = [crafted_conv_stride0, crafted_maxpool_stride0, crafted_avgpool_stride0, crafted_lppool_stride0,
              crafted_split_no_outputs, crafted_scan_body_arity, crafted_scan_num_scan_inputs, crafted_function_pool_stride0, crafted_constant_dims_overflow,
              external_matmul_add_relu,
              external_dq_blocked_multilayer]
