#include "guard/task_checks.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/child_process.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "guard/self_checks.h"

namespace parity::guard {
namespace {

// Mean absolute horizontal + vertical difference of neighbouring pixels, over every plane.
double mean_abs_gradient(const Tensor& t) {
  const Shape& s = t.shape();
  const int64_t planes = s[0] * s[1], h = s[2], w = s[3];
  double sum = 0;
  int64_t count = 0;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const std::size_t i = static_cast<std::size_t>((p * h + y) * w + x);
        const double v = t.element_as_double(i);
        if (x + 1 < w) sum += std::abs(t.element_as_double(i + 1) - v), ++count;
        if (y + 1 < h) sum += std::abs(t.element_as_double(i + static_cast<std::size_t>(w)) - v), ++count;
      }
  return count ? sum / static_cast<double>(count) : 0.0;
}

double mean_of(const Tensor& t) {
  double sum = 0;
  const auto n = static_cast<std::size_t>(t.numel());
  for (std::size_t i = 0; i < n; ++i) sum += t.element_as_double(i);
  return n ? sum / static_cast<double>(n) : 0.0;
}

// The largest per-channel total variation distance between 32-bin histograms over the input's range.
double colour_shift(const Tensor& in, const Tensor& out) {
  constexpr int kBins = 32;
  const int64_t c = std::min(in.shape()[1], out.shape()[1]);
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < static_cast<std::size_t>(in.numel()); ++i) {
    lo = std::min(lo, in.element_as_double(i));
    hi = std::max(hi, in.element_as_double(i));
  }
  if (!(hi > lo)) hi = lo + 1;
  auto histogram = [&](const Tensor& t, int64_t channel) {
    std::vector<double> bins(kBins, 0.0);
    const int64_t plane = t.shape()[2] * t.shape()[3], channels = t.shape()[1];
    int64_t n = 0;
    for (int64_t b = 0; b < t.shape()[0]; ++b)
      for (int64_t k = 0; k < plane; ++k) {
        const double v = t.element_as_double(static_cast<std::size_t>((b * channels + channel) * plane + k));
        const int bin = std::clamp(static_cast<int>((v - lo) / (hi - lo) * kBins), 0, kBins - 1);
        bins[static_cast<std::size_t>(bin)] += 1, ++n;
      }
    for (double& x : bins) x /= std::max<int64_t>(1, n);
    return bins;
  };
  double worst = 0;
  for (int64_t k = 0; k < c; ++k) {
    const auto a = histogram(in, k), b = histogram(out, k);
    double tv = 0;
    for (int i = 0; i < kBins; ++i)
      tv += std::abs(a[static_cast<std::size_t>(i)] - b[static_cast<std::size_t>(i)]);
    worst = std::max(worst, tv / 2);
  }
  return worst;
}

CheckResult run_predicate(const std::string& command, const NamedTensor& out, const std::string& scratch) {
  CheckResult r{"predicate", false, ""};
  const std::string file = scratch + "/" + safe_file_name(out.name) + ".npy";  // the name is the model's
  if (auto w = write_npy(file, out.tensor); !w.ok()) {
    r.detail = "could not save the output for the predicate: " + w.error().message;
    return r;
  }
  SpawnOptions o;
  o.exe = "/bin/sh";
  o.args = {"-c", command + " \"$1\"", "sh", file};
  auto child = ChildProcess::spawn(o);
  if (!child.ok()) {
    r.detail = "could not start the predicate: " + child.error().message;
    return r;
  }
  child->close_request();
  std::string log;
  std::optional<ExitStatus> status;
  const auto drain = [&] {
    char chunk[4096];
    for (ssize_t n; (n = ::read(child->log_fd(), chunk, sizeof chunk)) > 0;)
      log.append(chunk, static_cast<std::size_t>(n));
  };
  while (!(status = child->try_wait())) {  // drain while it runs so a chatty predicate cannot block
    pollfd p{child->log_fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    drain();
  }
  drain();  // what it wrote between the last read and its exit
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  const std::string said =
      log.empty() ? "" : ": " + log.substr(log.rfind('\n') == std::string::npos ? 0 : log.rfind('\n') + 1);
  r.passed = !status->signaled && status->code == 0;
  r.detail = status->signaled ? fmt::format("`{}` died on {}{}", command, signal_name(status->signal), said)
                              : fmt::format("`{}` exited {}{}", command, status->code, said);
  return r;
}

}  // namespace

std::vector<CheckResult> run_task_checks(const TaskChecks& task, const std::vector<NamedTensor>& inputs,
                                         const std::vector<NamedTensor>& outputs,
                                         const std::string& scratch) {
  std::vector<CheckResult> results;
  if (!task.any()) return results;
  const NamedTensor* in = image_tensor(inputs, "");
  const NamedTensor* out = image_tensor(outputs, "");
  if (!!task.scale + !!task.keep_brightness + !!task.min_sharpness + !!task.max_colour_shift > 0 &&
      (!in || !out))
    results.push_back(
        {"image", false, "the task checks need an NCHW float input and output; the model has none"});
  if (in && out) {
    const Shape& si = in->tensor.shape();
    const Shape& so = out->tensor.shape();
    if (task.scale) {
      const bool ok = so[2] == si[2] * *task.scale && so[3] == si[3] * *task.scale;
      results.push_back(
          {"size", ok,
           fmt::format("output {}x{} for input {}x{} (x{} asked)", so[2], so[3], si[2], si[3], *task.scale)});
    }
    if (task.keep_brightness) {
      const double a = mean_of(in->tensor), b = mean_of(out->tensor);
      results.push_back(
          {"brightness", std::abs(b - a) <= *task.keep_brightness,
           fmt::format("mean {:.4f} vs input {:.4f} (at most {:g} apart)", b, a, *task.keep_brightness)});
    }
    if (task.min_sharpness) {
      const double scale = si[2] > 0 ? static_cast<double>(so[2]) / static_cast<double>(si[2]) : 1.0;
      const double gin = mean_abs_gradient(in->tensor), gout = mean_abs_gradient(out->tensor) * scale;
      const double ratio = gin > 0 ? gout / gin : (gout > 0 ? INFINITY : 1.0);
      results.push_back({"sharpness", ratio >= *task.min_sharpness,
                         fmt::format("gradient ratio {:.3f} (at least {:g})", ratio, *task.min_sharpness)});
    }
    if (task.max_colour_shift) {
      const double d = colour_shift(in->tensor, out->tensor);
      results.push_back({"colour", d <= *task.max_colour_shift,
                         fmt::format("histogram distance {:.3f} (at most {:g})", d, *task.max_colour_shift)});
    }
  }
  if (!task.predicate.empty()) {
    if (outputs.empty())
      results.push_back({"predicate", false, "no output to give the predicate"});
    else
      results.push_back(run_predicate(task.predicate, out ? *out : outputs.front(), scratch));
  }
  return results;
}

}  // namespace parity::guard
