// parity/result.h: Result<T>, a value or a parity::Error (C++20 has no std::expected).
//
// Expected failures (a backend that refuses a model, a worker that crashes) travel as values;
// no exception crosses a module border. Accessing the wrong alternative is a programming error
// and asserts.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "parity/error.h"

namespace parity {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T val) : v_(std::in_place_index<0>, std::move(val)) {}      // NOLINT: implicit by design
  Result(Error err) : v_(std::in_place_index<1>, std::move(err)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok() && "value() on a failed Result");
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok() && "value() on a failed Result");
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok() && "value() on a failed Result");
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok() && "error() on a successful Result");
    return std::get<1>(v_);
  }
  Error& error() {
    assert(!ok() && "error() on a successful Result");
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success carries nothing.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace parity

// Returns the error of `expr` (a Result) from the enclosing function if it failed.
#define PARITY_TRY(expr)                                             \
  do {                                                               \
    auto parity_try_result_ = (expr);                                \
    if (!parity_try_result_.ok()) return parity_try_result_.error(); \
  } while (0)

// Declares `var` from the value of `expr` (a Result), returning its error if it failed.
#define PARITY_ASSIGN_OR_RETURN(var, expr)                          \
  auto var##_result_ = (expr);                                      \
  if (!var##_result_.ok()) return std::move(var##_result_.error()); \
  auto var = std::move(var##_result_).value()
