// probe/input_plan.h: what to feed a model: shapes resolved from the model and the user's
// --dim/--shape/--range/--input/--resize settings, and the tensors built from them.
//
// Random data is seeded and generated with a portable generator (splitmix64), so the same seed
// gives the same inputs on every machine and standard library; repro folders record the seed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/onnx_model.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::probe {

struct ValueRange {
  double lo = 0;
  double hi = 1;
};

// The user's input settings, as given on the command line (all keyed by name).
struct InputSettings {
  std::map<std::string, int64_t> dims;                        // --dim symbol=value
  std::map<std::string, Shape> shapes;                        // --shape input=1,3,224,224
  std::map<std::string, ValueRange> ranges;                   // --range input=lo,hi
  std::map<std::string, std::filesystem::path> files;         // --input input=FILE (.npy, .pb, image)
  std::map<std::string, std::pair<int64_t, int64_t>> resize;  // --resize input=H,W (images)
  std::optional<std::filesystem::path> load_io;               // --load-io DIR (test_data_set_N/input_K.pb)
  uint64_t seed = 0;
  int samples = 1;
  // Generated (random) inputs of one sample may take at most this many bytes together: a model
  // that declares a [100000,100000,1000] input gets a usage error naming it, not a bad_alloc. All
  // `samples` input sets together too (each tensor counted with its overhead), so a huge
  // --samples is refused up front rather than filling memory.
  uint64_t max_input_bytes = kDefaultMaxInputBytes;
  static constexpr uint64_t kDefaultMaxInputBytes = uint64_t{4} << 30;
};

// Default range of random values: floats in [-1, 1], integers in [0, 10), bool 0/1.
ValueRange default_range(DType dtype);

// One resolved input: where its data comes from.
struct PlannedInput {
  model::ValueInfo info;
  Shape shape;         // concrete shape (for files: the file's shape)
  ValueRange range;    // for random data
  std::string source;  // "random", "file:PATH", "load-io"
};

struct InputPlan {
  std::vector<PlannedInput> inputs;
  std::vector<std::vector<NamedTensor>> samples;  // samples[s][i] matches inputs[i]
};

// "4.0 GiB", "512 B": sizes in messages.
std::string describe_bytes(uint64_t bytes);

// What an input set still lacks before random inputs can be built: symbolic dims with no --dim,
// and inputs of unknown rank or with unnamed dims and no --shape (an input from a file or
// --load-io needs neither). All of them at once, so a user fixes a model in one try, not one per dim.
struct MissingShapes {
  std::vector<std::string> problems;  // "input 'x' dim 0 is symbolic 'batch'"
  // Ready-to-paste flags that would fill them ("--dim batch=1", "--shape x=1,3,32,32"): guessed
  // sizes, 1 for a batch-like dim (each input's first unknown dim, and its symbol everywhere), 512
  // for the length of a 2-D float input (a signal), 32 for the others; inputs of unknown rank have
  // none.
  std::vector<std::string> suggested_flags;
  // Not missing, but random data would take a branch no real input takes: an integer input the
  // model compares with a constant ("input 'sr' is compared with 16000 ..."), and the flag that
  // feeds the constant ("--range sr=16000,16001").
  std::vector<std::string> value_notes;
  std::vector<std::string> value_flags;
  bool empty() const { return problems.empty(); }
  // suggested_flags, then value_flags: everything `inspect` suggests pasting.
  std::vector<std::string> all_flags() const;
  // "set them with --dim batch=1 --dim h=32 (guessed sizes: ...)", for hints.
  std::string hint() const;
};
MissingShapes find_missing_shapes(const model::ModelInfo& model, const InputSettings& settings);

// Resolves shapes and builds every sample's tensors. Errors are bad_input at prepare_inputs and
// name the input and dim ("input 'x' dim 0 is symbolic 'batch'"), every missing one at once.
Result<InputPlan> plan_inputs(const model::ModelInfo& model, const InputSettings& settings);

// Sets the last two dims (H, W) of `input`: a resize for an input read from a file, a whole shape
// otherwise (other dims from the model, a --dim, or 1 for a leading symbolic one). bad_input at
// prepare_inputs when the input is unknown, has no declared rank >= 2 or an unset inner dim.
// sweep's size axis and the guard's preflight sample size their inputs with it.
Status set_spatial_size(const std::string& input, int64_t height, int64_t width, const model::ModelInfo& info,
                        InputSettings& in);

// Seeded uniform random tensor in [range.lo, range.hi) (integers: [lo, hi)); deterministic.
Result<Tensor> random_tensor(DType dtype, const Shape& shape, ValueRange range, uint64_t seed);

// Stable 64-bit seed for input `name` of sample `sample` under the run seed.
uint64_t derive_seed(uint64_t run_seed, const std::string& name, int sample);

// Parsers for the command-line forms; errors are bad_input at parse_args naming the flag.
Result<std::pair<std::string, std::string>> split_assignment(const std::string& text,
                                                             const std::string& flag);
Result<std::vector<int64_t>> parse_int_list(const std::string& text, const std::string& flag);
Result<std::vector<double>> parse_number_list(const std::string& text, const std::string& flag);

}  // namespace parity::probe
