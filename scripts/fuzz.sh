#!/usr/bin/env bash
# Time-boxed libFuzzer runs of Parity's model paths (fuzz/), as CI runs them through ctest:
#   scripts/fuzz.sh build TREE                      configure + build the clang/ASan/UBSan targets in TREE
#   scripts/fuzz.sh run TREE TARGET RUNS SECONDS SEEDS
#       the same RUNS inputs every time (a fixed -seed), seeded from the folder SEEDS, stopping early
#       after SECONDS: the test suite's run, so a clean run here is a clean run in CI
#   scripts/fuzz.sh explore TREE TARGET SECONDS SEEDS
#       a new random sequence for SECONDS: looking for new bugs (make fuzz); its seed is printed
# A crash, leak, sanitizer report or broken contract (fuzz/fuzz_checks.h) fails the run; the input
# that did it is kept as TREE/artifacts/TARGET-crash-* and printed, ready to replay:
#   TREE/bin/TARGET TREE/artifacts/TARGET-crash-...
# Seeds are copied (libFuzzer adds to its first corpus folder), so the seed folder is never written.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

case "${1:-}" in
build)
  tree="$2"
  if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: clang++ not found (the bootstrap installs clang and libclang-rt-14-dev)" >&2
    exit 1
  fi
  cmake -S "$here" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DPARITY_BUILD_FUZZ=ON -DPARITY_BUILD_TESTS=OFF -DPARITY_BUILD_BENCH=OFF >/dev/null
  cmake --build "$tree" --target fuzz_model_reader fuzz_lint_model fuzz_bisect_model fuzz_fp16_model
  ;;
run | explore)
  if [ "$1" = run ]; then
    tree="$2" target="$3" runs="$4" seconds="$5" seeds="$6"
    # Fixed seed and count: libFuzzer's mutations then follow only the code, so CI replays the
    # inputs a developer's clean run already passed (a slower machine stops on a prefix of them).
    limits=(-seed=1 -runs="$runs" -max_total_time="$seconds")
  else
    tree="$2" target="$3" seconds="$4" seeds="$5"
    limits=(-seed="$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')" -max_total_time="$seconds")
  fi
  bin="$tree/bin/$target"
  [ -x "$bin" ] || { echo "fuzz.sh: $bin is not built (scripts/fuzz.sh build $tree)" >&2; exit 1; }
  work="$(mktemp -d "${TMPDIR:-/tmp}/parity-fuzz-$target.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/corpus" "$tree/artifacts"
  # Small files only: libFuzzer's -max_len follows the largest seed, and big seeds slow every run.
  find "$seeds" -maxdepth 1 -name '*.onnx' -size -128k -exec cp {} "$work/corpus/" \;
  echo "fuzz.sh: $target ${limits[*]} from $(ls "$work/corpus" | wc -l) seeds of $seeds"
  # -rss_limit_mb bounds one input; -timeout flags a hang (shape inference runs in forked children).
  "$bin" "${limits[@]}" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$tree/artifacts/$target-" "$work/corpus" 2>"$work/log" || {
    status=$?
    tail -n 60 "$work/log" >&2
    echo "fuzz.sh: $target failed (exit $status); inputs kept: $(ls "$tree/artifacts" | grep "^$target-" || true)" >&2
    exit 1
  }
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE" "$work/log" || true
  ;;
*)
  sed -n '2,12p' "$0" >&2
  exit 2
  ;;
esac
