// hunt/op_space.h: the spaces `parity hunt` searches. An op space is one ONNX op with named integer
// parameters (sizes, channel counts, attribute values, mode switches) and a builder that turns a
// point of the space into a one-node model (model/op_model.h), or says the point is not a valid
// model. Sampling is boundary-heavy: most draws come from each parameter's list of values where
// kernels change code path (around powers of two, vector widths, workgroup sizes, 0, -1).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "model/op_model.h"
#include "parity/result.h"

namespace parity::hunt {

// A point of a space: parameter name -> value. Ordered, so its text and hash are stable.
using Point = std::map<std::string, int64_t>;

// How reduction treats a parameter: a value is shrunk toward its smallest magnitude and its
// neighbours tried; a count (a graph's nodes) is searched down to the smallest that still fails; a
// seed (a graph's generator) is neither: its neighbours are unrelated graphs.
enum class ParamKind { value, count, seed };

struct Param {
  std::string name;               // "C"
  std::string meaning;            // "input channels": for boundary descriptions
  std::vector<int64_t> boundary;  // drawn most of the time
  int64_t lo = 0, hi = 0;         // otherwise uniform in [lo, hi]
  ParamKind kind = ParamKind::value;
};

struct OpSpace {
  std::string name;     // "Conv1D": what --ops names
  std::string op_type;  // "Conv"
  std::string summary;  // one line for --list
  std::vector<Param> params;
  // The model at `p`, its weights drawn from `weight_seed`; bad_input when `p` breaks a
  // constraint of the op (the caller draws again).
  std::function<Result<model::OpModel>(const Point& p, uint64_t weight_seed)> build;
};

// Builders' pieces. A point the op rejects (the caller draws again):
Error bad_point(const std::string& why);
// A parameter that switches something on or off.
inline const std::vector<int64_t> kSwitch = {0, 1};
// A graph input, its values drawn from the dtype's default interval or from [lo, hi].
model::OpInput data(const std::string& name, Shape shape, DType dtype = DType::float32,
                    std::optional<std::pair<double, double>> range = std::nullopt);
// An initializer of random values in [lo, hi] (weights, scales, biases), drawn from (seed, name);
// an int64 initializer (axes, pads, indices), 1-D unless `shape` says otherwise.
Result<model::OpInput> weight(const std::string& name, Shape shape, uint64_t seed, double lo = -1,
                              double hi = 1, DType dtype = DType::float32);
model::OpInput int64s(const std::string& name, const std::vector<int64_t>& values,
                      std::optional<Shape> shape = {});

// Every space, in a stable order (the order cases are drawn from).
const std::vector<OpSpace>& op_spaces();
const OpSpace* find_space(const std::string& name);

// One draw: each parameter from its boundary list with probability 0.8, else uniform.
Point sample_point(const OpSpace& space, std::mt19937_64& rng);

// "C=129 K=3 L=3 M=128 pad=1"
std::string point_text(const Point& p);
// One value as point_text writes it: "129", "max" for the int64 maximum (exporters' "to the end").
std::string value_text(int64_t v);
// "128, 130", or "-" for none: the neighbour lists of boundary tables.
std::string values_list(const std::vector<int64_t>& v);

// The values to try around `p[name]` when asking which neighbours still fail: v-1 and v+1 within
// the parameter's range, and for sizes the next boundary values on each side.
std::vector<int64_t> neighbour_values(const Param& param, int64_t value);

// Boundary values past every value in `tried` on each side of `value`, nearest first, at most
// `per_side` a side: where to look when every neighbour failed too (block=128 and 64 fail: 32?).
std::vector<int64_t> further_values(const Param& param, int64_t value, const std::vector<int64_t>& tried,
                                    std::size_t per_side);

}  // namespace parity::hunt
