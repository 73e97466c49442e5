"""Models whose names are hostile (issue 44): what a model holds is data, never terminal control.

trust_escape_names: Relu whose input, output and node names carry terminal escapes: OSC 0 (retitle
    the terminal, ESC]0;pwned BEL), CSI 2K plus a carriage return (erase the line and write a fake
    verdict) and OSC 52 (write the clipboard). Parity's text output must show them escaped.
"""
from onnx import TensorProto, helper

from models_webgpu_bugs import _model, _vi

ESC = "\x1b"
IN_NAME = "x" + ESC + "]0;pwned\x07"
OUT_NAME = "y" + ESC + "[2K\rall outputs match" + ESC + "]52;c;cHduZWQ=\x07"
NODE_NAME = "relu" + ESC + "[2K\x9b31m"


def trust_escape_names():
    return _model([helper.make_node("Relu", [IN_NAME], [OUT_NAME], name=NODE_NAME)],
                  [_vi(IN_NAME, TensorProto.FLOAT, [1, 4])], [_vi(OUT_NAME, TensorProto.FLOAT, [1, 4])], [],
                  opset=17)


GENERATORS = [trust_escape_names]
