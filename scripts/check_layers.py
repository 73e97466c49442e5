#!/usr/bin/python3
"""Fails the build when a module includes a header of a module above it (docs/architecture.md).

Every file under src/<module>/ may include its own module's headers and those of the modules
below it in LAYERS; "an upward include" (probe including cli, backend including isolate) breaks
the architecture and so breaks the build. Prints each violation as FILE:LINE: ... and exits 1.

    scripts/check_layers.py SRC_DIR [STAMP]     (CMake runs it; STAMP is touched on success)
"""
import pathlib
import re
import sys

# Lower modules first. Modules on one line sit side by side: neither may include the other.
LAYERS = [
    ["core"],
    ["model", "manifest"],
    ["backend"],
    ["isolate"],
    ["probe"],
    ["bisect", "chaos", "conformance", "sweep", "guard"],
    ["lint"],  # reruns findings through bisect's verify
    ["hunt"],  # writes finding folders that lint reads
    ["report"],
    ["cli"],
]
LEVEL = {m: i for i, row in enumerate(LAYERS) for m in row}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def violations(src: pathlib.Path):
    for path in sorted(src.rglob("*")):
        if path.suffix not in {".h", ".cpp", ".in"}:
            continue
        module = path.relative_to(src).parts[0]
        if module not in LEVEL:
            yield f"{path}: folder '{module}' is not in scripts/check_layers.py LAYERS"
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) not in LEVEL or m.group(1) == module:
                continue
            target = m.group(1)
            if LEVEL[target] >= LEVEL[module]:
                side = "beside" if LEVEL[target] == LEVEL[module] else "above"
                yield (f"{path}:{number}: {module} includes {target}, a module {side} it "
                       f"(order: {' <- '.join('/'.join(r) for r in LAYERS)})")


def main():
    src = pathlib.Path(sys.argv[1])
    found = list(violations(src))
    for v in found:
        print(v, file=sys.stderr)
    if found:
        print(f"check_layers: {len(found)} upward include(s); see docs/architecture.md", file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        pathlib.Path(sys.argv[2]).touch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
