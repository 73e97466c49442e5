#include "hunt/hunt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "bisect/tensor_check.h"
#include "core/file_io.h"
#include "core/interrupt.h"
#include "core/run_lock.h"
#include "core/scratch_dir.h"
#include "hunt/finding_folder.h"
#include "model/op_model.h"
#include "parity/version.h"
#include "probe/input_plan.h"
#include "probe/precision.h"

namespace parity::hunt {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

uint64_t mix(uint64_t seed, uint64_t k) {  // splitmix64 of (seed, k): independent streams per case
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (k + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Error bad_invocation(std::string message, std::string hint = {}) {
  return make_error(ErrorKind::bad_input, Stage::parse_args, std::move(message), std::move(hint));
}

Result<std::vector<const OpSpace*>> resolve_spaces(const std::vector<std::string>& names) {
  std::vector<const OpSpace*> out;
  if (names.empty()) {
    for (const auto& s : op_spaces()) out.push_back(&s);
    return out;
  }
  for (const auto& n : names) {
    const OpSpace* s = find_space(n);
    if (!s) {
      std::string known;
      for (const auto& k : op_spaces()) known += (known.empty() ? "" : ", ") + k.name;
      return bad_invocation("no op space named '" + n + "'", "known spaces: " + known);
    }
    out.push_back(s);
  }
  return out;
}

// Random values a graph input gets: floats in [-1, 1]; 8-bit integers over their whole range.
probe::ValueRange input_range(DType d) {
  if (d == DType::int8) return {-128, 127};
  if (d == DType::uint8) return {0, 255};
  return probe::default_range(d);
}

bool all_finite(const Tensor& t) {
  if (t.dtype() != DType::float32 && t.dtype() != DType::float16 && t.dtype() != DType::float64) return true;
  for (double v : t.to_doubles())
    if (!std::isfinite(v)) return false;
  return true;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Everything one run of a point on one target produced: the verdict and, for the repro folder,
// what went in and came out.
struct PointRun {
  CaseState state = CaseState::match;
  std::string measured;
  std::optional<Comparison> metrics;
  std::string invalid;               // the reference (or the model) could not run it
  std::optional<Error> unavailable;  // the target cannot run here at all
  std::vector<NamedTensor> inputs, expected, observed;
  std::string runtime_version, adapter;
  Point point;  // what ran
};

// Whether the run says anything about the target: a point it did not run itself (the CPU fallback
// took the node, a feature it lacks, a case the reference could not run) is no evidence either way.
bool judged(const PointRun& r) {
  return r.state != CaseState::invalid && r.state != CaseState::fallback && !r.unavailable;
}

class Hunter {
 public:
  Hunter(const HuntOptions& o, const probe::ProgressSink& p, std::vector<const OpSpace*> spaces,
         ScratchDir work)
      : o_(o), progress_(p), spaces_(std::move(spaces)), work_(std::move(work)) {}

  Result<HuntReport> run();

 private:
  void say(const std::string& line) {
    std::lock_guard lock(say_mu_);
    if (progress_) progress_(line);
  }
  isolate::BackendRunner& runner() {
    std::lock_guard lock(runner_mu_);
    return isolate::runner_or(o_.runner, own_runner_);
  }

  // Runs `point` on the reference and on targets[t] for each t in `which`; one PointRun each.
  std::vector<PointRun> run_point(const OpSpace& space, const Point& point, uint64_t seed,
                                  const std::vector<std::size_t>& which);
  Status run_cases(HuntReport& report, const std::set<int>& done);
  void reduce_all(HuntReport& report);
  Finding reduce(const HuntCase& c, std::size_t t, PointRun& last);
  bool transfers(Finding& f, const std::string& space, const Point& point, uint64_t seed, std::size_t t,
                 CaseState state);
  void merge_findings(std::vector<Finding>& findings, std::vector<PointRun>& lasts);
  void note_target(std::size_t t, const PointRun& r);
  std::size_t target_index(const std::string& label) const {  // labels are unique (run_hunt checks)
    std::size_t t = 0;
    while (t + 1 < o_.targets.size() && o_.targets[t].label != label) ++t;
    return t;
  }
  Result<HuntCase> given_case(int index) const {
    const auto& [space, point] = o_.points[static_cast<std::size_t>(index)];
    return HuntCase{index, space, point, mix(o_.seed ^ 0x5eed, static_cast<uint64_t>(index)), "", {}};
  }

  const HuntOptions& o_;
  probe::ProgressSink progress_;
  std::vector<const OpSpace*> spaces_;
  ScratchDir work_;
  std::mutex say_mu_, runner_mu_, report_mu_;
  std::unique_ptr<isolate::BackendRunner> own_runner_;
  std::atomic<int> model_counter_{0};
  std::vector<TargetInfo> targets_;
  std::optional<Error> unavailable_;   // set once a target turns out not to run here
  std::vector<bool> ran_;              // per target: some case ran on it
  std::vector<int> unavailable_runs_;  // per target: cases it could not run for a missing feature
};

std::vector<PointRun> Hunter::run_point(const OpSpace& space, const Point& point, uint64_t seed,
                                        const std::vector<std::size_t>& which) {
  std::vector<PointRun> out(which.size());
  for (auto& r : out) r.point = point;
  auto invalid = [&](const std::string& why) {
    for (auto& r : out) {
      r.state = CaseState::invalid;
      r.invalid = why;
    }
    return out;
  };
  auto op = space.build(point, seed);
  if (!op.ok()) return invalid(op.error().message);
  const fs::path model = work_ / ("case_" + std::to_string(model_counter_++) + ".onnx");
  if (auto w = model::write_op_model(*op, model); !w.ok()) return invalid(w.error().message);
  std::vector<NamedTensor> inputs;
  for (const auto& in : op->inputs) {
    if (in.name.empty() || in.value) continue;
    const probe::ValueRange range =
        in.range ? probe::ValueRange{in.range->first, in.range->second} : input_range(in.dtype);
    auto t = probe::random_tensor(in.dtype, in.shape, range, probe::derive_seed(seed, in.name, 1));
    if (!t.ok()) return invalid(t.error().message);
    inputs.push_back({in.name, std::move(*t)});
  }
  backend::RunRequest request;
  request.model_path = model.string();
  request.inputs = inputs;
  const isolate::WorkerLaunch launch{o_.worker_exe, std::nullopt, {}};
  auto ref = runner().run(o_.reference, request, o_.limits, launch);
  std::error_code ec;
  if (!ref.result.ok()) {
    fs::remove(model, ec);
    return invalid("the reference could not run it: " + first_line(ref.result.error().describe()));
  }
  for (const auto& e : ref.result->outputs)
    if (!all_finite(e.tensor)) {
      fs::remove(model, ec);
      return invalid("the reference's output " + e.name + " is not finite");
    }
  for (std::size_t k = 0; k < which.size(); ++k) {
    PointRun& r = out[k];
    r.inputs = inputs;
    r.expected = ref.result->outputs;
    auto got = runner().run(o_.targets[which[k]], request, o_.limits, launch);
    if (!got.result.ok()) {
      const Error& e = got.result.error();
      if (e.kind == ErrorKind::unavailable) r.unavailable = e;
      r.state = CaseState::error;
      r.measured = std::string(to_string(e.kind)) + ": " + first_line(e.message);
      continue;
    }
    r.runtime_version = got.result->runtime_version;
    r.adapter = got.result->adapter;
    r.observed = got.result->outputs;
    if (got.result->nodes_on_backend == 0 && got.result->nodes_on_cpu > 0) {
      r.state = CaseState::fallback;
      r.measured = "the node ran on the CPU fallback";
      continue;
    }
    const std::string_view arithmetic = probe::judged_arithmetic(o_.reference, o_.targets[which[k]]);
    for (const auto& e : r.expected) {
      const auto t = bisect::compare_one(bisect::find_named(r.observed, e.name), e, std::nullopt, arithmetic);
      if (!r.metrics) r.metrics = t.metrics;
      if (t.verdict == Verdict::mismatch && r.state == CaseState::match) {
        r.state = CaseState::mismatch;
        r.metrics = t.metrics;
        r.measured = e.name + ": " + bisect::describe_error(t.metrics, t.failed_rule);
      }
    }
    // Empty outputs that agree prove nothing: a neighbour step that empties the slice would
    // otherwise "pass" and be taken for the bug's boundary.
    const bool empty = std::all_of(r.expected.begin(), r.expected.end(),
                                   [](const NamedTensor& e) { return e.tensor.numel() == 0; });
    if (empty && r.state == CaseState::match) {
      r.state = CaseState::invalid;
      r.invalid = "every output is empty";
    }
  }
  fs::remove(model, ec);
  return out;
}

void Hunter::note_target(std::size_t t, const PointRun& r) {
  std::lock_guard lock(report_mu_);
  auto& info = targets_[t];
  if (info.runtime_version.empty()) info.runtime_version = r.runtime_version;
  if (info.adapter.empty()) info.adapter = r.adapter;
}

Status Hunter::run_cases(HuntReport& report, const std::set<int>& done) {
  const auto start = Clock::now();
  std::vector<int> todo;
  for (int i = o_.first_case; i < o_.first_case + o_.cases; ++i)
    if (!done.count(i)) todo.push_back(i);
  std::atomic<std::size_t> next{0};
  std::atomic<int> finished{0}, failing{0};
  // A journal that cannot be written is said before any case runs, not found missing on resume.
  if (o_.journal) PARITY_TRY(append_text_file(*o_.journal, ""));
  bool journal_failed = false;
  std::vector<std::size_t> all_targets(o_.targets.size());
  for (std::size_t t = 0; t < all_targets.size(); ++t) all_targets[t] = t;
  std::optional<Error> plan_error;

  auto worker = [&] {
    for (;;) {
      if (o_.budget_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() > o_.budget_s) {
        std::lock_guard lock(report_mu_);
        if (next < todo.size()) report.budget_spent = true;
        return;
      }
      {
        std::lock_guard lock(report_mu_);
        if (unavailable_ || plan_error || interrupted()) return;
      }
      const std::size_t k = next++;
      if (k >= todo.size()) return;
      auto planned = o_.points.empty() ? plan_case(o_.spaces, o_.seed, todo[k]) : given_case(todo[k]);
      if (!planned.ok()) {
        std::lock_guard lock(report_mu_);
        plan_error = planned.error();
        return;
      }
      HuntCase c = std::move(*planned);
      const auto runs = run_point(*find_space(c.space), c.point, c.seed, all_targets);
      // A case cut short by Ctrl-C is no result (its runs failed as "interrupted", which would read
      // as "not runnable"): it stays out of the journal, so --journal runs it again on resume.
      if (interrupted()) return;
      bool bad = false;
      const bool all_invalid = std::all_of(runs.begin(), runs.end(),
                                           [](const PointRun& r) { return r.state == CaseState::invalid; });
      for (std::size_t t = 0; t < runs.size(); ++t) {
        const PointRun& r = runs[t];
        if (all_invalid) {
          c.invalid = r.invalid;
          break;
        }
        if (r.unavailable) {
          // A target that has never run a case is not there (no adapter, no EP): stop the hunt. One
          // that lacks what this case needs (shader-f16 for a float16 cast) just cannot judge it.
          std::lock_guard lock(report_mu_);
          if (!ran_[t] && ++unavailable_runs_[t] >= 3) {
            unavailable_ = *r.unavailable;
            return;
          }
          c.runs.push_back({o_.targets[t].label,
                            CaseState::invalid,
                            "the target lacks what this case needs: " + first_line(r.unavailable->message),
                            {}});
          continue;
        }
        if (r.state != CaseState::invalid) {
          std::lock_guard lock(report_mu_);
          ran_[t] = true;
        }
        note_target(t, r);
        c.runs.push_back({o_.targets[t].label, r.state,
                          r.state == CaseState::invalid ? r.invalid : r.measured, r.metrics});
        if (r.state == CaseState::mismatch || r.state == CaseState::error) {
          bad = true;
          say(fmt::format("case {} {} [{}] on {}: {} ({})", c.index, c.space, point_text(c.point),
                          o_.targets[t].label, state_name(r.state), r.measured));
        }
      }
      if (c.invalid.empty() && !c.runs.empty() &&
          std::all_of(c.runs.begin(), c.runs.end(),
                      [](const CaseRun& r) { return r.state == CaseState::invalid; }))
        c.invalid = c.runs.front().measured;
      const int n = ++finished;
      if (bad) ++failing;
      std::lock_guard lock(report_mu_);
      if (o_.journal && !journal_failed)
        if (auto w = append_text_file(*o_.journal, case_to_json_line(c) + "\n"); !w.ok()) {
          journal_failed = true;  // said once; the hunt goes on and its report is still written
          say(w.error().message);
        }
      report.cases.push_back(std::move(c));
      if (n % 25 == 0 || n == static_cast<int>(todo.size())) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        const double eta = elapsed / n * (static_cast<double>(todo.size()) - n);
        say(fmt::format("[{}/{}] cases run, {} failing{}", n, todo.size(), failing.load(),
                        n == static_cast<int>(todo.size()) ? "" : fmt::format(", about {:.0f} s left", eta)));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::max(1, o_.jobs); ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (plan_error) return *plan_error;
  if (unavailable_) {
    Error e = *unavailable_;
    e.message = "a target cannot run here: " + e.message;
    return e;
  }
  return ok_status();
}

// "Conv2D+" -> "conv2d-chain": lower case, one dash between words, none at the ends.
std::string slug(const std::string& text) {
  std::string s;
  for (char ch : text) {
    const bool word = std::isalnum(static_cast<unsigned char>(ch));
    if (ch == '+') {
      s += "-chain";
    } else if (word) {
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

std::string values_text(const std::vector<int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += i + 1 == v.size() ? " and " : ", ";
    s += value_text(v[i]);
  }
  return s;
}

// "Conv -> Relu -> Concat": a graph's ops in order.
std::string graph_ops_text(const model::OpModel& op) {
  std::string s;
  for (const auto& n : op.nodes) s += (s.empty() ? "" : " -> ") + n.op_type;
  return s;
}

std::string describe(const Finding& f) {
  std::string what = f.state == CaseState::error ? "fails" : "computes it wrong";
  std::string s =
      fmt::format("{} ({}) on {} {} at {}", f.space, f.op_type, f.target, what, point_text(f.point));
  std::string edges;
  for (const auto& b : f.boundaries) {
    if (b.passing.empty()) continue;
    std::string e = fmt::format("{}={} fails", b.param, values_text({b.value}));
    if (!b.failing.empty()) e += " (and " + values_text(b.failing) + ")";
    e += ", " + values_text(b.passing) + (b.passing.size() == 1 ? " passes" : " pass");
    edges += (edges.empty() ? "" : "; ") + e;
  }
  const bool tried = std::any_of(f.boundaries.begin(), f.boundaries.end(),
                                 [](const Boundary& b) { return !b.failing.empty() || !b.passing.empty(); });
  s += !edges.empty() ? ": " + edges : tried ? "; every neighbour tried fails too" : "; no neighbour tried";
  if (!f.patterns.empty())
    s += fmt::format(". Across its {} case{}: {}", f.cases.size(), f.cases.size() == 1 ? "" : "s",
                     fmt::join(f.patterns, "; "));
  return s;
}

// The essential boundary of a finding: its parameters with a passing neighbour, at their values,
// and its seeds (a random graph's: no other graph shares its boundary).
std::map<std::string, int64_t> essence(const Finding& f) {
  std::map<std::string, int64_t> e;
  for (const auto& b : f.boundaries)
    if (!b.passing.empty()) e[b.param] = b.value;
  for (const Param& p : find_space(f.space)->params)
    if (p.kind == ParamKind::seed) e[p.name] = f.point.at(p.name);
  return e;
}

// Whether `f` already explains a failing `c` on the same target: same space and state, and the
// finding's essential parameters at the same values (the others are free).
bool covers(const Finding& f, const HuntCase& c, const CaseRun& r) {
  if (f.space != c.space || f.target != r.target || f.state != r.state) return false;
  for (const auto& [param, value] : essence(f)) {
    auto it = c.point.find(param);
    if (it == c.point.end() || it->second != value) return false;
  }
  return true;
}

bool same_boundary(const Finding& a, const Finding& b) {
  return a.space == b.space && a.target == b.target && a.state == b.state && essence(a) == essence(b);
}

Finding Hunter::reduce(const HuntCase& c, std::size_t t, PointRun& last) {
  const OpSpace& space = *find_space(c.space);
  Finding f;
  f.space = c.space;
  f.target = o_.targets[t].label;
  f.target_ep = o_.targets[t].ep;
  f.state = c.runs[t].state;
  f.point = c.point;
  f.seed = c.seed;
  f.cases = {c.index};
  // nullopt: the point is not a valid case; else whether it fails as the drawn case did.
  auto fails = [&](const Point& q) -> std::optional<bool> {
    ++f.reduce_runs;
    auto r = run_point(space, q, c.seed, {t});
    if (!judged(r[0])) return std::nullopt;
    const bool same = r[0].state == f.state;
    if (same) last = std::move(r[0]);
    return same;
  };
  // The same for the reduced point with one parameter moved.
  auto fails_with = [&](const std::string& param, int64_t value) {
    Point q = f.point;
    q[param] = value;
    return fails(q);
  };
  if (!fails(f.point).value_or(false)) {  // a flaky failure is no finding
    f.state = CaseState::match;
    return f;
  }
  // Shrink: each parameter toward its smallest magnitude, keeping the failure.
  const int shrink_budget = o_.max_reduce_runs / 2;
  for (const Param& param : space.params) {
    if (param.kind == ParamKind::seed) continue;  // another seed is another case, not a smaller one
    if (param.kind == ParamKind::count) {
      // The smallest count that still fails, searched as if failing were monotone in it (a graph's
      // prefix that fails stays failing when nodes are added after it).
      int64_t lo = param.lo, hi = f.point[param.name];
      while (lo < hi && f.reduce_runs < shrink_budget) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (fails_with(param.name, mid).value_or(false))
          hi = mid;
        else
          lo = mid + 1;
      }
      f.point[param.name] = hi;
      continue;
    }
    std::vector<int64_t> smaller;
    const int64_t v = f.point[param.name];
    std::vector<int64_t> candidates = param.boundary;
    candidates.push_back(param.lo);  // the range's floor too: `then1` shrinks to 0, no chain
    for (int64_t b : candidates)
      if (std::llabs(b) < std::llabs(v) && std::find(smaller.begin(), smaller.end(), b) == smaller.end())
        smaller.push_back(b);
    std::sort(smaller.begin(), smaller.end(),
              [](int64_t a, int64_t b) { return std::llabs(a) < std::llabs(b); });
    if (smaller.size() > 2) smaller = {smaller.front(), smaller[smaller.size() / 2]};
    for (int64_t s : smaller) {
      if (f.reduce_runs >= shrink_budget) break;
      if (fails_with(param.name, s).value_or(false)) {
        f.point[param.name] = s;
        break;
      }
    }
  }
  // Boundaries: each parameter's neighbours, failing or passing.
  for (const Param& param : space.params) {
    Boundary b{param.name, param.meaning, f.point[param.name], {}, {}};
    for (int64_t n : neighbour_values(param, b.value)) {
      if (f.reduce_runs >= o_.max_reduce_runs) break;
      if (const auto r = fails_with(param.name, n)) (*r ? b.failing : b.passing).push_back(n);
    }
    f.boundaries.push_back(std::move(b));
  }
  // No neighbour passed anywhere: the edge may be a boundary value further out (MatMulNBits'
  // block=128 and 64 fail, 32 passes). The next boundary value beyond each side, until one passes.
  // (Only then: a parameter the bug does not depend on fails at every value, so looking further
  // for each one would double a reduction's runs.)
  const auto stated = [&] {
    return std::any_of(f.boundaries.begin(), f.boundaries.end(),
                       [](const Boundary& b) { return !b.passing.empty(); });
  };
  for (std::size_t i = 0; i < f.boundaries.size() && !stated(); ++i) {  // one per parameter, in order
    Boundary& b = f.boundaries[i];
    for (int64_t n : further_values(space.params[i], b.value, b.failing, 1)) {
      if (f.reduce_runs >= o_.max_reduce_runs || !b.passing.empty()) break;
      if (const auto r = fails_with(b.param, n)) (*r ? b.failing : b.passing).push_back(n);
    }
  }
  fails(f.point);  // `last` holds the reduced point's own run, for the repro folder
  // A chain that fails with its op alone is that op's finding: filed under the op's own space, so it
  // clusters with the same bug drawn without a chain.
  if (f.space.ends_with('+') && f.point["then1"] == 0 && f.point["then2"] == 0) {
    f.space.pop_back();
    f.point.erase("then1");
    f.point.erase("then2");
    std::erase_if(f.boundaries, [](const Boundary& b) { return b.param == "then1" || b.param == "then2"; });
    last.point = f.point;
  }
  return f;
}

// Whether a failing case `c` shares `f`'s mechanism: moving each of `f`'s essential parameters
// in `c` by the step that made `f` pass makes `c` pass for most of them (one run per parameter,
// cheap next to a reduction). Most, not all: a parameter that only selects the kernel's path
// ("stride=2 fails, 1 passes": stride 1 with a 1-wide kernel is a MatMul) may not matter in `c`.
bool Hunter::transfers(Finding& f, const std::string& space_name, const Point& point, uint64_t seed,
                       std::size_t t, CaseState state) {
  if (f.space != space_name || f.target != o_.targets[t].label || f.state != state) return false;
  const OpSpace& space = *find_space(space_name);
  for (const Param& p : space.params)  // another random graph is another mechanism
    if (p.kind == ParamKind::seed && f.point.at(p.name) != point.at(p.name)) return false;
  std::vector<std::tuple<std::string, int64_t, int64_t>> flips;  // param, failing value, passing value
  int tested = 0;
  for (const auto& b : f.boundaries) {
    if (b.passing.empty()) continue;
    int64_t step = 0;
    for (int64_t p : b.passing)
      if (std::llabs(p - b.value) <= 2 && (step == 0 || std::llabs(p - b.value) < std::llabs(step)))
        step = p - b.value;
    auto it = point.find(b.param);
    if (step == 0 || it == point.end()) continue;
    Point q = point;
    q[b.param] = it->second + step;
    ++f.reduce_runs;
    const auto r = run_point(space, q, seed, {t});
    if (!judged(r[0])) continue;
    ++tested;
    if (r[0].state != f.state) flips.emplace_back(b.param, it->second, it->second + step);
  }
  if (flips.empty() || 2 * flips.size() <= static_cast<std::size_t>(tested)) return false;
  for (const auto& [param, bad, good] : flips) {
    f.also_failing[param].push_back(bad);
    f.also_passing[param].push_back(good);
  }
  return true;
}

// The simplest residue class (odd, even, a multiple of 4, 3 mod 8) every failing value is in and
// no passing one: what the evidence says the boundary is. Empty when none separates them.
std::string residue_pattern(const std::vector<int64_t>& failing, const std::vector<int64_t>& passing) {
  if (failing.empty()) return {};
  for (int k = 1; k <= 4; ++k) {
    const int64_t m = int64_t{1} << k;
    const auto mod = [m](int64_t v) { return ((v % m) + m) % m; };
    const int64_t r = mod(failing[0]);
    const bool together = std::all_of(failing.begin(), failing.end(), [&](int64_t v) { return mod(v) == r; });
    const bool apart = std::none_of(passing.begin(), passing.end(), [&](int64_t v) { return mod(v) == r; });
    if (!together || !apart) continue;
    if (k == 1) return r == 1 ? "odd" : "even";
    return r == 0 ? fmt::format("a multiple of {}", m) : fmt::format("{} mod {}", r, m);
  }
  return {};
}

void describe_patterns(Finding& f) {
  f.patterns.clear();
  for (const auto& b : f.boundaries) {
    if (b.passing.empty()) continue;
    std::set<int64_t> failing{b.value}, passing(b.passing.begin(), b.passing.end());
    failing.insert(b.failing.begin(), b.failing.end());
    if (auto it = f.also_failing.find(b.param); it != f.also_failing.end())
      failing.insert(it->second.begin(), it->second.end());
    if (auto it = f.also_passing.find(b.param); it != f.also_passing.end())
      passing.insert(it->second.begin(), it->second.end());
    if (failing.size() < 2) continue;
    const std::vector<int64_t> fv(failing.begin(), failing.end()), pv(passing.begin(), passing.end());
    const std::string pattern = residue_pattern(fv, pv);
    f.patterns.push_back(fmt::format("{} {}({} fail; {} pass)", b.param, pattern.empty() ? "" : pattern + " ",
                                     values_text(fv), values_text(pv)));
  }
}

// Two findings reduced from different cases can still be one bug seen from two sides (Slice that
// ignores `starts` fails for many start/end pairs): a finding whose reduced point transfers into
// another's mechanism, either way, joins it.
void Hunter::merge_findings(std::vector<Finding>& findings, std::vector<PointRun>& lasts) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    for (std::size_t j = i + 1; j < findings.size();) {
      Finding& a = findings[i];
      Finding& b = findings[j];
      const std::size_t t = target_index(a.target);
      const bool one = transfers(a, b.space, b.point, b.seed, t, b.state) ||
                       transfers(b, a.space, a.point, a.seed, t, a.state);
      if (!one) {
        ++j;
        continue;
      }
      say(fmt::format("case {} and case {} on {}: one mechanism", a.cases.front(), b.cases.front(),
                      a.target));
      a.cases.insert(a.cases.end(), b.cases.begin(), b.cases.end());
      a.reduce_runs += b.reduce_runs;
      for (const auto& [param, v] : b.also_failing)
        a.also_failing[param].insert(a.also_failing[param].end(), v.begin(), v.end());
      for (const auto& [param, v] : b.also_passing)
        a.also_passing[param].insert(a.also_passing[param].end(), v.begin(), v.end());
      findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(j));
      lasts.erase(lasts.begin() + static_cast<std::ptrdiff_t>(j));
    }
  }
}

void Hunter::reduce_all(HuntReport& report) {
  std::sort(report.cases.begin(), report.cases.end(),
            [](const HuntCase& a, const HuntCase& b) { return a.index < b.index; });
  std::vector<PointRun> lasts;  // each finding's reduced run, for its folder
  for (const HuntCase& c : report.cases) {
    for (std::size_t t = 0; t < c.runs.size(); ++t) {
      const CaseRun& r = c.runs[t];
      if (r.state != CaseState::mismatch && r.state != CaseState::error) continue;
      auto known = std::find_if(report.findings.begin(), report.findings.end(),
                                [&](const Finding& f) { return covers(f, c, r); });
      if (known == report.findings.end())
        known = std::find_if(report.findings.begin(), report.findings.end(),
                             [&](Finding& f) { return transfers(f, c.space, c.point, c.seed, t, r.state); });
      if (known != report.findings.end()) {
        known->cases.push_back(c.index);
        say(fmt::format("case {} on {}: the same mechanism as case {}", c.index, r.target,
                        known->cases.front()));
        continue;
      }
      say(fmt::format("reducing case {} ({} on {})", c.index, c.space, r.target));
      PointRun last;
      Finding f = reduce(c, t, last);
      if (f.state == CaseState::match) {
        say(fmt::format("case {} on {} does not fail again: flaky, left out", c.index, r.target));
        continue;
      }
      // The same essential boundary reached from another drawn case: one finding.
      auto same = std::find_if(report.findings.begin(), report.findings.end(),
                               [&](const Finding& g) { return same_boundary(g, f); });
      if (same != report.findings.end()) {
        same->cases.push_back(c.index);
        continue;
      }
      f.measured = last.measured;
      report.findings.push_back(std::move(f));
      lasts.push_back(std::move(last));
    }
  }
  merge_findings(report.findings, lasts);
  std::set<std::string> ids;
  for (std::size_t k = 0; k < report.findings.size(); ++k) {
    Finding& f = report.findings[k];
    f.op_type = find_space(f.space)->op_type;
    if (auto reduced = find_space(f.space)->build(f.point, f.seed); reduced.ok())
      f.op_type = model::is_graph(*reduced) ? graph_ops_text(*reduced) : reduced->op_type;
    // The folder holds the run whose data it has: the reduced point's own, unless that one did not
    // fail again on its last run (then the last point that did).
    const auto reduced_op = find_space(f.space)->build(lasts[k].point, f.seed);
    describe_patterns(f);
    f.description = describe(f);
    std::string id = slug(f.target + "-" + f.space);
    for (const auto& b : f.boundaries)
      if (!b.passing.empty()) id += "-" + slug(b.param + "=" + value_text(b.value));
    if (id.size() > 60) id.resize(60);
    for (int n = 2; ids.count(id); ++n) id = slug(f.target + "-" + f.space) + "-" + std::to_string(n);
    ids.insert(id);
    f.id = id;
    say("finding " + f.id + ": " + f.description);
    if (!o_.out_dir || !reduced_op.ok() || lasts[k].expected.empty()) continue;
    const fs::path dir = *o_.out_dir / f.id;
    // A run that failed reports no version or adapter: the target's other runs in this hunt do.
    const TargetInfo& seen = targets_[target_index(f.target)];
    const FolderFacts facts{
        o_.reference, o_.targets[target_index(f.target)],
        lasts[k].runtime_version.empty() ? seen.runtime_version : lasts[k].runtime_version,
        lasts[k].adapter.empty() ? seen.adapter : lasts[k].adapter, o_.command};
    if (auto w = write_finding_folder(f, *reduced_op, lasts[k].inputs, lasts[k].expected, lasts[k].observed,
                                      facts, dir);
        w.ok())
      f.folder = dir;
    else
      say("cannot write " + dir.string() + ": " + w.error().describe());
  }
}

Result<HuntReport> Hunter::run() {
  const auto start = Clock::now();
  HuntReport report;
  report.parity_version = kParityVersion;
  report.seed = o_.seed;
  for (const auto* s : spaces_) report.spaces.push_back(s->name);
  report.reference = o_.reference.label;
  report.first_case = o_.first_case;
  report.cases_planned = o_.cases;
  for (const auto& t : o_.targets) targets_.push_back({t.label, t.ep, "", ""});
  ran_.assign(o_.targets.size(), false);
  unavailable_runs_.assign(o_.targets.size(), 0);
  std::set<int> done;
  if (o_.journal && fs::exists(*o_.journal)) {
    std::ifstream in(*o_.journal);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      auto c = case_from_json_line(line);
      auto where = [&](const std::string& why) {
        return bad_invocation(
            fmt::format("{}:{}: {}", o_.journal->string(), number, why),
            "resume with the hunt's own --seed, --ops and --backends, or start a new journal");
      };
      if (!c.ok()) return where(c.error().message);
      if (c->index < o_.first_case || c->index >= o_.first_case + o_.cases || done.count(c->index)) continue;
      auto planned = plan_case(o_.spaces, o_.seed, c->index);
      if (!planned.ok() || planned->space != c->space || planned->point != c->point)
        return where("case " + std::to_string(c->index) +
                     " was drawn by another hunt (seed or spaces differ)");
      for (std::size_t t = 0; t < c->runs.size(); ++t)
        if (t >= o_.targets.size() || c->runs[t].target != o_.targets[t].label)
          return where("case " + std::to_string(c->index) + " ran on other targets");
      done.insert(c->index);
      report.cases.push_back(std::move(*c));
    }
    report.resumed = static_cast<int>(done.size());
    if (report.resumed)
      say(fmt::format("resuming: {} cases read back from {}", report.resumed, o_.journal->string()));
  }
  PARITY_TRY(run_cases(report, done));
  report.targets = targets_;
  report.interrupted = interrupted();
  if (report.interrupted)
    say(fmt::format("interrupted: {} of {} cases finished{}", report.cases.size(), o_.cases,
                    o_.journal ? "; --journal " + o_.journal->string() + " resumes the rest" : ""));
  if (o_.reduce && !report.interrupted) reduce_all(report);
  if (!report.interrupted && interrupted()) {  // stopped while reducing: its findings are half-made
    report.interrupted = true;
    report.findings.clear();
    say("interrupted while reducing: every case finished (journalled); rerun to reduce");
  }
  std::sort(report.cases.begin(), report.cases.end(),
            [](const HuntCase& a, const HuntCase& b) { return a.index < b.index; });
  report.targets = targets_;
  report.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace

namespace {
constexpr CaseState kStates[] = {CaseState::match, CaseState::mismatch, CaseState::error, CaseState::invalid,
                                 CaseState::fallback};
}  // namespace

const char* state_name(CaseState s) {
  switch (s) {
    case CaseState::match: return "match";
    case CaseState::mismatch: return "mismatch";
    case CaseState::error: return "error";
    case CaseState::invalid: return "invalid";
    case CaseState::fallback: return "fallback";
  }
  return "?";
}

Result<HuntCase> plan_case(const std::vector<std::string>& names, uint64_t seed, int index) {
  PARITY_ASSIGN_OR_RETURN(spaces, resolve_spaces(names));
  std::mt19937_64 rng(mix(seed, static_cast<uint64_t>(index)));
  const OpSpace& space = *spaces[rng() % spaces.size()];
  HuntCase c;
  c.index = index;
  c.space = space.name;
  c.seed = mix(seed ^ 0x5eed, static_cast<uint64_t>(index));
  for (int tries = 0; tries < 1000; ++tries) {
    c.point = sample_point(space, rng);
    auto op = space.build(c.point, c.seed);
    if (op.ok() && model::op_model_bytes(*op).ok())
      return c;  // the schema's own check too (types of a chain)
  }
  return make_error(ErrorKind::internal, Stage::parse_args,
                    "op space " + space.name + " gave no valid point in 1000 draws");
}

Result<HuntReport> run_hunt(const HuntOptions& options, const probe::ProgressSink& progress) {
  if (options.targets.empty())
    return bad_invocation("no target backend", "pass --backends webgpu (or several)");
  std::set<std::string> labels{options.reference.label};
  for (const auto& t : options.targets)
    if (!labels.insert(t.label).second)
      return bad_invocation("two backends are labelled '" + t.label + "'",
                            "give one its own label: LABEL=EP");
  if (options.cases < 0 || options.first_case < 0) return bad_invocation("case numbers are never negative");
  if (!options.points.empty()) {
    if (options.journal) return bad_invocation("--point runs the given points: it keeps no journal");
    if (options.first_case + options.cases > static_cast<int>(options.points.size()))
      return bad_invocation("cases past the given points");
  }
  PARITY_ASSIGN_OR_RETURN(spaces, resolve_spaces(options.spaces));
  PARITY_ASSIGN_OR_RETURN(work, ScratchDir::create("parity-hunt", Stage::prepare_inputs));
  if (options.out_dir) {
    std::error_code ec;
    fs::create_directories(*options.out_dir, ec);
    if (ec)
      return make_error(ErrorKind::io, Stage::write_output,
                        "cannot create " + options.out_dir->string() + ": " + ec.message());
  }
  // One writer per findings folder and per journal: two hunts on one journal would run and append
  // the same cases twice, two on one folder overwrite each other's finding folders.
  std::optional<RunLock> out_lock, journal_lock;
  if (options.out_dir) {
    PARITY_ASSIGN_OR_RETURN(lock, RunLock::acquire(*options.out_dir / kRunLockName,
                                                   "the findings folder " + options.out_dir->string()));
    out_lock.emplace(std::move(lock));
  }
  if (options.journal) {
    PARITY_ASSIGN_OR_RETURN(lock, RunLock::acquire(options.journal->string() + ".lock",
                                                   "the hunt journal " + options.journal->string()));
    journal_lock.emplace(std::move(lock));
  }
  Hunter hunter(options, progress, std::move(spaces), std::move(work));
  return hunter.run();
}

Result<std::pair<std::string, Point>> parse_point(const std::string& text) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const OpSpace* space = find_space(name);
  if (!space) {
    PARITY_TRY(resolve_spaces({name}));  // the error that lists the spaces
  }
  std::string params;
  for (const auto& p : space->params) params += (params.empty() ? "" : ",") + p.name + "=V";
  const std::string hint = "give every parameter: " + name + ":" + params + " (parity hunt --list)";
  Point point;
  std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  std::size_t at = 0;
  while (at < rest.size()) {
    const std::size_t comma = std::min(rest.find(',', at), rest.size());
    const std::string item = rest.substr(at, comma - at);
    at = comma + 1;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      return bad_invocation("--point " + text + ": '" + item + "' is not NAME=VALUE", hint);
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (std::none_of(space->params.begin(), space->params.end(),
                     [&](const Param& p) { return p.name == key; }))
      return bad_invocation("--point " + text + ": " + name + " has no parameter " + key, hint);
    try {
      std::size_t used = 0;
      point[key] = value == "max"    ? std::numeric_limits<int64_t>::max()
                   : value == "-max" ? -std::numeric_limits<int64_t>::max()
                                     : std::stoll(value, &used);
      if (value != "max" && value != "-max" && used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      return bad_invocation("--point " + text + ": " + key + "=" + value + " is not an integer", hint);
    }
  }
  for (const auto& p : space->params)
    if (!point.count(p.name)) return bad_invocation("--point " + text + ": no value for " + p.name, hint);
  if (auto built = space->build(point, 0); !built.ok())
    return bad_invocation("--point " + text + ": " + built.error().message, hint);
  return std::pair{name, point};
}

std::string case_to_json_line(const HuntCase& c) {
  json runs = json::array();
  for (const auto& r : c.runs)
    runs.push_back({{"target", r.target}, {"state", state_name(r.state)}, {"measured", r.measured}});
  json point = json::object();
  for (const auto& [k, v] : c.point) point[k] = v;
  return json{
      {"schema", kHuntCaseSchema}, {"index", c.index}, {"space", c.space}, {"point", point}, {"seed", c.seed},
      {"invalid", c.invalid},      {"runs", runs}}
      .dump();
}

Result<HuntCase> case_from_json_line(const std::string& line) {
  auto bad = [](const std::string& why) {
    return make_error(ErrorKind::bad_input, Stage::load_model,
                      "not a " + std::string(kHuntCaseSchema) + " line: " + why);
  };
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not JSON");
  if (j.value("schema", "") != kHuntCaseSchema) return bad("schema");
  try {
    HuntCase c;
    c.index = j.at("index").get<int>();
    c.space = j.at("space").get<std::string>();
    for (const auto& [k, v] : j.at("point").items()) c.point[k] = v.get<int64_t>();
    c.seed = j.at("seed").get<uint64_t>();
    c.invalid = j.value("invalid", "");
    for (const auto& r : j.at("runs")) {
      CaseRun run;
      run.target = r.at("target").get<std::string>();
      const std::string s = r.at("state").get<std::string>();
      // The inverse of state_name: a state this build does not know is a bad line, not a match.
      const auto known = std::find_if(std::begin(kStates), std::end(kStates),
                                      [&](CaseState k) { return s == state_name(k); });
      if (known == std::end(kStates)) return bad("unknown state '" + s + "'");
      run.state = *known;
      run.measured = r.value("measured", "");
      c.runs.push_back(std::move(run));
    }
    return c;
  } catch (const json::exception& e) {
    return bad(e.what());
  }
}

}  // namespace parity::hunt
