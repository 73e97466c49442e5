# Thin wrapper over CMake presets. The README's two commands are `make demo` and `make test`.
.PHONY: all bootstrap configure build demo test bench fuzz format clean

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

# Looks for new bugs: each model path fuzzed FUZZ_SECONDS with a random seed (the test suite's
# runs replay a fixed sequence). A failing input is kept under build/fuzz-tree/artifacts/.
FUZZ_SECONDS ?= 300
fuzz: build
	./scripts/fuzz.sh build $(BUILD_DIR)/fuzz-tree
	for t in fuzz_model_reader fuzz_lint_model fuzz_bisect_model fuzz_fp16_model; do \
	  ./scripts/fuzz.sh explore $(BUILD_DIR)/fuzz-tree $$t $(FUZZ_SECONDS) $(BUILD_DIR)/test-models || exit 1; done

format:
	find include src tests tools bench fuzz -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
