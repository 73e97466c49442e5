// The guard runtime's session (parity/guard.h): the backend chain, preflight, checks, tiling and
// fallback. How each piece works lives in its own file; this one only decides.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

#include "backend/backend.h"
#include "core/sha256.h"
#include "guard/engine.h"
#include "guard/preflight.h"
#include "guard/self_checks.h"
#include "guard/tiling.h"
#include "isolate/isolated_runner.h"
#include "manifest/manifest.h"
#include "parity/guard.h"
#include "probe/manifest_setup.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One backend of the chain, as the manifest declares it.
struct Candidate {
  const manifest::Declaration* decl = nullptr;
  backend::BackendSpec spec;
  fs::path file;
};

// The backend serving runs. Immutable once published; a fallback publishes a new one.
struct Active {
  std::string label;
  std::shared_ptr<guard::Engine> engine;
  manifest::Checks checks;
  int64_t budget_pixels = 0;  // the declared size budget (H x W); 0 = none
};

int64_t pixels_of(const std::string& size_label) {
  const auto eq = size_label.find('=');
  const auto x = size_label.find('x', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || x == std::string::npos) return 0;
  try {
    return std::stoll(size_label.substr(eq + 1, x - eq - 1)) * std::stoll(size_label.substr(x + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

// A run error worth a retry on smaller tiles: resources, not a model the backend cannot run.
bool retryable(const Error& e) {
  return e.kind != ErrorKind::bad_input && e.kind != ErrorKind::interrupted && e.kind != ErrorKind::io &&
         e.kind != ErrorKind::unavailable;
}

}  // namespace

std::string_view to_string(GuardEvent::Kind kind) {
  switch (kind) {
    case GuardEvent::Kind::skipped: return "skipped";
    case GuardEvent::Kind::refused: return "refused";
    case GuardEvent::Kind::open_failed: return "open-failed";
    case GuardEvent::Kind::preflight_passed: return "preflight-passed";
    case GuardEvent::Kind::preflight_failed: return "preflight-failed";
    case GuardEvent::Kind::preflight_skipped: return "preflight-skipped";
    case GuardEvent::Kind::selected: return "selected";
    case GuardEvent::Kind::run_failed: return "run-failed";
    case GuardEvent::Kind::check_failed: return "check-failed";
    case GuardEvent::Kind::retry_tiled: return "retry-tiled";
    case GuardEvent::Kind::fell_back: return "fell-back";
  }
  return "?";
}

struct GuardedSession::Impl {
  Manifest manifest;
  GuardOptions options;
  fs::path base_dir;
  guard::EngineSettings engine_settings;
  guard::PreflightCache cache{fs::path()};
  std::vector<Candidate> chain;

  std::mutex mutex;  // guards everything below
  std::size_t next = 0;
  std::shared_ptr<const Active> active;
  std::vector<GuardEvent> open_events;
  std::vector<std::string> reasons;  // why each backend given up was, for the final error
  std::map<std::string, std::shared_ptr<guard::Engine>> references;  // per file, for preflight

  void emit(std::vector<GuardEvent>& log, GuardEvent::Kind kind, const std::string& label,
            std::string message, std::optional<Error> error = std::nullopt) {
    GuardEvent e{kind, label, std::move(message), std::move(error)};
    if (options.on_event) options.on_event(e);
    log.push_back(std::move(e));
  }

  // The declarations to try, first to last: `only` alone; else the forced one first, then the
  // manifest's guard.order, or accelerators before the CPU kernels in the manifest's order.
  std::vector<const manifest::Declaration*> order_of(std::vector<GuardEvent>& log) {
    std::vector<const manifest::Declaration*> order;
    auto add = [&](const manifest::Declaration* d) {
      if (d && std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
    };
    const std::string& asked = options.only.empty() ? options.force : options.only;
    if (!asked.empty()) {
      const manifest::Declaration* d = manifest.find(asked);
      if (!d || !d->enabled) {
        const std::string why = d ? "declared unfit: " + d->reason : "the manifest declares no such backend";
        emit(log, GuardEvent::Kind::refused, asked, (options.only.empty() ? "forced, but " : "") + why);
        reasons.push_back(asked + ": " + why);
      } else {
        add(d);
      }
      if (!options.only.empty()) return order;
    }
    if (!manifest.guard.order.empty()) {
      for (const std::string& label : manifest.guard.order) add(manifest.find(label));
    } else {
      for (bool cpu : {false, true})
        for (const auto& d : manifest.backends)
          if (backend::runs_on_cpu_kernels(d.ep) == cpu) add(&d);
    }
    return order;
  }

  void build_chain(std::vector<GuardEvent>& log) {
    for (const manifest::Declaration* d : order_of(log)) {
      if (!d->enabled) {
        if (d->backend != options.force)
          emit(log, GuardEvent::Kind::skipped, d->backend, "declared unfit: " + d->reason);
        continue;
      }
      if (backend::is_web_backend(d->ep)) {
        const std::string why = "a browser backend: parity-guard.mjs runs it in the page";
        emit(log, GuardEvent::Kind::skipped, d->backend, why);
        if (d->backend == options.only) reasons.push_back(d->backend + ": " + why);
        continue;
      }
      Candidate c;
      c.decl = d;
      c.spec = probe::spec_of(*d, d->graph_optimization.empty() ? "all" : d->graph_optimization);
      c.spec.count_nodes = false;  // no profiling in an application
      c.file = manifest::resolve_recorded(d->file, base_dir);
      chain.push_back(std::move(c));
    }
  }

  guard::EngineSettings settings_for(const std::string& label) const {
    guard::EngineSettings s = engine_settings;
    if (s.isolated)
      if (const char* env = std::getenv("PARITY_TEST_FAULT"))
        if (auto f = isolate::test_fault_for(env, label); f.ok()) s.fault = *f;
    return s;
  }

  // The reference's outputs for `c`'s file on `sample` (its engine is opened once per file).
  Result<std::vector<NamedTensor>> reference_outputs(const Candidate& c,
                                                     const std::vector<NamedTensor>& sample) {
    auto& engine = references[c.file.string()];
    if (!engine) {
      backend::BackendSpec ref = probe::spec_of(manifest.sweep->reference);
      ref.count_nodes = false;
      PARITY_ASSIGN_OR_RETURN(opened, guard::open_engine(ref, c.file, settings_for("reference")));
      engine = std::move(opened);
    }
    PARITY_ASSIGN_OR_RETURN(result, engine->run(sample));
    return std::move(result.outputs);
  }

  // Runs the known-answer check of `c` on `engine`: ok when it passed (or is not applicable).
  Result<bool> preflight(const Candidate& c, guard::Engine& engine, const std::string& sha,
                         std::vector<GuardEvent>& log) {
    const std::string& label = c.decl->backend;
    // The adapter's limits first: known at open in process, after the first run when isolated.
    bool limits_checked = false;
    auto fits = [&] {
      const backend::KeyValues properties = engine.properties();
      limits_checked = !properties.empty();
      const std::string shortfall = guard::adapter_shortfall(*c.decl, properties);
      if (!shortfall.empty()) emit(log, GuardEvent::Kind::preflight_failed, label, shortfall);
      return shortfall.empty();
    };
    if (!fits()) return false;
    if (!manifest.guard.preflight) return true;
    const std::string reference_ep = manifest.sweep ? manifest.sweep->reference.ep : manifest::Reference{}.ep;
    if (c.decl->ep == reference_ep) {
      emit(log, GuardEvent::Kind::preflight_skipped, label,
           "the reference backend itself: nothing to check it against");
      return true;
    }
    if (!manifest.sweep) {  // a hand-written manifest: say so rather than refuse every backend
      emit(log, GuardEvent::Kind::preflight_skipped, label,
           "the manifest records no sample ([sweep]): this backend is trusted unchecked");
      return true;
    }
    std::string key;
    if (!engine.runtime_version().empty()) {
      key = guard::PreflightCache::key(*c.decl, sha, engine.runtime_version(), engine.adapter());
      if (auto cached = cache.find(key)) {
        emit(log, cached->passed ? GuardEvent::Kind::preflight_passed : GuardEvent::Kind::preflight_failed,
             label, "cached: " + cached->detail);
        return cached->passed;
      }
    }
    PARITY_ASSIGN_OR_RETURN(sample, guard::preflight_sample(manifest, *c.decl, c.file, base_dir));
    PARITY_ASSIGN_OR_RETURN(actual, engine.run(sample));
    if (!limits_checked && !fits()) return false;
    PARITY_ASSIGN_OR_RETURN(expected, reference_outputs(c, sample));
    const guard::PreflightVerdict v = guard::judge_preflight(actual.outputs, expected, c.decl->precision,
                                                             backend::reduced_arithmetic(c.spec));
    if (key.empty())
      key = guard::PreflightCache::key(*c.decl, sha, engine.runtime_version(), engine.adapter());
    cache.store(key, v);
    emit(log, v.passed ? GuardEvent::Kind::preflight_passed : GuardEvent::Kind::preflight_failed, label,
         v.detail);
    return v.passed;
  }

  // Opens the next candidate that starts and passes its preflight, and publishes it. Under `mutex`.
  void advance(std::vector<GuardEvent>& log) {
    active.reset();
    while (next < chain.size()) {
      const Candidate& c = chain[next++];
      const std::string& label = c.decl->backend;
      auto give_up = [&](GuardEvent::Kind kind, const std::string& why,
                         std::optional<Error> e = std::nullopt) {
        emit(log, kind, label, why, std::move(e));
        reasons.push_back(label + ": " + why);
      };
      auto sha = sha256_file(c.file, Stage::load_model);
      if (!sha.ok()) {
        give_up(GuardEvent::Kind::open_failed, sha.error().message, sha.error());
        continue;
      }
      if (!c.decl->sha256.empty() && *sha != c.decl->sha256) {
        give_up(
            GuardEvent::Kind::open_failed,
            c.file.string() + " changed since the sweep proved it (sha256 differs from the declaration's)");
        continue;
      }
      auto engine = guard::open_engine(c.spec, c.file, settings_for(label));
      if (!engine.ok()) {
        give_up(GuardEvent::Kind::open_failed, engine.error().describe(), engine.error());
        continue;
      }
      auto trusted = preflight(c, **engine, *sha, log);
      if (!trusted.ok()) {
        give_up(GuardEvent::Kind::open_failed, "preflight could not run: " + trusted.error().describe(),
                trusted.error());
        continue;
      }
      if (!*trusted) {
        reasons.push_back(label + ": preflight failed");
        continue;
      }
      auto a = std::make_shared<Active>();
      a->label = label;
      a->engine = std::shared_ptr<guard::Engine>(std::move(engine).value());
      a->checks = c.decl->checks ? *c.decl->checks : manifest.checks.value_or(manifest::Checks{});
      a->budget_pixels = pixels_of(c.decl->size_budget);
      const std::string where = a->engine->adapter().empty() ? "" : ", " + a->engine->adapter();
      emit(log, GuardEvent::Kind::selected, label,
           fmt::format(
               "{} on {}{}{}", c.file.filename().string(), c.spec.ep,
               a->engine->runtime_version().empty() ? "" : " (ORT " + a->engine->runtime_version() + ")",
               where));
      active = std::move(a);
      return;
    }
  }

  Error exhausted() const {
    std::string list;
    for (const std::string& r : reasons) list += "\n  " + r;
    return make_error(ErrorKind::unavailable, Stage::create_session,
                      "no backend of the manifest can run this model safely here:" +
                          (list.empty() ? std::string("\n  (the manifest enables no native backend)") : list),
                      "see each backend's reason; docs/guard.md explains the chain");
  }

  // One run on `a`: whole, then in tiles of a halving budget after a failure. An Error means `a`
  // is given up for this input.
  Result<GuardedRun> run_on(const Active& a, const std::vector<NamedTensor>& inputs,
                            std::vector<GuardEvent>& log) {
    GuardedRun out;
    out.backend = a.label;
    const NamedTensor* image = guard::image_tensor(inputs, a.checks.input);
    const int64_t pixels = image ? image->tensor.shape()[2] * image->tensor.shape()[3] : 0;
    int64_t budget = (a.budget_pixels > 0 && pixels > a.budget_pixels) ? a.budget_pixels : 0;  // 0 = whole
    int retries = manifest.guard.retries;
    for (;;) {
      Result<std::vector<NamedTensor>> outputs = make_error(ErrorKind::internal, Stage::run, "not run");
      if (budget == 0) {
        auto r = a.engine->run(inputs);
        outputs = r.ok() ? Result<std::vector<NamedTensor>>(std::move(r->outputs)) : r.error();
        out.tiles = 1;
      } else {
        const guard::TileGrid grid = guard::plan_tiles(image->tensor.shape()[2], image->tensor.shape()[3],
                                                       budget, manifest.guard.overlap);
        outputs = guard::run_tiled(inputs, image->name, grid, [&](const std::vector<NamedTensor>& tile) {
          auto r = a.engine->run(tile);
          return r.ok() ? Result<std::vector<NamedTensor>>(std::move(r->outputs)) : r.error();
        });
        out.tiles = static_cast<int>(grid.tiles.size());
        out.tile_budget_pixels = budget;
      }
      if (outputs.ok()) {
        const auto start = Clock::now();
        out.checks = guard::run_checks(a.checks, inputs, *outputs);
        out.checks_ms += ms_since(start);
        const CheckResult* failed = guard::first_failure(out.checks);
        if (!failed) {
          out.outputs = std::move(outputs).value();
          return out;
        }
        emit(log, GuardEvent::Kind::check_failed, a.label,
             fmt::format("{}{}: {}", failed->check,
                         out.tiles > 1 ? fmt::format(" ({} tiles)", out.tiles) : "", failed->detail));
      } else {
        emit(log, GuardEvent::Kind::run_failed, a.label, outputs.error().describe(), outputs.error());
        if (!retryable(outputs.error())) return outputs.error();
      }
      if (!image || retries <= 0)
        return make_error(ErrorKind::error, Stage::run,
                          outputs.ok() ? "every output check failed" : outputs.error().message);
      budget = (budget == 0 ? pixels : budget) / 2;
      --retries;
      emit(log, GuardEvent::Kind::retry_tiled, a.label,
           fmt::format("again in tiles of at most {} pixels (with {} px overlap)", budget,
                       manifest.guard.overlap));
    }
  }
};

GuardedSession::GuardedSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GuardedSession::~GuardedSession() = default;

Result<std::unique_ptr<GuardedSession>> GuardedSession::open(const fs::path& model, const Manifest& manifest,
                                                             GuardOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->manifest = manifest;
  impl->base_dir = options.base_dir.empty() ? model.parent_path() : options.base_dir;
  impl->engine_settings.isolated = options.isolated;
  impl->engine_settings.worker_exe =
      options.worker_exe.empty() ? guard::default_worker_exe() : options.worker_exe;
  impl->engine_settings.timeout_s = options.worker_timeout_s;
  const fs::path cache_dir = options.cache_dir.empty() ? guard::default_cache_dir() : options.cache_dir;
  impl->cache = guard::PreflightCache(cache_dir == "-" ? fs::path() : cache_dir);
  impl->options = std::move(options);
  std::lock_guard lock(impl->mutex);
  impl->build_chain(impl->open_events);
  impl->advance(impl->open_events);
  if (!impl->active) return impl->exhausted();
  return std::unique_ptr<GuardedSession>(new GuardedSession(std::move(impl)));
}

Result<GuardedRun> GuardedSession::run(const std::vector<NamedTensor>& inputs) {
  const auto start = Clock::now();
  std::vector<GuardEvent> log;
  for (;;) {
    std::shared_ptr<const Active> a;
    {
      std::lock_guard lock(impl_->mutex);
      a = impl_->active;
      if (!a) return impl_->exhausted();
    }
    auto r = impl_->run_on(*a, inputs, log);
    if (r.ok()) {
      r->events = std::move(log);
      r->wall_ms = ms_since(start);
      return r;
    }
    std::lock_guard lock(impl_->mutex);
    if (impl_->active == a) {  // not already replaced by a concurrent run's fallback
      impl_->emit(log, GuardEvent::Kind::fell_back, a->label, r.error().message);
      impl_->reasons.push_back(a->label + ": " + r.error().message);
      impl_->advance(log);
    }
  }
}

std::string GuardedSession::backend() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->active ? impl_->active->label : "";
}

const std::vector<GuardEvent>& GuardedSession::open_events() const { return impl_->open_events; }

}  // namespace parity
