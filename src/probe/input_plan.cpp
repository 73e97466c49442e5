#include "probe/input_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/image.h"
#include "core/interrupt.h"
#include "core/npy.h"
#include "core/number_text.h"
#include "core/text.h"
#include "model/tensor_proto.h"

namespace parity::probe {
namespace {

Error input_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::prepare_inputs, std::move(message), std::move(hint));
}

Error arg_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform double in [0, 1) from the top 53 bits.
double unit(uint64_t& state) { return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53; }

template <class T>
void fill_int(Tensor& t, ValueRange r, uint64_t& state) {
  const double lo = std::ceil(r.lo), span = std::max(1.0, std::floor(r.hi) - lo);
  for (auto& v : t.mutable_view<T>()) v = static_cast<T>(lo + std::floor(unit(state) * span));
}

bool is_image_path(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".tga";
}

Result<Tensor> load_input_file(const PlannedInput& in, const std::filesystem::path& path,
                               const InputSettings& settings) {
  const std::string name = in.info.name;
  std::string ext = path.extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext == ".pb") {
    PARITY_ASSIGN_OR_RETURN(nt, model::read_tensor_proto(path, in.info.dtype));
    return std::move(nt.tensor);
  }
  if (is_image_path(path)) {
    ImageLoadOptions opts;
    if (in.info.has_shape && in.info.dims.size() == 4 && in.info.dims[1].is_fixed())
      opts.channels = static_cast<int>(in.info.dims[1].value);
    if (auto it = settings.resize.find(name); it != settings.resize.end()) {
      opts.height = it->second.first;
      opts.width = it->second.second;
    } else if (in.info.dims.size() == 4 && in.info.dims[2].is_fixed() && in.info.dims[3].is_fixed()) {
      opts.height = in.info.dims[2].value;  // the model fixes the size: fit the image to it
      opts.width = in.info.dims[3].value;
    }
    return load_image_nchw(path, opts);
  }
  return input_error("input '" + name + "': cannot tell the format of " + path.string(),
                     "use a .npy, an ONNX TensorProto .pb, or a PNG/JPEG image");
}

// Checks a tensor loaded from a file against what the model declares for that input.
Status check_against_model(const model::ValueInfo& info, const Tensor& t, const std::string& origin) {
  if (t.dtype() != info.dtype)
    return input_error("input '" + info.name + "' from " + origin + " is " +
                           std::string(dtype_name(t.dtype())) + ", the model expects " +
                           std::string(dtype_name(info.dtype)),
                       "convert the file to the model's element type");
  if (!info.has_shape) return ok_status();
  if (t.shape().size() != info.dims.size())
    return input_error("input '" + info.name + "' from " + origin + " has shape " +
                       shape_to_string(t.shape()) + ", the model expects rank " +
                       std::to_string(info.dims.size()));
  for (std::size_t d = 0; d < info.dims.size(); ++d)
    if (info.dims[d].is_fixed() && info.dims[d].value != t.shape()[d])
      return input_error("input '" + info.name + "' from " + origin + " has shape " +
                         shape_to_string(t.shape()) + ", but the model fixes dim " + std::to_string(d) +
                         " at " + std::to_string(info.dims[d].value));
  return ok_status();
}

Result<Shape> resolve_shape(const model::ValueInfo& info, const InputSettings& settings) {
  const std::string& name = info.name;
  if (auto it = settings.shapes.find(name); it != settings.shapes.end()) {
    const Shape& s = it->second;
    if (info.has_shape && s.size() != info.dims.size())
      return input_error("--shape " + name + " gives rank " + std::to_string(s.size()) +
                         ", the model declares rank " + std::to_string(info.dims.size()));
    for (std::size_t d = 0; d < s.size(); ++d) {
      if (s[d] < 0) return input_error("--shape " + name + " has a negative dim");
      if (info.has_shape && info.dims[d].is_fixed() && info.dims[d].value != s[d])
        return input_error("--shape " + name + " sets dim " + std::to_string(d) + " to " +
                           std::to_string(s[d]) + ", but the model fixes it at " +
                           std::to_string(info.dims[d].value));
    }
    return s;
  }
  if (!info.has_shape)
    return input_error("input '" + name + "' has no declared shape (unknown rank)",
                       "set it with --shape " + name + "=D0,D1,...");
  Shape shape;
  for (std::size_t d = 0; d < info.dims.size(); ++d) {
    const auto& dim = info.dims[d];
    if (dim.is_fixed()) {
      shape.push_back(dim.value);
    } else if (!dim.symbol.empty()) {
      auto it = settings.dims.find(dim.symbol);
      if (it == settings.dims.end())
        return input_error(
            "input '" + name + "' dim " + std::to_string(d) + " is symbolic '" + dim.symbol + "'",
            "set it with --dim " + dim.symbol + "=N (or the whole shape with --shape " + name + "=...)");
      shape.push_back(it->second);
    } else {
      return input_error("input '" + name + "' dim " + std::to_string(d) + " is unknown (no name, no size)",
                         "set the whole shape with --shape " + name + "=D0,D1,...");
    }
  }
  return shape;
}

// Sizes guessed for dims the user has not set, small enough to run anywhere: 1 for a batch-like
// dim; 512 for the length of a 2-D float input, a signal (Silero's STFT pads by up to 96 with
// reflection and needs 256 samples, openWakeWord's mel spectrogram 512); 32 elsewhere, enough for a
// few pooling steps.
constexpr int64_t kBatchGuess = 1, kSignalGuess = 512, kOtherGuess = 32;

// The first dim of `info` that is not fixed: a batch axis, wherever it sits (Silero's state
// [2, batch, 128] as much as its input [batch, samples]); -1 when every dim is fixed.
int first_unfixed_dim(const model::ValueInfo& info) {
  for (std::size_t d = 0; d < info.dims.size(); ++d)
    if (!info.dims[d].is_fixed()) return static_cast<int>(d);
  return -1;
}

// Symbols that are some input's batch-like dim: 1 in every input, so that inputs sharing the
// axis agree however the others place it.
std::set<std::string> batch_symbols(const model::ModelInfo& model) {
  std::set<std::string> symbols;
  for (const auto& info : model.inputs)
    if (const int d = first_unfixed_dim(info);
        d >= 0 && !info.dims[static_cast<std::size_t>(d)].symbol.empty())
      symbols.insert(info.dims[static_cast<std::size_t>(d)].symbol);
  return symbols;
}

int64_t guessed_dim(const model::ValueInfo& info, std::size_t position, const std::set<std::string>& batch) {
  const model::Dim& dim = info.dims[position];
  if (static_cast<int>(position) == first_unfixed_dim(info) ||
      (!dim.symbol.empty() && batch.count(dim.symbol)))
    return kBatchGuess;
  if (info.dims.size() == 2 && position == 1 && dtype_is_float(info.dtype)) return kSignalGuess;
  return kOtherGuess;
}

bool needs_shape(const model::ValueInfo& info, const InputSettings& settings) {
  return !settings.load_io && !settings.files.count(info.name) && !settings.shapes.count(info.name);
}

Result<std::vector<std::vector<NamedTensor>>> load_io_samples(const std::vector<PlannedInput>& inputs,
                                                              const std::filesystem::path& dir) {
  std::vector<std::vector<NamedTensor>> samples;
  for (int s = 0;; ++s) {
    const auto set = dir / ("test_data_set_" + std::to_string(s));
    if (!std::filesystem::is_directory(set)) break;
    std::vector<NamedTensor> sample;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto path = set / ("input_" + std::to_string(i) + ".pb");
      PARITY_ASSIGN_OR_RETURN(nt, model::read_tensor_proto(path, inputs[i].info.dtype));
      PARITY_TRY(check_against_model(inputs[i].info, nt.tensor, path.string()));
      sample.push_back({inputs[i].info.name, std::move(nt.tensor)});
    }
    samples.push_back(std::move(sample));
  }
  if (samples.empty())
    return input_error("--load-io " + dir.string() + " holds no test_data_set_0/",
                       "point it at a folder written by --save-io or an ONNX test case");
  return samples;
}

// The bytes random inputs will take, checked against the cap before anything is allocated.
Status check_generated_size(const std::vector<PlannedInput>& inputs,
                            const std::vector<std::optional<Tensor>>& from_files, uint64_t cap) {
  const std::string hint =
      "give a smaller shape with --shape NAME=... or --dim SYMBOL=N, or raise the cap with "
      "--max-input-size SIZE";
  uint64_t total = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (from_files[i]) continue;
    const PlannedInput& in = inputs[i];
    const std::string what = "input '" + in.info.name + "' (" + std::string(dtype_name(in.info.dtype)) +
                             shape_to_string(in.shape) + ")";
    const int64_t n = shape_numel(in.shape);
    uint64_t bytes = 0;
    if (n < 0 || __builtin_mul_overflow(static_cast<uint64_t>(n),
                                        std::max<std::size_t>(dtype_size(in.info.dtype), 1), &bytes))
      return input_error(what + " has more elements than a tensor can hold", hint);
    if (bytes > cap)
      return input_error(what + " needs " + std::to_string(bytes) + " bytes (" + describe_bytes(bytes) +
                             "), over the " + describe_bytes(cap) + " cap on generated inputs",
                         hint);
    total += bytes;
    if (total > cap)
      return input_error("the generated inputs need " + describe_bytes(total) + " together (with " + what +
                             "), over the " + describe_bytes(cap) + " cap",
                         hint);
  }
  return ok_status();
}

}  // namespace

std::string describe_bytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

ValueRange default_range(DType dtype) {
  if (dtype == DType::boolean) return {0, 2};
  if (dtype_is_integer(dtype)) return {0, 10};
  return {-1, 1};
}

uint64_t derive_seed(uint64_t run_seed, const std::string& name, int sample) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the name, mixed with seed and sample
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  uint64_t state = run_seed ^ h ^ (static_cast<uint64_t>(sample) * 0x9e3779b97f4a7c15ull);
  return splitmix64(state);
}

Result<Tensor> random_tensor(DType dtype, const Shape& shape, ValueRange r, uint64_t seed) {
  if (dtype == DType::string)
    return input_error("cannot generate random string data", "give string inputs with --input NAME=FILE.pb");
  PARITY_ASSIGN_OR_RETURN(t, Tensor::zeros(dtype, shape));
  uint64_t state = seed;
  auto real = [&] { return r.lo + unit(state) * (r.hi - r.lo); };
  switch (dtype) {
    case DType::float32:
      for (auto& v : t.mutable_view<float>()) v = static_cast<float>(real());
      break;
    case DType::float64:
      for (auto& v : t.mutable_view<double>()) v = real();
      break;
    case DType::float16:
      for (auto& v : t.mutable_view<uint16_t>()) v = float_to_half(static_cast<float>(real()));
      break;
    case DType::bfloat16:
      for (auto& v : t.mutable_view<uint16_t>()) v = float_to_bfloat16(static_cast<float>(real()));
      break;
    case DType::boolean:
      for (auto& v : t.mutable_view<uint8_t>()) v = unit(state) < 0.5 ? 0 : 1;
      break;
    case DType::int8: fill_int<int8_t>(t, r, state); break;
    case DType::uint8: fill_int<uint8_t>(t, r, state); break;
    case DType::int16: fill_int<int16_t>(t, r, state); break;
    case DType::uint16: fill_int<uint16_t>(t, r, state); break;
    case DType::int32: fill_int<int32_t>(t, r, state); break;
    case DType::uint32: fill_int<uint32_t>(t, r, state); break;
    case DType::int64: fill_int<int64_t>(t, r, state); break;
    case DType::uint64: fill_int<uint64_t>(t, r, state); break;
    default:
      return input_error("cannot generate random data of type " + std::string(dtype_name(dtype)),
                         "give this input with --input NAME=FILE");
  }
  return t;
}

std::vector<std::string> MissingShapes::all_flags() const {
  std::vector<std::string> flags = suggested_flags;
  flags.insert(flags.end(), value_flags.begin(), value_flags.end());
  return flags;
}

std::string MissingShapes::hint() const {
  std::string flags;
  for (const auto& f : all_flags()) flags += (flags.empty() ? "" : " ") + f;
  std::string h = flags.empty() ? ""
                                : "set them with " + flags +
                                      " (guessed sizes: 1 for a batch-like dim, 512 for a 2-D float "
                                      "input's length, 32 for the others; use your model's real ones)";
  const bool unknown_rank = std::any_of(problems.begin(), problems.end(), [](const std::string& p) {
    return p.find("(unknown rank)") != std::string::npos;
  });
  if (unknown_rank || flags.empty())
    h += std::string(h.empty() ? "" : "; ") +
         "give an input of unknown rank its whole shape with --shape NAME=D0,D1,...";
  return h;
}

MissingShapes find_missing_shapes(const model::ModelInfo& model, const InputSettings& settings) {
  MissingShapes missing;
  std::set<std::string> suggested_symbols;
  const std::set<std::string> batch = batch_symbols(model);
  for (const auto& info : model.inputs) {
    if (!needs_shape(info, settings)) continue;
    if (!info.has_shape) {
      missing.problems.push_back("input '" + info.name + "' has no declared shape (unknown rank)");
      continue;
    }
    std::string shape_flag;  // for unnamed dims, the whole shape with guesses filled in
    bool unnamed = false;
    for (std::size_t d = 0; d < info.dims.size(); ++d) {
      const model::Dim& dim = info.dims[d];
      int64_t value = dim.value;
      if (!dim.is_fixed() && !dim.symbol.empty()) {
        if (auto it = settings.dims.find(dim.symbol); it != settings.dims.end()) {
          value = it->second;
        } else {
          value = guessed_dim(info, d, batch);
          missing.problems.push_back("input '" + info.name + "' dim " + std::to_string(d) + " is symbolic '" +
                                     dim.symbol + "'");
          if (suggested_symbols.insert(dim.symbol).second)
            missing.suggested_flags.push_back("--dim " + dim.symbol + "=" + std::to_string(value));
        }
      } else if (!dim.is_fixed()) {
        value = guessed_dim(info, d, batch);
        unnamed = true;
        missing.problems.push_back("input '" + info.name + "' dim " + std::to_string(d) +
                                   " is unknown (no name, no size)");
      }
      shape_flag += (d == 0 ? "" : ",") + std::to_string(value);
    }
    if (unnamed) missing.suggested_flags.push_back("--shape " + info.name + "=" + shape_flag);
  }
  // Random integers in [0, 10) for an input the model compares with a constant take the branch
  // meant for no real value (Silero's `sr`: not 16000, so the 8 kHz branch): use the constant.
  for (const auto& info : model.inputs) {
    const auto c = model.compared_with.find(info.name);
    if (c == model.compared_with.end() || settings.ranges.count(info.name) ||
        settings.files.count(info.name) || settings.load_io)
      continue;
    missing.value_notes.push_back("input '" + info.name + "' is compared with " + std::to_string(c->second) +
                                  " (random integers would take another branch)");
    missing.value_flags.push_back("--range " + info.name + "=" + std::to_string(c->second) + "," +
                                  std::to_string(c->second + 1));
  }
  return missing;
}

namespace {

// Every name and symbol the user gave must exist (a typo would silently be ignored), and every
// shape must be known, all missing dims reported at once.
Status check_settings(const model::ModelInfo& model, const InputSettings& settings) {
  auto known = [&](const std::string& name) {
    return std::any_of(model.inputs.begin(), model.inputs.end(),
                       [&](const auto& i) { return i.name == name; });
  };
  std::string names;
  for (const auto& i : model.inputs) names += (names.empty() ? "" : ", ") + i.name;
  auto check_names = [&](const auto& map, const char* flag) -> Status {
    for (const auto& [name, v] : map)
      if (!known(name))
        return input_error(std::string(flag) + " names '" + name + "', which is not an input of the model",
                           "inputs are: " + names);
    return ok_status();
  };
  PARITY_TRY(check_names(settings.shapes, "--shape"));
  for (const auto& [symbol, value] : settings.dims) {
    bool used = false;
    std::string symbols;
    for (const auto& i : model.inputs)
      for (const auto& d : i.dims) {
        used = used || d.symbol == symbol;
        if (!d.symbol.empty() && symbols.find("'" + d.symbol + "'") == std::string::npos)
          symbols += (symbols.empty() ? "" : ", ") + ("'" + d.symbol + "'");
      }
    if (!used)
      return input_error(
          "--dim names '" + symbol + "', which no input of the model uses",
          symbols.empty() ? "the model has no symbolic dims" : "symbolic dims are: " + symbols);
    if (value < 0) return input_error("--dim " + symbol + " must not be negative");
  }
  PARITY_TRY(check_names(settings.ranges, "--range"));
  PARITY_TRY(check_names(settings.files, "--input"));
  PARITY_TRY(check_names(settings.resize, "--resize"));
  if (settings.samples < 1) return input_error("--samples must be at least 1");
  if (const MissingShapes missing = find_missing_shapes(model, settings); !missing.empty()) {
    std::string what;
    for (const auto& p : missing.problems) what += (what.empty() ? "" : "; ") + p;
    return input_error(what, missing.hint());
  }
  return ok_status();
}

// What all `samples` input sets hold in memory together, checked against the same cap before
// anything is built: --samples 100000000 of a one-element input is gigabytes of tensors, not
// bytes. Each tensor counts its data plus kTensorOverhead (object, shape, allocation); file
// inputs count from the second sample on (each set holds its own copy).
Status check_samples_size(const std::vector<PlannedInput>& inputs,
                          const std::vector<std::optional<Tensor>>& from_files, int samples, uint64_t cap) {
  constexpr uint64_t kTensorOverhead = 256;
  uint64_t generated = 0, copied = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const uint64_t data = from_files[i]
                              ? from_files[i]->byte_size()
                              : static_cast<uint64_t>(std::max<int64_t>(shape_numel(inputs[i].shape), 0)) *
                                    std::max<std::size_t>(dtype_size(inputs[i].info.dtype), 1);
    (from_files[i] ? copied : generated) += data + kTensorOverhead;
  }
  const uint64_t n = static_cast<uint64_t>(samples);
  uint64_t total = 0;
  const bool overflow =
      __builtin_mul_overflow(generated, n, &total) || __builtin_add_overflow(total, copied * (n - 1), &total);
  if (overflow || total > cap)
    return input_error("--samples " + std::to_string(samples) + ": the input sets would take " +
                           (overflow ? std::string("more than 16 EiB") : describe_bytes(total)) +
                           " together (" + describe_bytes(generated + copied) + " each), over the " +
                           describe_bytes(cap) + " --max-input-size cap on all samples",
                       "use fewer --samples (or smaller inputs), or raise --max-input-size SIZE");
  return ok_status();
}

}  // namespace

Result<InputPlan> plan_inputs(const model::ModelInfo& model, const InputSettings& settings) {
  PARITY_TRY(check_settings(model, settings));

  InputPlan plan;
  std::vector<std::optional<Tensor>> file_tensors;
  for (const auto& info : model.inputs) {
    PlannedInput in;
    in.info = info;
    in.range = default_range(info.dtype);
    if (auto it = settings.ranges.find(info.name); it != settings.ranges.end()) in.range = it->second;
    std::optional<Tensor> from_file;
    if (settings.load_io) {
      in.source = "load-io";
    } else if (auto it = settings.files.find(info.name); it != settings.files.end()) {
      PARITY_ASSIGN_OR_RETURN(t, load_input_file(in, it->second, settings));
      PARITY_TRY(check_against_model(info, t, it->second.string()));
      in.shape = t.shape();
      in.source = "file:" + it->second.string();
      from_file = std::move(t);
    } else {
      PARITY_ASSIGN_OR_RETURN(shape, resolve_shape(info, settings));
      in.shape = std::move(shape);
      in.source = "random";
    }
    file_tensors.push_back(std::move(from_file));
    plan.inputs.push_back(std::move(in));
  }

  if (settings.load_io) {
    PARITY_ASSIGN_OR_RETURN(samples, load_io_samples(plan.inputs, *settings.load_io));
    for (std::size_t i = 0; i < plan.inputs.size(); ++i) plan.inputs[i].shape = samples[0][i].tensor.shape();
    plan.samples = std::move(samples);
    return plan;
  }
  PARITY_TRY(check_generated_size(plan.inputs, file_tensors, settings.max_input_bytes));
  PARITY_TRY(check_samples_size(plan.inputs, file_tensors, settings.samples, settings.max_input_bytes));
  for (int s = 0; s < settings.samples; ++s) {
    // Building many samples takes a while: the first Ctrl-C/SIGTERM stops it here, not a second one.
    if (interrupted())
      return make_error(ErrorKind::interrupted, Stage::prepare_inputs,
                        "interrupted while generating input sample " + std::to_string(s + 1) + " of " +
                            std::to_string(settings.samples));
    std::vector<NamedTensor> sample;
    for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
      const auto& in = plan.inputs[i];
      if (file_tensors[i]) {
        sample.push_back({in.info.name, *file_tensors[i]});
        continue;
      }
      PARITY_ASSIGN_OR_RETURN(
          t, random_tensor(in.info.dtype, in.shape, in.range, derive_seed(settings.seed, in.info.name, s)));
      sample.push_back({in.info.name, std::move(t)});
    }
    plan.samples.push_back(std::move(sample));
  }
  return plan;
}

Result<std::pair<std::string, std::string>> split_assignment(const std::string& text,
                                                             const std::string& flag) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return arg_error(flag + " expects NAME=VALUE, got '" + text + "'");
  return std::pair{text.substr(0, eq), text.substr(eq + 1)};
}

Result<std::vector<int64_t>> parse_int_list(const std::string& text, const std::string& flag) {
  std::vector<int64_t> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find_first_of(",x", pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size())
      return arg_error(flag + ": '" + text + "' is not a list of integers", "write it like 1,3,224,224");
    out.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

Result<std::vector<double>> parse_number_list(const std::string& text, const std::string& flag) {
  std::vector<double> out;
  for (const auto& item : split(text, ',')) {
    // One checked parser for every number a user types: finite (an inf range draws NaN, a NaN
    // tolerance passes everything), the whole item.
    auto v = parse_finite(item, flag);
    if (!v.ok())
      return arg_error(flag + ": '" + text + "' is not a list of finite numbers",
                       "write it like 0,1 or -1e3,1e3");
    out.push_back(*v);
  }
  return out;
}

namespace {
Error size_error(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::prepare_inputs, std::move(message), std::move(hint));
}
}  // namespace

Status set_spatial_size(const std::string& input, int64_t height, int64_t width, const model::ModelInfo& info,
                        InputSettings& in) {
  const std::string label = input + "=" + std::to_string(height) + "x" + std::to_string(width);
  if (in.files.count(input)) {
    in.resize[input] = {height, width};
    return ok_status();
  }
  const auto it =
      std::find_if(info.inputs.begin(), info.inputs.end(), [&](const auto& v) { return v.name == input; });
  if (it == info.inputs.end())
    return size_error("size " + label + " names '" + input + "', which is not an input of the model");
  if (!it->has_shape || it->dims.size() < 2)
    return size_error("size " + label + " needs input '" + input + "' to have a declared rank of 2 or more",
                      "give its whole shape with --shape instead");
  const std::size_t rank = it->dims.size();
  Shape shape(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const model::Dim& dim = it->dims[d];
    if (d == rank - 2 || d == rank - 1) {
      shape[d] = d == rank - 2 ? height : width;
    } else if (dim.is_fixed()) {
      shape[d] = dim.value;
    } else if (auto v = in.dims.find(dim.symbol); !dim.symbol.empty() && v != in.dims.end()) {
      shape[d] = v->second;
    } else if (d == 0) {
      shape[d] = 1;
    } else {
      return size_error(
          "input '" + input + "' dim " + std::to_string(d) + " is not fixed",
          "set it with --dim " + (dim.symbol.empty() ? std::string("SYMBOL") : dim.symbol) + "=N");
    }
  }
  in.shapes[input] = shape;
  return ok_status();
}

}  // namespace parity::probe
