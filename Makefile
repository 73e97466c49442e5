# Thin wrapper over CMake presets. The README's two commands are `make demo` and `make test`.
.PHONY: all bootstrap configure build demo test bench format clean

PRESET ?= default
BUILD_DIR ?= build
CTEST_ARGS ?=

all: build

bootstrap:
	./scripts/bootstrap.sh

configure: bootstrap
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

# Runs parity probe on the PP-OCRv4 text detector, on CPU and WebGPU, with a bundled image.
demo: build
	./scripts/demo.sh

test: build
	ctest --preset $(PRESET) $(CTEST_ARGS)

bench: build
	./scripts/bench.sh

format:
	find include src tests tools bench fuzz -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
