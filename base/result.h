// Result<T>: a value or an Error, the return type of every fallible function.
#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace vigil {

// What went wrong, as one line a user can act on. `code` is the errno of the
// failing system call, or 0 when the failure is not the kernel's (bad input).
struct Error {
  int code = 0;
  std::string message;

  // Prefixes the message with what the caller was doing: "context: message".
  [[nodiscard]] Error Wrap(std::string_view context) &&;
};

template <typename T = void>
using Result = tl::expected<T, Error>;

// An Error about bad input or state (no errno).
[[nodiscard]] tl::unexpected<Error> Fail(std::string message);

// An Error from a failed system call: "message: strerror(code)".
[[nodiscard]] tl::unexpected<Error> FailErrno(int code, std::string_view message);

// FailErrno with the current errno.
[[nodiscard]] tl::unexpected<Error> FailErrno(std::string_view message);

}  // namespace vigil

#define VIGIL_CONCAT_INNER(a, b) a##b
#define VIGIL_CONCAT(a, b) VIGIL_CONCAT_INNER(a, b)

// Returns the error of `expr` (a Result) from the enclosing function.
#define RETURN_IF_ERROR(expr)                                  \
  do {                                                         \
    if (auto vigil_result_ = (expr); !vigil_result_) {         \
      return tl::unexpected(std::move(vigil_result_).error()); \
    }                                                          \
  } while (0)

// Like RETURN_IF_ERROR, but wraps the error with `context` first.
#define RETURN_IF_ERROR_WRAP(expr, context)                                  \
  do {                                                                       \
    if (auto vigil_result_ = (expr); !vigil_result_) {                       \
      return tl::unexpected(std::move(vigil_result_).error().Wrap(context)); \
    }                                                                        \
  } while (0)

#define VIGIL_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)        \
  auto tmp = (expr);                                       \
  if (!tmp) return tl::unexpected(std::move(tmp).error()); \
  lhs = std::move(*tmp)

// Evaluates `expr` (a Result<T>); on error returns it, else assigns the value
// to `lhs`, which may be a declaration: ASSIGN_OR_RETURN(auto fd, Open(...)).
// It expands to several statements: put braces around it under an `if`.
#define ASSIGN_OR_RETURN(lhs, expr) \
  VIGIL_ASSIGN_OR_RETURN_IMPL(VIGIL_CONCAT(vigil_result_, __LINE__), lhs, expr)
