#include "cli/input_options.h"

#include "cli/common_options.h"
#include "cli/verb.h"

namespace parity::cli {
std::vector<std::string> input_flags(const InputArgs& a) {
  std::vector<std::string> c{"--seed", std::to_string(a.seed)};
  auto add = [&](const char* flag, const std::vector<std::string>& values) {
    for (const auto& v : values) c.insert(c.end(), {flag, v});
  };
  add("--dim", a.dims);
  add("--shape", a.shapes);
  add("--range", a.ranges);
  add("--input", a.inputs);
  add("--resize", a.resizes);
  if (!a.load_io.empty()) c.insert(c.end(), {"--load-io", a.load_io});
  if (!a.max_input_size.empty()) c.insert(c.end(), {"--max-input-size", a.max_input_size});
  return c;
}

void add_input_options(CLI::App& cmd, InputArgs& a) {
  cmd.add_option("--dim", a.dims, "symbolic dim value, SYMBOL=N (repeatable)");
  cmd.add_option("--shape", a.shapes, "whole shape of an input, NAME=D0,D1,... (repeatable)");
  cmd.add_option("--range", a.ranges,
                 "value range of random data, NAME=LO,HI (default: floats -1,1; ints 0,10)");
  cmd.add_option("--input", a.inputs, "input from a file, NAME=FILE (.npy, .pb TensorProto, PNG/JPEG)");
  cmd.add_option("--resize", a.resizes, "resize an image input, NAME=HEIGHT,WIDTH");
  cmd.add_option("--seed", a.seed, "seed of the random inputs")->capture_default_str();
  cmd.add_option("--load-io", a.load_io, "read inputs from DIR/test_data_set_N/input_K.pb");
  cmd.add_option("--max-input-size", a.max_input_size,
                 "cap on the inputs held in memory, like --max-memory: 8G, 512M (default 4G): the generated "
                 "inputs of one sample, and all --samples together; a model declaring a huge input or a "
                 "huge --samples gets a usage error instead of exhausting memory");
}

Result<probe::InputSettings> build_input_settings(const InputArgs& a) {
  probe::InputSettings in;
  for (const auto& d : a.dims) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(d, "--dim"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_int_list(kv.second, "--dim " + kv.first));
    if (v.size() != 1) return usage_error("--dim " + d + ": expects one integer");
    in.dims[kv.first] = v[0];
  }
  for (const auto& s : a.shapes) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(s, "--shape"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_int_list(kv.second, "--shape " + kv.first));
    in.shapes[kv.first] = v;
  }
  for (const auto& r : a.ranges) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(r, "--range"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_number_list(kv.second, "--range " + kv.first));
    if (v.size() != 2 || !(v[0] < v[1])) return usage_error("--range " + r + ": expects LO,HI with LO < HI");
    in.ranges[kv.first] = {v[0], v[1]};
  }
  for (const auto& f : a.inputs) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(f, "--input"));
    in.files[kv.first] = kv.second;
  }
  for (const auto& r : a.resizes) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(r, "--resize"));
    PARITY_ASSIGN_OR_RETURN(v, probe::parse_int_list(kv.second, "--resize " + kv.first));
    if (v.size() != 2 || v[0] <= 0 || v[1] <= 0)
      return usage_error("--resize " + r + ": expects HEIGHT,WIDTH");
    in.resize[kv.first] = {v[0], v[1]};
  }
  in.seed = a.seed;
  if (!a.max_input_size.empty()) {
    PARITY_ASSIGN_OR_RETURN(cap, parse_size(a.max_input_size, "--max-input-size"));
    in.max_input_bytes = cap;
  }
  if (!a.load_io.empty()) in.load_io = a.load_io;
  return in;
}

}  // namespace parity::cli
