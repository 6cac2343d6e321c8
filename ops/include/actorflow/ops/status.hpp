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
  ok = 0,         ///< not an error
  cancelled = 1,  ///< the operation was cancelled (typically by the caller, or a closed queue)
  unknown = 2,    ///< an error of no other kind (exceptions that are not af::Error)
  invalid_argument = 3,     ///< the caller passed something invalid, whatever the system state
  deadline_exceeded = 4,    ///< a deadline expired before the operation could complete
  not_found = 5,            ///< a requested entity (file, node, resource) was not found
  already_exists = 6,       ///< an entity one tried to create already exists
  permission_denied = 7,    ///< the caller may not do this
  resource_exhausted = 8,   ///< out of memory, quota or space
  failed_precondition = 9,  ///< not in the needed state (uninitialized variable, closed session)
  aborted = 10,             ///< the operation was aborted (typically a concurrency conflict)
  out_of_range = 11,        ///< past the valid range (end of input: a closed, drained queue)
  unimplemented = 12,       ///< not implemented or not supported
  internal = 13,            ///< an internal invariant broke
  unavailable = 14,         ///< the service is unavailable (a peer down); usually transient
  data_loss = 15,           ///< unrecoverable data loss or corruption
  unauthenticated = 16,     ///< the request lacks valid credentials
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
      : state_(code == Code::ok && message.empty()
                   ? nullptr
                   : std::make_unique<State>(State{code, std::move(message)})) {}

  /// Copies the code and message (an OK status copies nothing).
  Status(const Status& other)
      : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}
  /// Moves; the moved-from status is OK.
  Status(Status&&) noexcept = default;
  Status& operator=(const Status& other) {
    if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
    return *this;
  }
  Status& operator=(Status&&) noexcept = default;

  // -- observers --------------------------------------------------------------

  /// True for Code::ok.
  bool ok() const noexcept { return !state_ || state_->code == Code::ok; }
  /// The error code.
  Code code() const noexcept { return state_ ? state_->code : Code::ok; }
  /// The message ("" when OK).
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

/// Prints `s.to_string()`.
std::ostream& operator<<(std::ostream& os, const Status& s);

/// Prints the upper-case code name.
inline std::ostream& operator<<(std::ostream& os, Code code) { return os << code_name(code); }

// -- factories (TensorFlow's `errors::InvalidArgument(...)`) ------------------

/// An OK status.
inline Status ok_status() { return {}; }
/// Code::cancelled with message `m` (each factory below: its code with message `m`).
inline Status cancelled(std::string m) { return {Code::cancelled, std::move(m)}; }
/// Code::unknown with message `m`.
inline Status unknown(std::string m) { return {Code::unknown, std::move(m)}; }
/// Code::invalid_argument with message `m`.
inline Status invalid_argument(std::string m) { return {Code::invalid_argument, std::move(m)}; }
/// Code::deadline_exceeded with message `m`.
inline Status deadline_exceeded(std::string m) { return {Code::deadline_exceeded, std::move(m)}; }
/// Code::not_found with message `m`.
inline Status not_found(std::string m) { return {Code::not_found, std::move(m)}; }
/// Code::already_exists with message `m`.
inline Status already_exists(std::string m) { return {Code::already_exists, std::move(m)}; }
/// Code::resource_exhausted with message `m`.
inline Status resource_exhausted(std::string m) { return {Code::resource_exhausted, std::move(m)}; }
/// Code::failed_precondition with message `m`.
inline Status failed_precondition(std::string m) {
  return {Code::failed_precondition, std::move(m)};
}
/// Code::aborted with message `m`.
inline Status aborted(std::string m) { return {Code::aborted, std::move(m)}; }
/// Code::out_of_range with message `m`.
inline Status out_of_range(std::string m) { return {Code::out_of_range, std::move(m)}; }
/// Code::unimplemented with message `m`.
inline Status unimplemented(std::string m) { return {Code::unimplemented, std::move(m)}; }
/// Code::internal with message `m`.
inline Status internal(std::string m) { return {Code::internal, std::move(m)}; }
/// Code::unavailable with message `m`.
inline Status unavailable(std::string m) { return {Code::unavailable, std::move(m)}; }
/// Code::data_loss with message `m`.
inline Status data_loss(std::string m) { return {Code::data_loss, std::move(m)}; }

/// Returns from the enclosing function when `expr` yields a failed Status.
#define ACTORFLOW_RETURN_IF_ERROR(expr)      \
  do {                                       \
    ::af::Status af_status_ = (expr);        \
    if (!af_status_.ok()) return af_status_; \
  } while (false)

}  // namespace af
