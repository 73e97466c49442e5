#include "backend/browser/stall_watch.h"

#include <fmt/format.h>

namespace parity::backend::browser {

std::string Stall::describe() const {
  const std::string where = step.empty() ? "" : " in step '" + step + "'";
  if (beating)
    return fmt::format(
        "the page stalled{}: its heartbeat went on but the browser did no work for {:.1f} s "
        "({:.2f} s CPU), waiting on something that never came",
        where, idle_s, cpu_s);
  return fmt::format(
      "the page stopped answering{}: no heartbeat and no browser work for {:.1f} s ({:.2f} s CPU)", where,
      idle_s, cpu_s);
}

std::optional<Stall> StallWatch::observe(double now, double cpu_s, double last_beat,
                                         const std::string& step) {
  samples_.push_back({now, cpu_s});
  // Keep the newest sample at least window_s old as the window's start.
  while (samples_.size() > 2 && now - samples_[1].t >= config_.window_s) samples_.pop_front();
  const Sample& first = samples_.front();
  const double span = now - first.t;
  if (span < config_.window_s) return std::nullopt;
  const double used = cpu_s - first.cpu;
  if (used >= config_.idle_fraction * span) return std::nullopt;
  Stall stall;
  stall.beating = last_beat >= 0 && now - last_beat < config_.window_s / 2;
  stall.step = step;
  stall.idle_s = span;
  stall.cpu_s = used;
  return stall;
}

}  // namespace parity::backend::browser
