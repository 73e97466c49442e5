// `parity hunt`: search op spaces for backend miscomputes; reduce, cluster and file each one.
#include <fmt/format.h>

#include "cli/backend_args.h"
#include "cli/common_options.h"
#include "cli/report_files.h"
#include "cli/verb.h"
#include "core/out_folder.h"
#include "core/parallel_for.h"
#include "core/shell_words.h"
#include "core/text.h"
#include "hunt/hunt.h"
#include "report/hunt_report.h"
#include "report/table_text.h"

namespace parity::cli {
namespace {

struct HuntArgs {
  CommonOptions common;
  std::string backends = "webgpu";
  std::string reference = "cpu";
  std::vector<std::string> ops;
  std::vector<std::string> points;
  uint64_t seed = 0;
  int cases = 100;
  int first_case = 0;
  std::optional<int> cell;
  double time_budget_s = 0;
  int jobs = 0;
  bool reduce = true;
  int max_reduce_runs = 48;
  std::string out_dir, journal;
  bool force = false;  // --force: write --out into a folder Parity did not write
  bool list = false;
  ReportFiles report_files;
  std::vector<std::string> argv;  // for the finding folders' "found with"
};

std::string spaces_text() {
  std::string s;
  for (const auto& space : hunt::op_spaces()) {
    s += fmt::format("{} ({}): {}\n", space.name, space.op_type, space.summary);
    for (const auto& p : space.params) {
      std::string values;
      for (int64_t v : p.boundary) values += (values.empty() ? "" : " ") + hunt::value_text(v);
      s += fmt::format("  {:<7} {} [{}..{}; often {}]\n", p.name, p.meaning, p.lo, p.hi, values);
    }
  }
  return s;
}

Result<hunt::HuntOptions> build_options(const HuntArgs& a) {
  hunt::HuntOptions o;
  const auto defaults = a.common.defaults();
  PARITY_ASSIGN_OR_RETURN(targets, parse_backends_beside(a.backends, a.reference, defaults));
  o.targets = std::move(targets);
  PARITY_ASSIGN_OR_RETURN(reference, parse_reference_spec(a.reference, defaults));
  o.reference = std::move(reference);
  // The targets' placement tells a case whose node fell back to the CPU EP (nothing of the target's
  // judged) from one its own kernel ran: one profiled run per case, cheap on one node.
  for (auto& t : o.targets) t.count_nodes = true;
  o.reference.count_nodes = false;
  PARITY_ASSIGN_OR_RETURN(limits, a.common.limits());
  o.limits = limits;
  for (const auto& list : a.ops)
    for (const auto& name : split(list, ','))
      if (!name.empty()) o.spaces.push_back(name);
  o.seed = a.seed;
  o.cases = a.cell ? 1 : a.cases;
  o.first_case = a.cell ? *a.cell : a.first_case;
  for (const auto& text : a.points) {
    PARITY_ASSIGN_OR_RETURN(point, hunt::parse_point(text));
    o.points.push_back(std::move(point));
  }
  if (!o.points.empty() && !a.cell) {
    o.first_case = 0;
    o.cases = static_cast<int>(o.points.size());
  }
  o.budget_s = a.time_budget_s;
  o.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(usable_cores());
  o.reduce = a.reduce;
  o.max_reduce_runs = a.max_reduce_runs;
  if (!a.out_dir.empty()) o.out_dir = a.out_dir;
  if (!a.journal.empty()) o.journal = a.journal;
  o.command = shell_join(a.argv);
  return o;
}

Result<VerbOutput> run(const HuntArgs& a) {
  if (a.list) return VerbOutput{spaces_text(), nullptr, 2, kExitOk};
  if (!a.out_dir.empty()) PARITY_TRY(check_out_folder(a.out_dir, a.force));
  PARITY_ASSIGN_OR_RETURN(options, build_options(a));
  if (options.cases == 0) return nothing_to_do("hunt", "--cases 0 draws no case");
  PARITY_ASSIGN_OR_RETURN(report, hunt::run_hunt(options, progress_for(a.common)));
  bool failing = !report.findings.empty();
  if (!options.reduce)
    for (const auto& c : report.cases)
      for (const auto& r : c.runs)
        failing |= r.state == hunt::CaseState::mismatch || r.state == hunt::CaseState::error;
  VerbOutput out{report::hunt_text(report), report::hunt_to_json(report), 2,
                 failing ? kExitFinding : kExitOk};
  if (a.report_files.wanted()) add_report_documents(out, a.report_files, report::hunt_document(report));
  return out;
}

void declare_hunt(CLI::App& cmd, HuntArgs& a) {
  a.common.timeout_s = 120;  // one case is one node: a hang is a finding, not a ten-minute wait
  cmd.footer(
      "Draws CASES points from op spaces (an op with its shape and attribute parameters, sampled where "
      "kernels change path: around powers of two, vector and workgroup widths, negative axes and steps), "
      "builds each as a one-node model (SPACE+: the op and up to two shape-keeping ops after it, where "
      "fused kernels show), runs it on the reference and every backend and judges the outputs by probe's "
      "rule (a node the backend leaves to its CPU fallback is not judged). Each failure is reduced "
      "(parameters shrunk while it still fails, then every "
      "parameter's neighbours tried, so the finding states its boundary: 'C=129 fails, 128 and 130 pass'), "
      "clustered (one bug, one finding) and, with --out, written as a finding folder that parity verify, "
      "parity findings verify and parity lint read.\n"
      "Case K is a pure function of (--seed, --ops, K): --cell K reruns one case anywhere, --journal resumes "
      "an interrupted hunt, and disjoint --first-case/--cases ranges split a hunt over machines.\n"
      "Exit status: 0 nothing failed, 1 findings, 2 bad invocation, 3 a backend cannot run here.\n\n"
      "Examples:\n"
      "  parity hunt --list\n"
      "  parity hunt --backends webgpu --ops Conv1D,Slice --cases 200 --seed 1 --out findings/\n"
      "  parity hunt --backends webgpu,web-webgpu --time-budget 600 --journal hunt.jsonl --json hunt.json\n"
      "  parity hunt --backends webgpu --seed 1 --cell 17 --no-reduce\n"
      "  parity hunt --backends webgpu --point "
      "Conv1D:N=1,C=131,M=128,L=3,K=3,pad=1,stride=1,dil=1,G=1,bias=0");
  cmd.add_option("--backends,-b", a.backends, "backends to search (comma-separated specs)")
      ->capture_default_str();
  add_reference_option(cmd, a.reference);
  cmd.add_option("--ops", a.ops, "op spaces to draw from, comma-separated (default: all; see --list)");
  cmd.add_option("--point", a.points,
                 "run this point instead of drawn ones, SPACE:NAME=V,... with every parameter "
                 "(repeatable; 'max' for the int64 maximum): is C=131 wrong too?");
  cmd.add_option("--seed", a.seed, "the hunt's seed: same seed, same cases")->capture_default_str();
  cmd.add_option("--cases", a.cases, "cases to draw")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd.add_option("--first-case", a.first_case, "number of the first case (split a hunt: 0, 100, 200 ...)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--cell", a.cell, "run case K alone (as --first-case K --cases 1)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--time-budget", a.time_budget_s, "start no new case after this many seconds (0: none)")
      ->capture_default_str();
  cmd.add_option("--jobs,-j", a.jobs, "cases at once (default: one per core this process may use)");
  add_switch(cmd, "reduce", a.reduce, "reduce and cluster failures into findings");
  cmd.add_option("--max-reduce-runs", a.max_reduce_runs, "runs one failure's reduction may take")
      ->capture_default_str();
  cmd.add_option("--out", a.out_dir,
                 "write a finding folder per finding under DIR (new, empty or Parity's own; see --force)");
  cmd.add_flag("--force", a.force, "let --out write into a folder holding files Parity did not write");
  cmd.add_option("--journal", a.journal, "JSON lines of finished cases: resumed from, appended to");
  cmd.add_flag("--list", a.list, "print the op spaces and their parameters, and exit");
  add_report_options(cmd, a.report_files,
                     "cases by space, and per finding its boundary table, pattern and verify command");
  add_common_options(cmd, a.common);
  cmd.parse_complete_callback([&a] {
    a.argv = {"parity", "hunt", "--backends", a.backends, "--seed", std::to_string(a.seed)};
    for (const auto& o : a.ops) a.argv.insert(a.argv.end(), {"--ops", o});
    for (const auto& p : a.points) a.argv.insert(a.argv.end(), {"--point", p});
    a.argv.insert(a.argv.end(), {"--first-case", std::to_string(a.cell.value_or(a.first_case)), "--cases",
                                 std::to_string(a.cell ? 1 : a.cases)});
  });
}

}  // namespace

Verb hunt_verb() {
  return make_verb<HuntArgs>("hunt",
                             "search op spaces for backend miscomputes and file each as a reduced finding",
                             declare_hunt, run);
}

}  // namespace parity::cli
