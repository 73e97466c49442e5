"""Models whose names are hostile (issue 44): what a model holds is data, never terminal control.

trust_escape_names: Conv -> Relu whose input, output and node names carry terminal escapes: OSC 0 (retitle
    the terminal, ESC]0;pwned BEL), CSI 2K plus a carriage return (erase the line and write a fake
    verdict) and OSC 52 (write the clipboard). Parity's text output must show them escaped. The Conv
    lacks kernel_shape so that lint's conv rule fires and names the node.
"""
import numpy as np
from onnx import TensorProto, helper

from models_webgpu_bugs import _init, _model, _vi

ESC = "\x1b"
IN_NAME = "x" + ESC + "]0;pwned\x07"
OUT_NAME = "y" + ESC + "[2K\rall outputs match" + ESC + "]52;c;cHduZWQ=\x07"
NODE_NAME = "conv" + ESC + "[2K\x9b31m"


def trust_escape_names():
    w = (np.random.default_rng(44).standard_normal((4, 3, 3, 3)) * 0.2).astype(np.float32)
    return _model([helper.make_node("Conv", [IN_NAME, "w"], ["c"], name=NODE_NAME, pads=[1, 1, 1, 1]),
                   helper.make_node("Relu", ["c"], [OUT_NAME], name="relu")],
                  [_vi(IN_NAME, TensorProto.FLOAT, [1, 3, 8, 8])], [_vi(OUT_NAME, TensorProto.FLOAT, [1, 4, 8, 8])],
                  [_init("w", w)], opset=17)


GENERATORS = [trust_escape_names]
