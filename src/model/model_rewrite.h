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
  // Node `name` (a Conv without kernel_shape): kernel_shape = the weight initializer's spatial dims.
  Status add_conv_kernel_shape(const std::string& name);
  // Every value in `values` becomes an initializer of that value; then nodes whose outputs are no
  // longer read by anything (and are not graph outputs) are removed, repeatedly, and so are
  // initializers nothing reads. Returns the nodes removed.
  Result<std::vector<std::string>> replace_with_constants(const std::vector<NamedTensor>& values);
  // Orders the nodes topologically (a file that lists a consumer before its producer).
  Status sort_topologically();

  Status save(const std::filesystem::path& path) const;

 private:
  struct Impl;
  explicit ModelRewriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace parity::model
