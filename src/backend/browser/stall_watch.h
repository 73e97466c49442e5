// backend/browser/stall_watch.h: tells a page that is working from one that has stalled, from
// two signals sampled while Parity waits for the page's answer.
//
//   beat: the page's heartbeat (harness.mjs calls the parityBeat binding every second with the
//         step it is in). Beats stop when the page's main thread is blocked or the renderer is gone.
//   cpu:  CPU seconds used by the browser's whole process group (renderers, GPU process; see
//         core/process_group_cpu.h). SwiftShader's WebGPU, wasm compilation and inference all show here.
//
// Over the last `window_s` seconds:
//   browser group busy (>= idle_fraction of one core)   -> working, whatever the beats say: a long
//                                                         synchronous wasm run blocks beats but burns CPU
//   idle, beats arriving                                -> stalled: the page waits for something that
//                                                         never comes (a promise no one settles)
//   idle, no beats                                      -> stalled: the page stopped answering
// A stall is reported at once, long before --timeout; busy pages run until --timeout.
// Pure logic: the caller feeds samples, so tests can drive it with a clock of their own.
#pragma once

#include <deque>
#include <optional>
#include <string>

namespace parity::backend::browser {

struct StallWatchConfig {
  double window_s = 10;         // how long the browser must be idle before a stall is called
  double idle_fraction = 0.05;  // below this share of one core the group counts as idle
};

struct Stall {
  bool beating = false;  // heartbeats still arrived: the page lives but waits
  std::string step;      // the last step the page reported
  double idle_s = 0;     // how long it was idle
  double cpu_s = 0;      // CPU the browser group used in that time
  std::string describe() const;
};

class StallWatch {
 public:
  explicit StallWatch(StallWatchConfig config = {}) : config_(config) {}

  // One sample: `now` and `cpu_s` on monotonic clocks of the caller's, `last_beat` the time of
  // the newest heartbeat (or a negative value: none yet), `step` what the page said in it.
  // Returns the stall once the whole window is idle.
  std::optional<Stall> observe(double now, double cpu_s, double last_beat, const std::string& step);

 private:
  struct Sample {
    double t, cpu;
  };
  StallWatchConfig config_;
  std::deque<Sample> samples_;
};

}  // namespace parity::backend::browser
