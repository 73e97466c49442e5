#include "bisect/tensor_check.h"

#include <cstdio>

#include "probe/precision.h"

namespace parity::bisect {
namespace {

std::string fmt_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

std::string describe_error(const std::optional<Comparison>& c, const std::string& rule) {
  if (!c) return rule.empty() ? "-" : rule;
  std::string s = "max_abs " + fmt_num(c->max_abs);
  if (c->nan_mismatch > 0) s += ", nan_mismatch " + std::to_string(c->nan_mismatch);
  if (c->cosine) s += ", cosine " + fmt_num(*c->cosine);
  return s;
}

TensorReport compare_one(const NamedTensor* actual, const NamedTensor& expected,
                         const std::optional<Tolerance>& tol, std::string_view arithmetic) {
  TensorReport r;
  r.name = expected.name;
  r.compared = true;
  r.tolerance = tol ? *tol : probe::default_tolerance_in(expected.tensor.dtype(), arithmetic);
  const Evaluation ev = evaluate_output(actual, expected, r.tolerance);
  if (ev.comparison) r.metrics = *ev.comparison;
  r.verdict = ev.verdict.verdict;
  r.failed_rule = ev.verdict.failed_rule;
  r.detail = ev.verdict.detail;
  return r;
}

const NamedTensor* find_named(const std::vector<NamedTensor>& v, const std::string& name) {
  for (const auto& t : v)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace parity::bisect
