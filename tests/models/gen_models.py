#!/usr/bin/python3
"""Generates the ONNX models Parity's tests use, with fixed seeds, into the folder given.

Run with Debian's /usr/bin/python3 (python3-onnx, numpy). Each model is one function named
after the file it writes; add a function and it is picked up. Nothing binary is committed.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def make_model(nodes, inputs, outputs, initializers=(), opset=OPSET, name="parity_test"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="parity-tests")
    model.ir_version = 8
    return model


def matmul_add_relu():
    """[batch,16] -> MatMul(16x8) -> Add -> Relu: a clean model every backend gets right."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="matmul"),
             helper.make_node("Add", ["mm", "b"], ["pre"], name="add"),
             helper.make_node("Relu", ["pre"], ["y"], name="relu")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
                      [w, b])


def endless_loop():
    """A Loop whose trip count is an input: `trips` = 2**62 runs far longer than any test waits, so
    only a stop request ends it (ORT's run-options terminate flag, checked between iterations)."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Add", ["h_in", "step"], ["h_out"], name="body_add")],
        "endless_body",
        [helper.make_tensor_value_info("iteration", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [4])],
        [numpy_helper.from_array(np.ones(4, np.float32), "step")])
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["y"], body=body, name="endless")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                       helper.make_tensor_value_info("trips", TensorProto.INT64, [])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def conv_image():
    """[1,3,H,W] image -> Conv 3x3 (3->3) -> Sigmoid: image-like output for PSNR/channel means."""
    rng = np.random.default_rng(2)
    w = numpy_helper.from_array((rng.standard_normal((3, 3, 3, 3)) * 0.2).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Sigmoid", ["c"], ["y"], name="sigmoid")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, "height", "width"])],
                      [w])


def classifier():
    """[batch,32] -> Gemm -> Softmax over 10 classes: top-1 agreement applies."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((32, 10)).astype(np.float32), "w")
    nodes = [helper.make_node("Gemm", ["x", "w"], ["logits"], name="gemm"),
             helper.make_node("Softmax", ["logits"], ["probs"], axis=-1, name="softmax")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 32])],
                      [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
                      [w])


def unnamed_dims():
    """An input whose dims are unknown (no name, no value): needs --shape."""
    nodes = [helper.make_node("Neg", ["x"], ["y"], name="neg")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, None])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])
    return make_model(nodes, [x], [y])


def mixed_types():
    """int64 token ids + float16 mask -> Gather from an embedding, cast: int and fp16 paths."""
    rng = np.random.default_rng(4)
    emb = numpy_helper.from_array(rng.standard_normal((100, 4)).astype(np.float32), "emb")
    nodes = [helper.make_node("Gather", ["emb", "ids"], ["e"], axis=0, name="gather"),
             helper.make_node("Cast", ["e"], ["e16"], to=TensorProto.FLOAT16, name="cast"),
             helper.make_node("Mul", ["e16", "mask"], ["y"], name="mul"),
             helper.make_node("ArgMax", ["e"], ["idx"], axis=-1, keepdims=0, name="argmax")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "seq"]),
                       helper.make_tensor_value_info("mask", TensorProto.FLOAT16, [1, "seq", 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, "seq", 4]),
                       helper.make_tensor_value_info("idx", TensorProto.INT64, [1, "seq"])],
                      [emb])


def huge_input():
    """A static [100000,100000,1000] float input (40 TB): planning it must be a usage error."""
    nodes = [helper.make_node("Neg", ["x"], ["y"], name="neg")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [100000, 100000, 1000])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [100000, 100000, 1000])
    return make_model(nodes, [x], [y])


def zero_head():
    """[1,16] -> MatMul(16x8, random) -> Relu -> MatMul(8x4, all zeros) -> y[1,4], plus the hidden
    features h[1,8]: y is exactly 0 on every backend for every input, as torchvision's ViT-B/16 with
    its zero-initialised head. Agreeing on y proves nothing (probe: inconclusive)."""
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
    head = numpy_helper.from_array(np.zeros((8, 4), np.float32), "head")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="features"),
             helper.make_node("Relu", ["mm"], ["h"], name="relu"),
             helper.make_node("MatMul", ["h", "head"], ["y"], name="head")]
    return make_model(nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4]),
                       helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 8])],
                      [w, head])


GENERATORS = [matmul_add_relu, conv_image, classifier, unnamed_dims, mixed_types, huge_input, zero_head,
              endless_loop]


def all_generators():
    """GENERATORS here plus those of every sibling module named models_*.py (one per topic)."""
    import importlib
    gens = list(GENERATORS)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    for fname in sorted(os.listdir(here)):
        if fname.startswith("models_") and fname.endswith(".py"):
            gens += importlib.import_module(fname[:-3]).GENERATORS
    return gens


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "test-models"
    os.makedirs(out, exist_ok=True)
    for gen in all_generators():
        model = gen()
        # python3-onnx 1.12's checker stops at 17; crafted (malformed) models are `unchecked`.
        if model.opset_import[0].version <= 17 and not getattr(gen, "unchecked", False):
            onnx.checker.check_model(model)
        getattr(gen, "save", onnx.save)(model, os.path.join(out, gen.__name__ + ".onnx"))
    # Files that are not valid models, for the bad-input tests.
    with open(os.path.join(out, "not_onnx.onnx"), "w") as f:
        f.write("this is a text file, not a protobuf\n")
    good = open(os.path.join(out, "matmul_add_relu.onnx"), "rb").read()
    with open(os.path.join(out, "truncated.onnx"), "wb") as f:
        f.write(good[: len(good) // 2])


if __name__ == "__main__":
    main()
