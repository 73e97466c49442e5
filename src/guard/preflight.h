// guard/preflight.h: the known-answer check a backend passes before the guard trusts it.
//
// No adapter feature tells a device that computes wrong from one that works (an ANGLE adapter
// that reports shader-f16 and computes garbage; ORT's WebGPU EP reading the wrong scale of a
// blocked DequantizeLinear). So the backend runs the declared file on the manifest's sample (the
// sweep's seeded inputs at the declaration's proven size) and its outputs are judged against the
// reference backend's outputs for the same file, with the rules a sweep cell uses (probe's
// tolerance for the file's precision). The verdict is cached on disk per backend, runtime version,
// adapter and file, so an application pays for it once per machine and driver.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parity/manifest.h"
#include "parity/result.h"
#include "parity/tensor.h"

namespace parity::guard {

// The sample's inputs: settings of the manifest's [sweep.inputs], sized to the declaration's
// evidence size when it has one. bad_input when the manifest records no sweep.
Result<std::vector<NamedTensor>> preflight_sample(const manifest::Manifest& m, const manifest::Declaration& d,
                                                  const std::filesystem::path& file,
                                                  const std::filesystem::path& base_dir);

struct PreflightVerdict {
  bool passed = false;
  std::string detail;  // "y: max_abs 0 cosine 1.000000" or the first failing output's rule
};

// Judges `actual` against `expected` (the reference's outputs for the same file) as a sweep cell
// judges a file of `precision` on a backend of `arithmetic` (backend::reduced_arithmetic).
PreflightVerdict judge_preflight(const std::vector<NamedTensor>& actual,
                                 const std::vector<NamedTensor>& expected, const std::string& precision,
                                 std::string_view arithmetic = {});

// The adapter's limits against what the declared file needs (google/xrblocks PR #483: a GPU with a
// 128 MiB limit picked for a model needing 384 MiB): empty when they fit or either side is
// unknown, else one line naming the limit. `adapter` holds the backend's "adapter.limits.*"
// properties. The file's largest weight must fit maxBufferSize (one buffer); on web-jsep, which
// binds each tensor whole, maxStorageBufferBindingSize too (ORT's WebGPU EP binds large buffers in
// segments, docs/sweep.md, so that limit is not a reason to refuse it).
std::string adapter_shortfall(const manifest::Declaration& d,
                              const std::vector<std::pair<std::string, std::string>>& adapter);

// A folder of cached verdicts (preflight.json inside), safe to share between processes: writes
// replace the file atomically and keep entries other processes wrote meanwhile. An empty path
// caches nothing.
class PreflightCache {
 public:
  explicit PreflightCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // The key of one verdict: what would make it stale if it changed.
  static std::string key(const manifest::Declaration& d, const std::string& file_sha256,
                         const std::string& runtime_version, const std::string& adapter);
  std::optional<PreflightVerdict> find(const std::string& key) const;
  // Failure to write is not an error of the run (the check is simply repeated next time).
  void store(const std::string& key, const PreflightVerdict& verdict) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// $XDG_CACHE_HOME/parity, else ~/.cache/parity; empty when neither is known.
std::filesystem::path default_cache_dir();

}  // namespace parity::guard
