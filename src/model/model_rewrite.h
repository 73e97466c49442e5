// model/model_rewrite.h: exact rewrites of a model that `parity lint --fix` applies, each keeping
// every graph input, output and value name it does not replace: expand a blocked 1-D
// DequantizeLinear to per-element scales, write the kernel_shape a Conv's weight implies, replace
// a constant island by the values it computes, and write the nodes in topological order.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::model {

class ModelRewriter {
 public:
  ~ModelRewriter();
  ModelRewriter(ModelRewriter&&) noexcept;
  ModelRewriter& operator=(ModelRewriter&&) noexcept;

  static Result<ModelRewriter> open(const std::filesystem::path& path);

  // Node `name` (a DequantizeLinear with block_size over a 1-D input): scale and zero point become
  // one per element (scale[i / block_size]), new initializers, and block_size goes. The values
  // are the same numbers; the per-axis path of a kernel computes them.
  Status expand_blocked_dequantize(const std::string& name);
  // Node `name` (a DequantizeLinear with a one-element scale, and zero point, over an input of
  // `rows` rows): scale and zero point become `rows` copies of their value on axis 0. The same
  // numbers, through the per-axis path (JSEP reads a per-tensor scale per row and is wrong).
  Status expand_per_tensor_dequantize(const std::string& name, int64_t rows);
  // Node `name` (a Slice with constant starts, ends, axes and steps over data of `data_shape`): each
  // negative-step axis whose start is neither -1 nor at the end first gets a forward slice [0,
  // start], then slices from -1 with its own end and step. The same elements, in the same order,
  // along a path the WebGPU EP computes right (it starts a negative-step slice at the last element).
  Status rewrite_negative_step_slice(const std::string& name, const Shape& data_shape);
  // Node `name` (a Conv without kernel_shape): kernel_shape = the weight initializer's spatial dims.
  Status add_conv_kernel_shape(const std::string& name);
  // Every value in `values` becomes an initializer of that value; then nodes whose outputs are no
  // longer read by anything (and are not graph outputs) are removed, repeatedly, and so are
  // initializers nothing reads. Returns the nodes removed.
  Result<std::vector<std::string>> replace_with_constants(const std::vector<NamedTensor>& values);
  // Orders the nodes topologically (a file that lists a consumer before its producer).
  Status sort_topologically();
  // Replaces top-level If node `name` by the nodes of one branch (then_branch when `then_taken`),
  // in its place: the branch's initializers and value_info move to the graph, its outputs take the
  // If's output names (an Identity where a branch passes an outer value through), and a value it
  // defines whose name the graph already uses is renamed ("<if>/<name>"), in nested subgraphs too.
  // Node names are kept, so a culprit inside the branch keeps its name. Nested Ifs become top-level.
  Status inline_if(const std::string& name, bool then_taken);
  // Replaces top-level Loop `name` by `trips` copies of its body, iteration i's nodes and values
  // named "<loop>/iter<i>/<name>": the iteration number a Constant, loop-carried values chained,
  // scan outputs stacked (Unsqueeze + Concat on axis 0). Only a loop that cannot stop early (its
  // body passes the condition through unchanged, or makes it a constant true) is unrolled.
  Status unroll_loop(const std::string& name, int64_t trips);
  // The same for top-level Scan `name` over `length` steps along axis 0, forward (slices by
  // Gather, scan outputs stacked); other axes or directions are refused.
  Status unroll_scan(const std::string& name, int64_t length);

  Status save(const std::filesystem::path& path) const;

 private:
  struct Impl;
  explicit ModelRewriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace parity::model
