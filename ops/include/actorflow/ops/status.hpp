#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace af {

/// TensorFlow's canonical error codes (`tensorflow/core/protobuf/error_codes.proto`).
enum class Code : std::uint8_t {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

/// Returns the upper-case TensorFlow spelling of `code` (`"INVALID_ARGUMENT"`).
std::string_view code_name(Code code) noexcept;

/// An error code with a message; `ok()` when the code is `Code::ok`.
///
/// The runtime passes errors as values; the synchronous public API turns a
/// failed Status into the matching `af::Error` subclass with `throw_if_error`.
/// As TensorFlow's, an OK status is one null pointer: making, moving and dropping it on
/// hot paths (a reader's every record) costs next to nothing.
class Status {
 public:
  // -- constructors -----------------------------------------------------------

  /// Constructs an OK status.
  Status() = default;

  /// Constructs a status with `code` and `message`.
  Status(Code code, std::string message)
      : state_(code == Code::ok && message.empty() ? nullptr
                                                  : std::make_unique<State>(State{code, std::move(message)})) {}

  Status(const Status& other) : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}
  Status(Status&&) noexcept = default;
  Status& operator=(const Status& other) {
    if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
    return *this;
  }
  Status& operator=(Status&&) noexcept = default;

  // -- observers --------------------------------------------------------------

  bool ok() const noexcept { return !state_ || state_->code == Code::ok; }
  Code code() const noexcept { return state_ ? state_->code : Code::ok; }
  const std::string& message() const noexcept { return state_ ? state_->message : empty_message(); }

  /// Renders as TensorFlow does: `"INVALID_ARGUMENT: message"`, or `"OK"`.
  std::string to_string() const;

  /// Returns a copy whose message has `suffix` appended (context such as a node name).
  Status with_context(std::string_view suffix) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct State {
    Code code;
    std::string message;
  };
  static const std::string& empty_message() noexcept;
  std::unique_ptr<State> state_;  ///< null when OK
};

std::ostream& operator<<(std::ostream& os, const Status& s);

/// Prints the upper-case code name.
inline std::ostream& operator<<(std::ostream& os, Code code) { return os << code_name(code); }

// -- factories (TensorFlow's `errors::InvalidArgument(...)`) ------------------

inline Status ok_status() { return {}; }
inline Status cancelled(std::string m) { return {Code::cancelled, std::move(m)}; }
inline Status unknown(std::string m) { return {Code::unknown, std::move(m)}; }
inline Status invalid_argument(std::string m) { return {Code::invalid_argument, std::move(m)}; }
inline Status deadline_exceeded(std::string m) { return {Code::deadline_exceeded, std::move(m)}; }
inline Status not_found(std::string m) { return {Code::not_found, std::move(m)}; }
inline Status already_exists(std::string m) { return {Code::already_exists, std::move(m)}; }
inline Status resource_exhausted(std::string m) { return {Code::resource_exhausted, std::move(m)}; }
inline Status failed_precondition(std::string m) {
  return {Code::failed_precondition, std::move(m)};
}
inline Status aborted(std::string m) { return {Code::aborted, std::move(m)}; }
inline Status out_of_range(std::string m) { return {Code::out_of_range, std::move(m)}; }
inline Status unimplemented(std::string m) { return {Code::unimplemented, std::move(m)}; }
inline Status internal(std::string m) { return {Code::internal, std::move(m)}; }
inline Status unavailable(std::string m) { return {Code::unavailable, std::move(m)}; }
inline Status data_loss(std::string m) { return {Code::data_loss, std::move(m)}; }

/// Returns from the enclosing function when `expr` yields a failed Status.
#define ACTORFLOW_RETURN_IF_ERROR(expr)     \
  do {                                      \
    ::af::Status af_status_ = (expr);       \
    if (!af_status_.ok()) return af_status_; \
  } while (false)

}  // namespace af
