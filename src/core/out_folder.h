// core/out_folder.h: which folders a verb's --out may write into. Parity writes repro folders,
// finding folders and sweep results under fixed names (model.onnx, README.md, plan.json...), so a
// folder of the user's own must never be taken for one: this is the one definition of "Parity's
// own folder" every verb with a folder --out checks before it runs.
#pragma once

#include <filesystem>
#include <string_view>

#include "parity/result.h"

namespace parity {

// True when `dir` is recognizably written by Parity: it holds a record of Parity's at its top
// (repro.json, finding.json, plan.json or probe --save-io's io.json whose "schema" starts with "parity."), or
// every entry of it is a folder that does (a hunt's or lint's findings folder).
bool is_parity_folder(const std::filesystem::path& dir);

// May a verb write its folder at `dir`? Yes when it does not exist (it is created later, when
// there is something to write), is empty, is Parity's own (above), or `force`. Otherwise a
// bad_input error at parse_args naming the folder, with a hint naming `flag` and --force.
// A path that exists and is not a folder is refused even with `force`.
Status check_out_folder(const std::filesystem::path& dir, bool force, std::string_view flag = "--out");

}  // namespace parity
