"""Models for `parity lint`: for every rule one model that triggers it and one that must not.

Rules that existing models already trigger reuse them (webgpu_bug_dq_blocked_1d,
webgpu_bug_slice_negative_step, sweep_pool_dilated, fp16_*); the clean twins are here.

lint_conv_no_kernel_shape / lint_conv_kernel_shape: the same 3x3 Conv, without and with the
    optional `kernel_shape` (JSEP fails without it: "dilations should be 2D").
lint_dq_uint8_zero_point / lint_dq_int8_zero_point: DequantizeLinear of uint8 (zero point 128)
    and of int8 (zero point 0); JSEP wraps x - zero_point in unsigned arithmetic for uint8.
lint_dq_per_axis_1d: a 1-D per-axis DequantizeLinear (no block_size): the blocked rule's clean twin.
lint_slice_reverse_from_end: Slice with step -1 starting at -1 (the WebGPU EP starts at dim-1
    whatever `starts` says, so this one is right by luck) / lint_slice_positive_step: step 2.
lint_maxpool_plain: MaxPool 2x2 without dilations.
lint_fp16_unfolded_matmul: the first seed's colouriser trap. spectral_norm left a float16 MatMul
    between two initializers (u^T W) that makes a Conv's weight; ORT's constant folding runs CPU
    kernels, and the CPU EP has no float16 MatMul, so the island survives to run time.
    lint_fp32_folded_matmul: the same island in float32, which ORT folds.
lint_unsorted: a Relu listed before the Add that produces its input (ONNX's checker refuses the
    file; ORT sorts it). lint_sorted is its clean twin.
lint_opset_future: a Relu at ai.onnx opset 99, which no runtime implements.
lint_unknown_op: a node of an op no runtime has (com.parity.test:NoSuchOp): every backend refuses
    the session, and no static rule says so.
lint_shape_if: a Relu on the GPU beside shape arithmetic (Shape, Gather, Greater) choosing an
    If whose bodies compute int64 values without declaring them (Mul, Add / Sub), as Silero v4's
    Ifs do (x's first dim is symbolic, so ORT cannot fold them): ORT keeps all of it on the CPU by design, and none of it is float work.
lint_det_on_cpu: Mul -> Det; ORT 1.30's WebGPU EP has no Det kernel, so it falls back to the CPU
    (the placement rule asks a real session; nothing in the file says it).
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

_RNG = np.random.default_rng(44)
_W3 = (_RNG.standard_normal((4, 3, 3, 3)) * 0.2).astype(np.float32)


def _conv(kernel_shape):
    attrs = {"pads": [1, 1, 1, 1]}
    if kernel_shape:
        attrs["kernel_shape"] = [3, 3]
    return _model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)],
                  [_vi("x", TensorProto.FLOAT, [1, 3, 8, 8])], [_vi("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                  [_init("w", _W3)], opset=17)


def lint_conv_no_kernel_shape():
    return _conv(False)


def lint_conv_kernel_shape():
    return _conv(True)


def _dq(dtype, zero_point):
    node = helper.make_node("DequantizeLinear", ["q", "scale", "zp"], ["y"], name="dq")
    return _model([node], [_vi("q", dtype, [8])], [_vi("y", TensorProto.FLOAT, [8])],
                  [_init("scale", np.array(0.5, np.float32)), _init("zp", zero_point)], opset=13)


def lint_dq_uint8_zero_point():
    return _dq(TensorProto.UINT8, np.array(128, np.uint8))


def lint_dq_int8_zero_point():
    return _dq(TensorProto.INT8, np.array(0, np.int8))


def lint_dq_per_axis_1d():
    node = helper.make_node("DequantizeLinear", ["q", "scale", "zp"], ["y"], axis=0, name="dq")
    return _model([node], [_vi("q", TensorProto.INT8, [4])], [_vi("y", TensorProto.FLOAT, [4])],
                  [_init("scale", np.array([1, 10, 100, 1000], np.float32)),
                   _init("zp", np.zeros(4, np.int8))])


def _slice(start, step):
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="slice")
    end = np.iinfo(np.int64).min if step < 0 else np.iinfo(np.int64).max
    return _model([node], [_vi("x", TensorProto.FLOAT, [3, 10])], [_vi("y", TensorProto.FLOAT, [3, "n"])],
                  [_init("starts", np.array([start], np.int64)), _init("ends", np.array([end], np.int64)),
                   _init("axes", np.array([1], np.int64)), _init("steps", np.array([step], np.int64))],
                  opset=13)


def lint_slice_reverse_from_end():
    return _slice(-1, -1)


def lint_slice_positive_step():
    return _slice(1, 2)


def lint_maxpool_plain():
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], name="pool")
    return _model([node], [_vi("x", TensorProto.FLOAT, [1, 1, 6, 6])], [_vi("y", TensorProto.FLOAT, [1, 1, 5, 5])],
                  opset=17)


def _spectral_conv(np_dtype, onnx_dtype):
    """y = Conv(x, reshape(u^T W)): the weight is computed from two initializers (spectral_norm's
    leftovers), then the graph runs in `np_dtype` between Casts so its I/O stays float32."""
    u = (_RNG.standard_normal((1, 4)) * 0.5).astype(np_dtype)
    w = (_RNG.standard_normal((4, 36)) * 0.5).astype(np_dtype)
    nodes = [helper.make_node("MatMul", ["u", "w_flat"], ["w_row"], name="spectral_matmul"),
             helper.make_node("Reshape", ["w_row", "w_shape"], ["w_conv"], name="spectral_reshape"),
             helper.make_node("Cast", ["x"], ["x_cast"], to=onnx_dtype, name="cast_in"),
             helper.make_node("Conv", ["x_cast", "w_conv"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              name="conv"),
             helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT, name="cast_out")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 4, 8, 8])], [_vi("y", TensorProto.FLOAT, [1, 1, 8, 8])],
                  [_init("u", u), _init("w_flat", w), _init("w_shape", np.array([1, 4, 3, 3], np.int64))],
                  opset=17)


def lint_fp16_island_in_fp32():
    """The first seed's colouriser in small: an fp32 network whose Conv weight is normalised by a
    constant that spectral_norm left as a float16 MatMul of two 1-D initializers (u . v), cast to
    float32. ORT does not fold the float16 MatMul, so it runs at every call on the target, and an
    adapter without shader-f16 fails the whole model on that one constant. Folding the island on
    the reference (lint --fix fp16-constant-island) leaves a pure fp32 model that runs there."""
    u = (_RNG.standard_normal(6) * 0.5 + 1).astype(np.float16)
    v = (_RNG.standard_normal(6) * 0.5 + 1).astype(np.float16)
    w = (_RNG.standard_normal((2, 3, 3, 3)) * 0.3).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["weight_u", "weight_v"], ["sigma16"], name="spectral_matmul"),
             helper.make_node("Cast", ["sigma16"], ["sigma"], to=TensorProto.FLOAT, name="sigma_cast"),
             helper.make_node("Div", ["w", "sigma"], ["w_norm"], name="spectral_div"),
             helper.make_node("Conv", ["x", "w_norm"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [1, 3, 8, 8])], [_vi("y", TensorProto.FLOAT, [1, 2, 8, 8])],
                  [_init("weight_u", u), _init("weight_v", v), _init("w", w)], opset=17)


def lint_fp16_unfolded_matmul():
    return _spectral_conv(np.float16, TensorProto.FLOAT16)


def lint_fp32_folded_matmul():
    return _spectral_conv(np.float32, TensorProto.FLOAT)


def _two_step(sorted_order):
    add = helper.make_node("Add", ["x", "x"], ["s"], name="add")
    relu = helper.make_node("Relu", ["s"], ["y"], name="relu")
    return _model([add, relu] if sorted_order else [relu, add], [_vi("x", TensorProto.FLOAT, [16])],
                  [_vi("y", TensorProto.FLOAT, [16])], opset=18)  # above 17: gen_models' checker skips it


def lint_unsorted():
    return _two_step(False)


def lint_sorted():
    return _two_step(True)


def lint_opset_future():
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [_vi("x", TensorProto.FLOAT, [4])],
                  [_vi("y", TensorProto.FLOAT, [4])], opset=99)


def lint_unknown_op():
    node = helper.make_node("NoSuchOp", ["x"], ["y"], name="nosuch", domain="com.parity.test")
    model = _model([node], [_vi("x", TensorProto.FLOAT, [4])], [_vi("y", TensorProto.FLOAT, [4])], opset=21)
    model.opset_import.append(helper.make_opsetid("com.parity.test", 1))
    return model


def lint_maxpool_ceil():
    """MaxPool 3x3, stride 2, ceil_mode 1 on 8x8: 4x4 out (3x3 with floor). ISNet's MaxPools are
    like this; JSEP refuses them (ceil_mode padding not implemented)."""
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, name="pool")
    return _model([node], [_vi("x", TensorProto.FLOAT, [1, 1, 8, 8])], [_vi("y", TensorProto.FLOAT, [1, 1, 4, 4])],
                  opset=17)


def lint_convtranspose_2d():
    """A 2-D ConvTranspose, the clean twin of the 3-D one the WebGPU EP refuses at run."""
    w = (_RNG.standard_normal((2, 3, 3, 3)) * 0.2).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv")
    return _model([node], [_vi("x", TensorProto.FLOAT, [1, 2, 4, 4])], [_vi("y", TensorProto.FLOAT, [1, 3, 6, 6])],
                  [_init("w", w)], opset=17)


def lint_det_on_cpu():
    nodes = [helper.make_node("Mul", ["x", "two"], ["x2"], name="scale"),
             helper.make_node("Det", ["x2"], ["y"], name="det")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, [2, 3, 3])], [_vi("y", TensorProto.FLOAT, [2])],
                  [_init("two", np.array(2, np.float32))], opset=17)


def lint_shape_if():
    i64 = TensorProto.INT64
    then_body = helper.make_graph(
        [helper.make_node("Mul", ["s", "two_i"], ["s2"], name="then_mul"),
         helper.make_node("Add", ["s2", "one_i"], ["then_out"], name="then_add")],
        "then", [], [_vi("then_out", i64, [2])])
    else_body = helper.make_graph([helper.make_node("Sub", ["s", "one_i"], ["else_out"], name="else_sub")],
                                  "else", [], [_vi("else_out", i64, [2])])
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu"),
             helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero_i"], ["n"], axis=0, name="rows"),
             helper.make_node("Greater", ["n", "one_i"], ["cond"], name="many_rows"),
             helper.make_node("If", ["cond"], ["z"], then_branch=then_body, else_branch=else_body, name="pick")]
    return _model(nodes, [_vi("x", TensorProto.FLOAT, ["n", 3])],
                  [_vi("y", TensorProto.FLOAT, ["n", 3]), _vi("z", i64, [2])],
                  [_init("zero_i", np.array(0, np.int64)), _init("one_i", np.array(1, np.int64)),
                   _init("two_i", np.array(2, np.int64))], opset=17)


GENERATORS = [lint_shape_if, lint_convtranspose_2d, lint_fp16_island_in_fp32, lint_maxpool_ceil, lint_det_on_cpu, lint_conv_no_kernel_shape, lint_conv_kernel_shape, lint_dq_uint8_zero_point, lint_dq_int8_zero_point,
              lint_dq_per_axis_1d, lint_slice_reverse_from_end, lint_slice_positive_step, lint_maxpool_plain,
              lint_fp16_unfolded_matmul, lint_fp32_folded_matmul, lint_unsorted, lint_sorted, lint_opset_future, lint_unknown_op]
