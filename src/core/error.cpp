#include "parity/error.h"

#include <array>
#include <csignal>
#include <utility>

namespace parity {
namespace {

constexpr std::array<std::pair<ErrorKind, std::string_view>, 9> kKindNames{{
    {ErrorKind::error, "error"},
    {ErrorKind::crashed, "crashed"},
    {ErrorKind::timeout, "timeout"},
    {ErrorKind::oom, "oom"},
    {ErrorKind::unavailable, "unavailable"},
    {ErrorKind::bad_input, "bad-input"},
    {ErrorKind::io, "io"},
    {ErrorKind::internal, "internal"},
    {ErrorKind::interrupted, "interrupted"},
}};

constexpr std::array<std::pair<Stage, std::string_view>, 13> kStageNames{{
    {Stage::none, "none"},
    {Stage::parse_args, "parse-args"},
    {Stage::load_model, "load-model"},
    {Stage::prepare_inputs, "prepare-inputs"},
    {Stage::spawn_worker, "spawn-worker"},
    {Stage::load_library, "load-library"},
    {Stage::create_env, "create-env"},
    {Stage::append_provider, "append-provider"},
    {Stage::create_session, "create-session"},
    {Stage::run, "run"},
    {Stage::read_output, "read-output"},
    {Stage::compare, "compare"},
    {Stage::write_output, "write-output"},
}};

template <class Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "unknown";
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                             std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(ErrorKind kind) { return name_of(kKindNames, kind); }
std::string_view to_string(Stage stage) { return name_of(kStageNames, stage); }
std::optional<ErrorKind> error_kind_from_string(std::string_view name) { return value_of(kKindNames, name); }
std::optional<Stage> stage_from_string(std::string_view name) { return value_of(kStageNames, name); }

std::string Error::describe() const {
  std::string out;
  if (!backend.empty()) out += backend + ": ";
  if (stage != Stage::none) out += std::string(to_string(stage)) + ": ";
  out += std::string(to_string(kind));
  if (kind == ErrorKind::crashed && signal != 0) out += " (" + signal_name(signal) + ")";
  if (!message.empty()) out += ": " + message;
  if (!hint.empty()) out += " (hint: " + hint + ")";
  return out;
}

Error make_error(ErrorKind kind, Stage stage, std::string message, std::string hint) {
  Error e;
  e.kind = kind;
  e.stage = stage;
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(signal);
  }
}

}  // namespace parity
