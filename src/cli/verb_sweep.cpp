// `parity sweep`: backends x variants x optimization levels x sizes, each cell judged against the
// fp32 model on the reference backend; `parity sweep merge` joins results of cells run apart.
#include <filesystem>

#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/input_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/out_folder.h"
#include "core/text.h"
#include "model/fp16_convert.h"
#include "model/onnx_model.h"
#include "probe/input_plan.h"
#include "report/sweep_report.h"
#include "sweep/ladder.h"
#include "sweep/sweep.h"
#include "sweep/sweep_files.h"

namespace parity::cli {
namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  CommonOptions common;
  std::string model;
  std::string backends = "cpu";
  std::string reference = "cpu";
  std::vector<std::string> variants;  // NAME=FILE[:PRECISION], repeatable or comma-separated
  std::string opt_levels = "all";
  std::vector<std::string> sizes;  // NAME=H,W:H,W:...
  std::string size_search;         // NAME=H,W: search the largest correct size from H,W
  int64_t size_step = 16;
  int64_t size_max = 4096;
  double budget_margin = 0.1;
  InputArgs inputs;
  std::string out_dir;
  bool force = false;  // --force: write --out into a folder Parity did not write
  bool resume = false;
  std::string write_plan, plan;
  std::optional<std::size_t> cell;
  bool list = false;
  ReportFiles report_files;
  std::vector<std::string> merge_dirs;  // `sweep merge DIR...`
};

// A variant Parity makes itself: `fp16` alone converts MODEL with the usual converter rules (I/O
// stays float32, ops without fp16 kernels and out-of-range weights stay float32) into
// GENERATED_DIR, named after the model, so a ladder exists when only fp32 ships.
Result<sweep::Variant> generate_variant(const std::string& name, const fs::path& model, const fs::path& dir,
                                        const probe::ProgressSink& progress) {
  if (name != "fp16")
    return usage_error("--variants " + name + ": Parity can generate only 'fp16'",
                       "give other variants as NAME=FILE[:PRECISION]");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return usage_error("cannot create " + dir.string() + ": " + ec.message(), "pick a writable --out");
  const fs::path out = dir / (model.stem().string() + ".fp16.onnx");
  PARITY_ASSIGN_OR_RETURN(report, model::convert_to_fp16(model, out));
  if (progress)
    progress("sweep: generated " + out.string() + " (fp16; " +
             std::to_string(report.converted_initializers + report.converted_constants) +
             " weights converted, " + std::to_string(report.blocked_nodes) + " nodes kept float32)");
  return sweep::Variant{"fp16", out, "fp16"};
}

Result<sweep::Variant> parse_variant(const std::string& text) {
  PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(text, "--variants"));
  sweep::Variant v{kv.first, kv.second, sweep::precision_from_name(kv.first)};
  if (const auto colon = kv.second.rfind(':'); colon != std::string::npos && !fs::exists(kv.second)) {
    v.path = kv.second.substr(0, colon);
    v.precision = kv.second.substr(colon + 1);
  }
  if (!fs::is_regular_file(v.path))
    return usage_error("--variants " + text + ": no model at " + v.path.string(), "check the path");
  if (v.precision.empty()) {  // neither the name nor a suffix says it: the weights do
    PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(v.path));
    v.precision = model::weight_precision(info);
  }
  if (!sweep::judging_dtype(v.precision))
    return usage_error("--variants " + text + ": '" + v.precision + "' is not a precision Parity knows",
                       "give one of fp32, fp16, bf16, int8, uint8, int4, q4: NAME=FILE:fp16");
  return v;
}

// The size axis: NAME=H,W:H,W:... (one input; several points).
Result<std::vector<sweep::SizePoint>> parse_sizes(const std::vector<std::string>& sizes) {
  std::vector<sweep::SizePoint> out;
  for (const auto& text : sizes) {
    PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(text, "--size"));
    for (const auto& point : split(kv.second, ':')) {
      PARITY_ASSIGN_OR_RETURN(hw, probe::parse_int_list(point, "--size " + kv.first));
      if (hw.size() != 2 || hw[0] <= 0 || hw[1] <= 0)
        return usage_error("--size " + text + ": '" + point + "' is not HEIGHT,WIDTH",
                           "e.g. --size x=160,160:320,320");
      out.push_back({kv.first, hw[0], hw[1]});
    }
  }
  return out;
}

// --size-search NAME=H,W with --size-step, --size-max and --budget-margin.
Result<sweep::SizeSearch> parse_size_search(const SweepArgs& a) {
  if (!a.sizes.empty()) return usage_error("--size-search and --size are two kinds of size axis: give one");
  PARITY_ASSIGN_OR_RETURN(kv, probe::split_assignment(a.size_search, "--size-search"));
  PARITY_ASSIGN_OR_RETURN(hw, probe::parse_int_list(kv.second, "--size-search " + kv.first));
  if (hw.size() != 2 || hw[0] <= 0 || hw[1] <= 0)
    return usage_error("--size-search " + a.size_search + ": the start size is HEIGHT,WIDTH",
                       "e.g. --size-search x=256,256 (the search keeps its aspect ratio)");
  if (a.size_step < 1 || a.size_max < a.size_step)
    return usage_error("--size-step must be at least 1 and --size-max at least one step");
  if (a.budget_margin < 0 || a.budget_margin >= 1)
    return usage_error("--budget-margin is a share of pixels in [0, 1), e.g. 0.1");
  sweep::SizeSearch s;
  s.input = kv.first;
  s.start_height = hw[0];
  s.start_width = hw[1];
  s.step = a.size_step;
  s.max_side = a.size_max;
  s.margin = a.budget_margin;
  return s;
}

// Where generated variants go: the --out folder, or beside the --write-plan file.
fs::path generated_dir(const SweepArgs& a) {
  if (!a.write_plan.empty()) return fs::absolute(a.write_plan).parent_path();
  return fs::absolute(!a.out_dir.empty() ? fs::path(a.out_dir)
                                         : fs::path("sweep-" + fs::path(a.model).stem().string()));
}

Result<sweep::SweepPlan> plan_from_args(const SweepArgs& a) {
  if (!a.plan.empty()) {
    if (!a.model.empty())
      return usage_error("--plan FILE carries the model and every axis; give no MODEL with it");
    return sweep::read_plan(a.plan);
  }
  if (a.model.empty())
    return usage_error("give MODEL (or --plan FILE)", "parity sweep --help shows examples");
  sweep::SweepPlan plan;
  plan.model = a.model;
  const auto defaults = a.common.defaults();
  PARITY_ASSIGN_OR_RETURN(backends, parse_backend_list(a.backends, defaults));
  plan.backends = std::move(backends);
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, defaults));
  plan.reference = std::move(reference);
  // The model's own precision labels its row: an fp16 export given as MODEL is judged as fp16, not
  // held to float32's bound (ISNet's fp16 file is 1.9e-3 off between opt levels on cpu alone).
  PARITY_ASSIGN_OR_RETURN(info, model::inspect_model(a.model));
  const std::string own = model::weight_precision(info);
  plan.variants.push_back({own, a.model, own});
  for (const auto& list : a.variants)
    for (const auto& item : split(list, ',')) {
      if (item.find('=') == std::string::npos && own != "fp32")
        return usage_error("--variants " + item + ": MODEL is already " + own +
                               "; Parity generates variants from an fp32 model",
                           "give the fp32 file as MODEL, or this variant as NAME=FILE");
      auto v = item.find('=') == std::string::npos
                   ? generate_variant(item, a.model, generated_dir(a) / "variants", progress_for(a.common))
                   : parse_variant(item);
      if (!v.ok()) return v.error();
      for (const auto& seen : plan.variants)
        if (seen.name == v->name)
          return usage_error("--variants: two variants are named '" + v->name + "'" +
                                 (&seen == &plan.variants.front() ? " (MODEL itself is " + own + ")" : ""),
                             "name each one: NAME=FILE, e.g. " + v->name + "_b=" + v->path.string());
      plan.variants.push_back(std::move(*v));
    }
  for (const auto& level : split(a.opt_levels, ',')) {
    if (level != "all" && level != "extended" && level != "basic" && level != "disabled")
      return usage_error("--opt-levels: '" + level + "' is not all, extended, basic or disabled");
    plan.opt_levels.push_back(level);
  }
  PARITY_ASSIGN_OR_RETURN(sizes, parse_sizes(a.sizes));
  plan.sizes = std::move(sizes);
  if (!a.size_search.empty()) {
    PARITY_ASSIGN_OR_RETURN(search, parse_size_search(a));
    plan.size_search = std::move(search);
  }
  PARITY_ASSIGN_OR_RETURN(settings, build_input_settings(a.inputs));
  plan.inputs = std::move(settings);
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  plan.limits = limits;
  return plan;
}

// 0: every cell ran and every backend has a correct variant; 1: a backend has none, or cells
// are missing (interrupted, or --cell ran just one).
int exit_code_for(const sweep::SweepPlan& plan, const std::vector<sweep::CellResult>& results) {
  const auto ladder = sweep::judge_ladder(plan, results);
  const bool all_have_one = std::all_of(ladder.begin(), ladder.end(), [](const auto& l) {
    return !l.smallest_correct.empty() && l.missing_cells == 0;
  });
  return all_have_one ? kExitOk : kExitFinding;
}

Result<VerbOutput> run(const SweepArgs& a) {
  // Before plan_from_args: a generated fp16 variant is written into the folder. Without --out or
  // MODEL (a --plan run), the folder is known only from the plan, below.
  const bool checked = !a.list && a.write_plan.empty() && (!a.out_dir.empty() || !a.model.empty());
  if (checked)
    PARITY_TRY(check_out_folder(!a.out_dir.empty() ? fs::path(a.out_dir) : generated_dir(a), a.force));
  PARITY_ASSIGN_OR_RETURN(plan, plan_from_args(a));
  if (a.list) return VerbOutput{report::sweep_cell_list(plan), nullptr};
  if (!a.write_plan.empty()) {
    PARITY_TRY(sweep::write_plan(plan, a.write_plan));
    return VerbOutput{"wrote " + a.write_plan + ": " + std::to_string(plan.cell_count()) +
                          " cells; run one with 'parity sweep --plan " + a.write_plan +
                          " --cell K --out DIR' (K = 0.." + std::to_string(plan.cell_count() - 1) + ")\n",
                      nullptr};
  }
  sweep::SweepRun run;
  run.out_dir = !a.out_dir.empty() ? fs::path(a.out_dir) : fs::path("sweep-" + plan.model.stem().string());
  if (!checked) PARITY_TRY(check_out_folder(run.out_dir, a.force));
  run.resume = a.resume;
  run.only_cell = a.cell;
  PARITY_ASSIGN_OR_RETURN(results, sweep::run_sweep(plan, run, progress_for(a.common)));
  VerbOutput out{report::sweep_table(plan, results), report::sweep_to_json(plan, results)};
  out.text += "results: " + (run.out_dir / "").string() + " (plan.json, results*.jsonl)\n";
  out.exit_code = exit_code_for(plan, results);
  if (a.report_files.wanted())
    add_report_documents(out, a.report_files, report::sweep_document(plan, results));
  return out;
}

Result<VerbOutput> run_merge(const SweepArgs& a) {
  PARITY_ASSIGN_OR_RETURN(plan, sweep::read_plan(fs::path(a.merge_dirs.at(0)) / "plan.json"));
  std::map<std::size_t, sweep::CellResult> all;
  for (const auto& dir : a.merge_dirs) {
    PARITY_ASSIGN_OR_RETURN(other, sweep::read_plan(fs::path(dir) / "plan.json"));
    if (sweep::plan_to_json(other) != sweep::plan_to_json(plan))
      return usage_error(dir + "/plan.json is another sweep than " + a.merge_dirs[0] + "/plan.json",
                         "merge only folders of one plan");
    PARITY_ASSIGN_OR_RETURN(results, sweep::read_results(dir, plan));
    for (auto& [k, r] : results) all[k] = std::move(r);
  }
  std::vector<sweep::CellResult> results;
  for (auto& [k, r] : all) results.push_back(std::move(r));
  VerbOutput out{report::sweep_table(plan, results), report::sweep_to_json(plan, results)};
  out.exit_code = exit_code_for(plan, results);
  if (a.report_files.wanted())
    add_report_documents(out, a.report_files, report::sweep_document(plan, results));
  return out;
}

constexpr const char* kReportContents =
    "the matrix as a grid of colour-coded verdicts and, with --size-search, each cell's cliff curve with "
    "the partly-wrong band and the safe budget marked";

void declare_sweep(CLI::App& cmd, SweepArgs& a) {
  cmd.footer(
      "Runs MODEL (the reference; usually fp32, its precision read from its weights) and its --variants on "
      "every backend at every --opt-levels and --size "
      "point, each cell in its own worker and judged against MODEL on the --reference backend at the same "
      "size, then says per backend which is the smallest variant that is correct, and at which opt levels.\n"
      "Variants are judged by the default rule of their precision (fp16: float16's; int8/q4: bfloat16's). "
      "Every finished cell is appended to OUT/results.jsonl at once; --resume after an interrupt runs only "
      "the rest. Cells are independent: --write-plan FILE, then --plan FILE --cell K on any machine, then "
      "'parity sweep merge DIR...'.\n"
      "Exit status: 0 every cell ran and every backend has a correct variant, 1 a backend has none or cells "
      "are missing, 2 bad invocation, 3 cannot run. See docs/sweep.md.\n\n"
      "Examples:\n"
      "  parity sweep det.onnx --variants fp16=det_fp16.onnx,int8=det_int8.onnx -b cpu,webgpu --opt-levels "
      "all,basic\n"
      "  parity sweep sr.onnx -b webgpu,web-webgpu --size x=128,128:256,256:512,512 --out sr-sweep\n"
      "  parity sweep det.onnx -b webgpu,web-webgpu --variants fp16 --size-search x=256,256 --size-step 32\n"
      "  parity sweep det.onnx -b webgpu --variants fp16=det_fp16.onnx --write-plan plan.json\n"
      "  parity sweep --plan plan.json --cell 3 --out shared/sweep   (one cell, e.g. a batch job)\n"
      "  parity sweep merge shared/sweep --json sweep.json");
  cmd.add_option("model", a.model, "the ONNX model, usually fp32: the reference of every cell");
  auto* backends =
      cmd.add_option("-b,--backends", a.backends, "comma-separated backend specs")->capture_default_str();
  add_reference_option(cmd, a.reference);
  auto* variants =
      cmd.add_option("--variants", a.variants,
                     "other files of the model, NAME=FILE[:PRECISION], comma-separated or repeated; "
                     "the name gives the precision when it starts with one (fp16, int8, ...); a bare 'fp16' "
                     "makes the fp16 variant from MODEL (into OUT/variants)");
  auto* levels = cmd.add_option("--opt-levels", a.opt_levels,
                                "graph optimization levels to try, e.g. all,basic,disabled")
                     ->capture_default_str();
  auto* sizes = cmd.add_option("--size", a.sizes,
                               "size axis of an image-like input, NAME=H,W:H,W:... (its last two dims)");
  auto* search =
      cmd.add_option("--size-search", a.size_search,
                     "find the largest correct size of input NAME, starting at H,W (NAME=H,W): grow "
                     "while correct, then binary-search to one --size-step")
          ->excludes(sizes);
  cmd.add_option("--size-step", a.size_step, "step of the long side in the size search, pixels")
      ->capture_default_str();
  cmd.add_option("--size-max", a.size_max, "largest long side the size search tries")->capture_default_str();
  cmd.add_option("--budget-margin", a.budget_margin,
                 "the suggested size budget stays this share of pixels below the largest correct size")
      ->capture_default_str();
  add_input_options(cmd, a.inputs);
  cmd.add_option(
      "--out", a.out_dir,
      "folder for plan.json and results*.jsonl (default: sweep-MODEL_STEM); new, empty or Parity's own");
  cmd.add_flag("--force", a.force, "let --out write into a folder holding files Parity did not write");
  cmd.add_flag("--resume", a.resume, "keep the cells --out already holds and run the rest");
  cmd.add_option("--write-plan", a.write_plan,
                 "write the plan (every cell, every spec resolved) to FILE, run nothing");
  cmd.add_option("--plan", a.plan, "run the cells of a plan FILE instead of MODEL and axis flags")
      ->excludes(backends)
      ->excludes(variants)
      ->excludes(levels)
      ->excludes(sizes)
      ->excludes(search);
  cmd.add_option("--cell", a.cell, "run only cell K of the plan (results-cell-K.jsonl in --out)");
  cmd.add_flag("--list", a.list, "list the plan's cells with their numbers, run nothing");
  add_report_options(cmd, a.report_files, kReportContents);
  add_common_options(cmd, a.common);
  CLI::App* merge =
      cmd.add_subcommand("merge", "join the results of one plan's cells run in several folders");
  merge->add_option("dirs", a.merge_dirs, "--out folders of the same plan")->required();
  merge->add_option("--json", a.common.json_path,
                    "also write the merged result as JSON to FILE ('-' for stdout)");
  add_report_options(*merge, a.report_files, kReportContents);
}

Result<VerbOutput> run_sweep_verb(const SweepArgs& a) { return a.merge_dirs.empty() ? run(a) : run_merge(a); }

}  // namespace

Verb sweep_verb() {
  return make_verb<SweepArgs>("sweep",
                              "measure which backend, variant, opt level and size are correct, cell by cell",
                              declare_sweep, run_sweep_verb);
}

}  // namespace parity::cli
