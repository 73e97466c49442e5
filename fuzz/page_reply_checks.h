// fuzz/page_reply_checks.h: what the page-reply decoders (src/backend/browser/page_reply.h)
// guarantee for ANY JSON: a decoded value or an internal error naming the field, never an
// exception. Shared by the libFuzzer target and tests/backend/page_reply_test.cpp.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/browser/page_reply.h"

namespace parity::fuzz {

template <class T>
std::string check_decoded(const Result<T>& r, Stage stage) {
  if (r.ok()) return {};
  const Error& e = r.error();
  if (e.kind != ErrorKind::internal) return "unexpected kind: " + e.describe();
  if (e.stage != stage) return "unexpected stage: " + e.describe();
  if (e.message.find("is malformed: ") == std::string::npos) return "message names no field: " + e.message;
  if (e.hint.empty() || e.hint.find('\n') != std::string::npos)
    return "hint is not one line: " + e.describe();
  return {};
}

// Empty when every decoder kept its contract on `reply`, else what broke.
inline std::string check_page_reply(const nlohmann::json& reply) {
  using namespace parity::backend::browser;
  try {
    for (const std::string& problem :
         {check_decoded(decode_envelope("run", reply, Stage::run), Stage::run),
          check_decoded(decode_load(reply, Stage::load_library), Stage::load_library),
          check_decoded(decode_adapter(reply, Stage::append_provider), Stage::append_provider),
          check_decoded(decode_create(reply, Stage::create_session), Stage::create_session),
          check_decoded(decode_run(reply, Stage::run), Stage::run),
          check_decoded(decode_diagnostics(reply, Stage::read_output), Stage::read_output)})
      if (!problem.empty()) return problem;
  } catch (const std::exception& e) {
    return std::string("a decoder threw: ") + e.what();
  }
  return {};
}

}  // namespace parity::fuzz
