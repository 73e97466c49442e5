// backend/ort/ort_guard.h: the one place where ONNX Runtime results are checked.
//
// Every OrtApi call that returns an OrtStatus*, and every pointer ORT hands back, passes through an
// OrtGuard before Parity touches it: a failed status or a null object becomes a parity::Error
// naming the backend, the stage, a kind, ORT's own message with its error-code name, and a hint.
// Nothing is dereferenced before the check (the crash in seed 000 is exactly an unchecked null).
//
// The guard is also where PARITY_TEST_FAULT's `null` and `oom` actions land: the first guarded
// call of the targeted stage is made to fail as if ORT had returned a null object (creations),
// a failed status (plain calls) or an allocation failure (oom), proving that path is clean.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "backend/ort/ort_api.h"
#include "backend/ort/ort_handles.h"
#include "backend/test_fault.h"
#include "parity/error.h"
#include "parity/result.h"

namespace parity::backend::ort {

// "ORT_FAIL", "ORT_EP_FAIL", ...; "ORT_ERROR_<n>" for codes newer than these headers.
std::string error_code_name(OrtErrorCode code);

// How Parity reads an ORT failure. Pure, so the table is tested without ORT.
struct Classification {
  ErrorKind kind = ErrorKind::error;
  std::string hint;
};
Classification classify_ort_error(OrtErrorCode code, std::string_view message, Stage stage);

class OrtGuard {
 public:
  // `backend` labels every Error; `fault` is the PARITY_TEST_FAULT in force (may be empty).
  OrtGuard(std::string backend, std::optional<TestFault> fault)
      : backend_(std::move(backend)), fault_(fault) {}

  // Set once the table is known (after load_library); calls before that must not use ORT.
  void set_api(const OrtApi* api) { api_ = api; }
  const OrtApi* api() const { return api_; }

  // Marks the start of a stage: later Errors carry it, and a null/oom fault for it is armed.
  void enter(Stage stage);
  Stage stage() const { return stage_; }

  // An Error for the current stage with this guard's backend label.
  Error error(ErrorKind kind, std::string message, std::string hint = {}) const;

  // Checks a status-only call: `fn()` returns OrtStatus*. `call_name` names it in the message. An
  // armed fault makes it fail as if ORT had returned an error (no object to leave null here).
  template <class Fn>
  Status call(std::string_view call_name, Fn&& fn) {
    switch (take_injection()) {
      case Injection::null_result: return injected_failure(call_name);
      case Injection::oom: return injected_oom(call_name);
      case Injection::none: break;
    }
    return check_status(call_name, fn());
  }

  // Creates an owned object: `fn(T** out)` returns OrtStatus*. Fails on a bad status or a null out.
  template <class T, class Fn>
  Result<Owned<T>> create(std::string_view call_name, Fn&& fn) {
    T* out = nullptr;
    Status status = invoke_out(call_name, fn, out);
    Owned<T> owned(out, Releaser<T>{api_});  // owned before any check, so a failure still frees it
    if (!status.ok()) return status.error();
    if (!owned) return null_error(call_name);
    return owned;
  }

  // Like create, for a pointer ORT keeps owning (tensor data, the default allocator).
  template <class T, class Fn>
  Result<T*> borrow(std::string_view call_name, Fn&& fn) {
    T* out = nullptr;
    PARITY_TRY(invoke_out(call_name, fn, out));
    if (out == nullptr) return null_error(call_name);
    return out;
  }

  // A string ORT allocates with `allocator`: `fn(char** out)` returns OrtStatus*.
  template <class Fn>
  Result<AllocatedString> create_string(std::string_view call_name, OrtAllocator* allocator, Fn&& fn) {
    char* out = nullptr;
    Status status = invoke_out(call_name, fn, out);
    AllocatedString owned(out, AllocatorFreer{api_, allocator});
    if (!status.ok()) return status.error();
    if (!owned) return null_error(call_name);
    return owned;
  }

  // Checks a pointer obtained outside ORT's status convention (dlopen, GetApi, an out parameter
  // of a call with several outputs): `message` is the Error's text when it is null. An armed
  // `null` fault makes it count as null.
  Status require(const void* p, std::string message, ErrorKind kind = ErrorKind::error,
                 std::string hint = {});

 private:
  enum class Injection { none, null_result, oom };

  // Runs `fn(&out)` unless a fault is armed for this stage.
  template <class T, class Fn>
  Status invoke_out(std::string_view call_name, Fn& fn, T*& out) {
    injected_null_ = false;
    switch (take_injection()) {
      case Injection::null_result: injected_null_ = true; return ok_status();  // OK, but out stays null
      case Injection::oom: return injected_oom(call_name);
      case Injection::none: break;
    }
    return check_status(call_name, fn(&out));
  }

  Injection take_injection();  // the armed fault of the current stage, once
  Status check_status(std::string_view call_name, OrtStatus* status);  // takes ownership of status
  Error failure_error(std::string_view call_name, OrtErrorCode code, std::string_view message) const;
  Error injected_failure(std::string_view call_name) const;
  Error injected_oom(std::string_view call_name) const;
  Error null_error(std::string_view call_name) const;

  std::string backend_;
  std::optional<TestFault> fault_;
  const OrtApi* api_ = nullptr;
  Stage stage_ = Stage::none;
  bool armed_ = false;          // a null/oom fault targets the current stage and has not fired yet
  bool injected_null_ = false;  // the null being reported was injected (said so in the message)
};

}  // namespace parity::backend::ort
