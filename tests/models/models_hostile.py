"""Models whose names are hostile text: Parity must never turn a name from a model into a path
(docs/security.md).

guard_upscale_hostile_name: guard_upscale with its output named
                    "../../../../../../../../../../../../tmp/parity-hostile-name/pwned". Joined
                    unescaped onto any folder (accept --predicate's scratch), it names
                    /tmp/parity-hostile-name/pwned.npy, outside the folder, at any depth.
"""


import models_guard

HOSTILE_OUTPUT = "../" * 12 + "tmp/parity-hostile-name/pwned"


def guard_upscale_hostile_name():
    model = models_guard.guard_upscale()
    for node in model.graph.node:
        node.output[:] = [HOSTILE_OUTPUT if o == "y" else o for o in node.output]
    model.graph.output[0].name = HOSTILE_OUTPUT
    return model


GENERATORS = [guard_upscale_hostile_name]
